import type { z } from 'zod';
import { parameterProblems } from '../../../contracts/agent-parameters.ts';
import {
  ZCryptoMonitorParameters,
  ZCustomMonitorParameters,
  ZStockScannerParameters,
  type TAgentConfig,
  type TCryptoMonitorParameters,
  type TCustomMonitorParameters,
  type TStockScannerParameters,
  type TThreshold,
} from '../../../contracts/agents.ts';
import type { TCondition } from '../../../contracts/conditions.ts';
import type { TWatchedMarket } from '../../../contracts/watchlist.ts';

/**
 * What a run works from: its template's rule set and the agent's parameters, parsed once per run
 * with the template's schema, so every reading below is typed and none falls back to a default
 * of its own. A configuration that does not parse (stored before its template changed, or
 * edited outside the API) fails the run with a sentence that names the parameters.
 */
export type RunPlan = (
  | { templateType: 'stock'; parameters: TStockScannerParameters }
  | { templateType: 'crypto'; parameters: TCryptoMonitorParameters }
  /** The Custom Monitor (issue 30): no fixed signals; its markets are its watchlist. */
  | { templateType: 'custom'; parameters: TCustomMonitorParameters; watchlist: TWatchedMarket[] }
) & {
  thresholds: TThreshold[];
  /** The owner's own conditions (docs/decisions/0071); none for configurations stored before them. */
  conditions: TCondition[];
};

/** A run that cannot start for a reason the user can fix; its message is ours and shown as is. */
export class RunNotPossible extends Error {}

/** The run's error when its parameters do not parse: a fixed sentence, then what is wrong. */
export const INVALID_PARAMETERS_ERROR = "The agent's parameters do not fit its template, so it did not run";

function parse<T>(schema: z.ZodType<T>, config: TAgentConfig): T {
  const parsed = schema.safeParse(config.parameters);
  if (parsed.success) return parsed.data;
  // Each message names its parameter by its label already ('Token must be ...').
  const problems = parameterProblems(parsed.error, config.parameters).map((p) => p.message);
  throw new RunNotPossible(`${INVALID_PARAMETERS_ERROR} (${problems.join('; ')}).`);
}

export function planRun(templateId: string, config: TAgentConfig): RunPlan {
  const thresholds = config.notifications.thresholds;
  const conditions = config.conditions ?? [];
  switch (templateId) {
    case 'stock-market-scanner':
      return { templateType: 'stock', parameters: parse(ZStockScannerParameters, config), thresholds, conditions };
    case 'crypto-market-monitor':
      return { templateType: 'crypto', parameters: parse(ZCryptoMonitorParameters, config), thresholds, conditions };
    case 'custom-monitor':
      return { templateType: 'custom', parameters: parse(ZCustomMonitorParameters, config), thresholds, conditions, watchlist: config.watchlist ?? [] };
    default:
      throw new RunNotPossible(`The template ${templateId} has no runtime.`);
  }
}

/**
 * What decides the candles an agent's run reads (template, timeframe, markets), read from its
 * stored parameters as they are, valid or not: runs with the same key share their candles and
 * indicators, so the dispatcher puts them in the same batches. Only a grouping hint: a batch
 * with several keys runs as well, just with less sharing.
 */
export function candleKeyOf(templateId: string, config: Pick<TAgentConfig, 'parameters' | 'watchlist'>): string {
  const p = (config.parameters ?? {}) as Record<string, unknown>;
  return JSON.stringify([templateId, p.timeframe, p.token, p.exchanges, p.symbols, p.movingAveragePeriod, config.watchlist]);
}
