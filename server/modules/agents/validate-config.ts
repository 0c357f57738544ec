import { parameterProblems } from '../../../contracts/agent-parameters.ts';
import { templateParametersSchema, WEEKDAYS, type TAgentConfig } from '../../../contracts/agents.ts';
import type { ErrorDetail } from '../../lib/errors.ts';

/**
 * The contract (ZAgentConfig) only checks a configuration's shape; what each parameter may hold
 * depends on the template, so it is checked here with the template's parameter schema (the one
 * the runtime reads parameters with), on create and on every config change. The wizard does not
 * block bad values (SPEC section 5), so the server is the only gate.
 *
 * Pure: returns every problem found (empty when valid) so a client can mark all fields at once.
 * Paths are relative to the config (`parameters.token`, `schedule.activeHours`), plus
 * `templateId` when the template does not exist.
 */
export function validateAgentConfig(templateId: string, config: TAgentConfig): ErrorDetail[] {
  const schema = templateParametersSchema(templateId);
  if (!schema) return [{ path: 'templateId', message: `unknown template '${templateId}'` }];
  const parsed = schema.safeParse(config.parameters);
  return [...validateSchedule(config.schedule), ...(parsed.success ? [] : parameterProblems(parsed.error, config.parameters))];
}

function validateSchedule(schedule: TAgentConfig['schedule']): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  // HH:mm with leading zeros (the contract enforces it) compares correctly as text.
  if (schedule.activeHours && schedule.activeHours.start >= schedule.activeHours.end) {
    problems.push({ path: 'schedule.activeHours', message: 'start must be before end' });
  }
  const repeated = WEEKDAYS.find((day) => schedule.daysActive.filter((d) => d === day).length > 1);
  if (repeated) problems.push({ path: 'schedule.daysActive', message: `lists ${repeated} twice` });
  return problems;
}
