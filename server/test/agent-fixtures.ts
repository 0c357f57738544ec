import { findTemplate, type TAgentConfig } from '../../contracts/agents.ts';
import type { TestApp } from './test-app.ts';

/** A valid config for a template: its defaults, every parameter at its default. */
export function defaultAgentConfig(templateId = 'stock-market-scanner', timeZone = 'UTC'): TAgentConfig {
  const template = findTemplate(templateId);
  if (!template) throw new Error(`no agent template ${templateId}`);
  return {
    schedule: { ...template.defaultConfig.schedule, timeZone },
    notifications: template.defaultConfig.notifications,
    parameters: Object.fromEntries(Object.entries(template.defaultConfig.parameters).map(([k, p]) => [k, p.default])) as TAgentConfig['parameters'],
  };
}

/** An in-app alert on `runId` of the user's agent, stored through the app's own alerts service
 * (what a run that crossed a threshold does); returns the notification's id. */
export async function inAppAlert(t: TestApp, alert: { userId: string; agentId: string; agentName: string; runId: number }): Promise<string> {
  const { created } = await t.app.notifications.applyAlerts({
    ...alert,
    emailEnabled: false,
    inAppEnabled: true,
    conditions: [{ market: 'AAPL', thresholdType: 'priceChange', firing: true, title: 'Moved', message: 'AAPL moved' }],
  });
  return created[0]!.id;
}
