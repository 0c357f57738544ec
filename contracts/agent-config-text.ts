import { optionLabel } from './agent-parameters.ts';
import { TEMPLATE_TIMEFRAMES } from './agent-markets.ts';
import { currentFrequency, FREQUENCY_LABELS, findTemplate, notificationsPerHour, WEEKDAYS, type TAgentConfig } from './agents.ts';
import { thresholdLabel, thresholdValueText } from './alert-thresholds.ts';
import { conditionText, triggerText, type TCondition } from './conditions.ts';
import type { TCandleTimeframe } from './market.ts';
import { watchedMarketLabel } from './watchlist.ts';

/**
 * An agent's configuration in plain words, a line each (issue 31): what get_agent tells the model
 * beside the JSON, and what a proposal's card shows the owner. One reader for both, so the owner
 * approves exactly what the assistant was told. A change's differences are these lines compared
 * by their field.
 */

/** One line of a configuration: the field as the wizard names it, and its value in words. */
export type TConfigLine = { field: string; text: string };

/** 'Monday to Friday', 'Every day', 'Monday, Wednesday'. */
export function daysText(days: readonly string[]): string {
  const indexes = [...new Set(days)].map((d) => WEEKDAYS.indexOf(d as (typeof WEEKDAYS)[number])).filter((i) => i >= 0).sort((a, b) => a - b);
  if (indexes.length === WEEKDAYS.length) return 'Every day';
  const consecutive = indexes.length > 2 && indexes.every((d, i) => i === 0 || d === indexes[i - 1]! + 1);
  if (consecutive) return `${WEEKDAYS[indexes[0]!]} to ${WEEKDAYS[indexes.at(-1)!]}`;
  return indexes.map((i) => WEEKDAYS[i]).join(', ');
}

/** 'Hourly, Monday to Friday, 09:30 – 16:00 (America/New_York)'. */
export function scheduleText(schedule: TAgentConfig['schedule']): string {
  const frequency = currentFrequency(schedule.frequency);
  const hours = schedule.activeHours ? `${schedule.activeHours.start} – ${schedule.activeHours.end} (${schedule.timeZone})` : 'all day';
  return `${frequency ? FREQUENCY_LABELS[frequency] : schedule.frequency}, ${daysText(schedule.daysActive)}, ${hours}`;
}

/** The agent's own candle size, read from its timeframe parameter (conditions say theirs against it). */
export function agentTimeframe(config: Pick<TAgentConfig, 'parameters'>): TCandleTimeframe | undefined {
  const timeframe = config.parameters.timeframe;
  return typeof timeframe === 'string' && Object.hasOwn(TEMPLATE_TIMEFRAMES, timeframe) ? TEMPLATE_TIMEFRAMES[timeframe as keyof typeof TEMPLATE_TIMEFRAMES] : undefined;
}

/** A condition in words: its name and its rule, and how often it may speak. */
export function conditionLine(condition: TCondition, timeframe?: TCandleTimeframe): string {
  const rule = conditionText(condition.when, timeframe);
  const named = condition.name && condition.name.trim() !== '' ? `${condition.name}: ${rule}` : rule;
  return `${named} (${triggerText(condition.trigger)})`;
}

function parameterValueText(value: unknown, option: (o: string) => string): string {
  if (Array.isArray(value)) return value.length > 0 ? value.map((v) => option(String(v))).join(', ') : 'None';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (value === null || value === undefined || value === '') return 'Not set';
  return typeof value === 'string' ? option(value) : String(value);
}

/** The configuration, a line per field, in the wizard's order and names. */
export function configLines(templateId: string, config: TAgentConfig): TConfigLine[] {
  const template = findTemplate(templateId);
  const lines: TConfigLine[] = [{ field: 'Template', text: template?.name ?? templateId }, { field: 'Schedule', text: scheduleText(config.schedule) }];
  const definitions = template?.defaultConfig.parameters ?? {};
  for (const [key, value] of Object.entries(config.parameters)) {
    const definition = definitions[key];
    const option = (o: string) => (definition ? optionLabel(definition, o) : o);
    lines.push({ field: definition?.label ?? key, text: parameterValueText(value, option) });
  }
  if (config.watchlist) lines.push({ field: 'Watchlist', text: config.watchlist.map(watchedMarketLabel).join(', ') });
  const timeframe = agentTimeframe(config);
  (config.conditions ?? []).forEach((condition, i) => lines.push({ field: `Condition ${i + 1}`, text: conditionLine(condition, timeframe) }));
  const { notifications } = config;
  notifications.thresholds.forEach((t, i) => lines.push({ field: `Alert ${i + 1}`, text: `${thresholdLabel(t.type)} at ${thresholdValueText(t.type, t.value)}: “${t.message}”` }));
  const through = [notifications.inApp ? 'in the app' : null, notifications.email ? 'by email' : null, notifications.channels?.length ? `${notifications.channels.length} channel${notifications.channels.length === 1 ? '' : 's'}` : null].filter(
    (x): x is string => x !== null,
  );
  lines.push({ field: 'Notifications', text: `${through.length > 0 ? through.join(', ') : 'None'}; at most ${notificationsPerHour(notifications)} per hour` });
  if (notifications.brief) lines.push({ field: 'Explain alerts', text: `${notifications.brief.provider} (${notifications.brief.model})` });
  return lines;
}

/** A line as the card and the model read it: 'Schedule: Hourly, Every day, all day'. */
export const configLineText = (line: TConfigLine) => `${line.field}: ${line.text}`;

/** What differs between two states of an agent, field by field in words (a name change included). */
export function configDifferences(
  before: { name: string; templateId: string; config: TAgentConfig },
  after: { name: string; templateId: string; config: TAgentConfig },
): Array<{ field: string; before: string; after: string }> {
  const differences: Array<{ field: string; before: string; after: string }> = [];
  if (before.name !== after.name) differences.push({ field: 'Name', before: before.name, after: after.name });
  const was = new Map(configLines(before.templateId, before.config).map((l) => [l.field, l.text]));
  const now = new Map(configLines(after.templateId, after.config).map((l) => [l.field, l.text]));
  for (const field of new Set([...was.keys(), ...now.keys()])) {
    const b = was.get(field) ?? 'None';
    const a = now.get(field) ?? 'None';
    if (a !== b) differences.push({ field, before: b, after: a });
  }
  return differences;
}
