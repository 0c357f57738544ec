import { findTemplate, type TAgentConfig } from '../../contracts/agents.ts';

/** A valid config for a template: its defaults, every parameter at its default, in UTC. */
export function defaultAgentConfig(templateId = 'stock-market-scanner'): TAgentConfig {
  const template = findTemplate(templateId);
  if (!template) throw new Error(`no agent template ${templateId}`);
  return {
    schedule: { ...template.defaultConfig.schedule, timeZone: 'UTC' },
    notifications: template.defaultConfig.notifications,
    parameters: Object.fromEntries(Object.entries(template.defaultConfig.parameters).map(([k, p]) => [k, p.default])) as TAgentConfig['parameters'],
  };
}
