import { randomUUID } from 'node:crypto';
import { defaultAgentConfig, findTemplate, type TAgentConfig } from '../../contracts/agents.ts';
import type { TCondition } from '../../contracts/conditions.ts';
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

/**
 * A condition of every shape the builder makes (issue 30): a crossing on a number, an indicator
 * against an indicator on a longer timeframe, a group inside the group, a trigger with its cooldown.
 */
export function sampleCondition(id: string = randomUUID()): TCondition {
  return {
    id,
    name: 'Oversold above the trend',
    when: {
      kind: 'group',
      join: 'all',
      clauses: [
        { kind: 'clause', left: { indicator: 'rsi', period: 14 }, operator: 'crosses-below', right: { indicator: 'number', value: 30 } },
        {
          kind: 'group',
          join: 'any',
          clauses: [
            { kind: 'clause', left: { indicator: 'close', timeframe: '1w' }, operator: 'above', right: { indicator: 'ema', period: 20, timeframe: '1w' } },
            { kind: 'clause', left: { indicator: 'macd', line: 'histogram', fast: 12, slow: 26, signal: 9 }, operator: 'between', lower: { indicator: 'number', value: -1 }, upper: { indicator: 'number', value: 1 } },
          ],
        },
      ],
    },
    trigger: { mode: 'once-per-close', cooldownMinutes: 30 },
  };
}

/** A Custom Monitor watching a stock and a pair with one condition: its whole configuration. */
export function customMonitorConfig(conditions: TCondition[] = [sampleCondition()]): TAgentConfig {
  const config = defaultAgentConfig(findTemplate('custom-monitor')!, 'Europe/Paris');
  return { ...config, parameters: { timeframe: '1d' }, conditions, watchlist: [{ kind: 'stock', symbol: 'AAPL' }, { kind: 'crypto', symbol: 'BTC/USDT', exchange: 'kraken' }] };
}
