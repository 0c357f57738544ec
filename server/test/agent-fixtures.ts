import type { TestApp } from './test-app.ts';

/** An in-app alert on `runId` of the user's agent, stored through the app's own alerts service
 * (what a run that crossed a threshold does); returns the notification's id. */
export async function inAppAlert(t: TestApp, alert: { userId: string; agentId: string; agentName: string; runId: number | null }): Promise<string> {
  const { created } = await t.app.notifications.applyAlerts({
    ...alert,
    emailEnabled: false,
    inAppEnabled: true,
    conditions: [{ market: 'AAPL', thresholdType: 'priceChange', firing: true, value: 3.2, limit: 1, message: 'AAPL moved' }],
  });
  return created[0]!.id;
}
