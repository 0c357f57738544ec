import { THRESHOLD_DEFINITIONS, type TThresholdType } from '../../../contracts/alert-thresholds.ts';
import type { TMarketResult, TRecentMoves, TRuleOutcome, TRunAlert } from '../../../contracts/market.ts';
import { BRIEF_MAX_CHARS } from '../../../contracts/notifications.ts';
import type { TNotifiedCondition } from '../../../contracts/condition-outcomes.ts';

/**
 * "Explain alerts" (docs/decisions/0044): what the assistant is given to write an alert's brief.
 * Only the run's recorded numbers, copied as the run recorded them (its alerts, and each alerted
 * market's price, candle time, recent averages, indicators and signal outcomes), and an
 * instruction to use nothing else. Pure: the job that writes the brief builds its prompt here.
 */

/** At most this many alerts and alerted markets go into a prompt (a brief is two or three
 * sentences; a 25-market storm of alerts would cost thousands of tokens for nothing more). */
export const BRIEF_MAX_ALERTS = 20;
export const BRIEF_MAX_MARKETS = 5;

/** One alerted market as the run recorded it, without its chart. */
export type BriefMarketFacts = {
  market: string;
  simulated: boolean;
  timeframe: string;
  /** The latest candle's open time (ISO, UTC). */
  candleTime: string;
  price: number;
  recent: TRecentMoves | null;
  indicators: Record<string, number | null>;
  signals: Array<Pick<TRuleOutcome, 'name' | 'status' | 'fired' | 'values' | 'detail'>>;
};

export type BriefFacts = {
  agentName: string;
  alerts: Array<TRunAlert & { unit: string; measures: string }>;
  /** Alerts of the notification not in `alerts` (beyond BRIEF_MAX_ALERTS). */
  alertsLeftOut: number;
  markets: BriefMarketFacts[];
  marketsLeftOut: number;
  /** The owner's conditions the notification tells of, in plain words with the values that
   * decided (issue 30); absent when it tells of none, so an alert's prompt is as it was. */
  conditions?: Array<Pick<TNotifiedCondition, 'market' | 'title' | 'text'>>;
};

export type RecordedMarket = { market: string; result: TMarketResult };

const definition = (type: string) => (THRESHOLD_DEFINITIONS as Record<string, (typeof THRESHOLD_DEFINITIONS)[TThresholdType] | undefined>)[type];

/** The facts of one notification's alerts, from the run's recorded market results. */
export function briefFacts(agentName: string, alerts: readonly TRunAlert[], recorded: readonly RecordedMarket[], conditions: readonly TNotifiedCondition[] = []): BriefFacts {
  const shown = alerts.slice(0, BRIEF_MAX_ALERTS).map((alert) => ({
    ...alert,
    unit: definition(alert.threshold)?.unit ?? '',
    measures: definition(alert.threshold)?.explanation ?? '',
  }));
  const met = conditions.slice(0, BRIEF_MAX_ALERTS);
  const alerted = [...new Set([...alerts.map((a) => a.market), ...met.map((c) => c.market)])];
  const markets = alerted.flatMap((market): BriefMarketFacts[] => {
    const result = recorded.find((r) => r.market === market)?.result;
    if (!result?.ok) return [];
    return [
      {
        market,
        simulated: result.simulated,
        timeframe: result.timeframe,
        candleTime: result.candleTime,
        price: result.price,
        recent: result.recent ?? null,
        indicators: result.indicators,
        signals: result.rules.map(({ name, status, fired, values, detail }) => ({ name, status, fired, values, detail })),
      },
    ];
  });
  return {
    agentName,
    alerts: shown,
    alertsLeftOut: alerts.length - shown.length,
    markets: markets.slice(0, BRIEF_MAX_MARKETS),
    marketsLeftOut: Math.max(0, markets.length - BRIEF_MAX_MARKETS),
    ...(met.length > 0 ? { conditions: met.map(({ market, title, text }) => ({ market, title, text })) } : {}),
  };
}

/** The instruction: the numbers given and nothing else, two or three plain sentences. */
export const BRIEF_SYSTEM_PROMPT = [
  'You explain a market alert to the person who set it up, in a brief of two or three sentences in plain words.',
  'Use only the numbers in the message, exactly as given. Do not invent, estimate or look up any other price, number, news, cause or prediction, and give no advice to buy or sell.',
  "Say what moved and by how much, how unusual that is against the recent average given in \"recent\" (the averages of the window of candles before the latest one), and which of the agent's signals agreed (a signal agreed when \"fired\" is true).",
  'If a number you would need is not given, say that it is not recorded instead of guessing. If the data is marked simulated, say so.',
  'Write plain text only: no markdown, lists, headings or links.',
].join('\n');

/** The system message and the user message holding the facts, verbatim as JSON. */
export function briefPrompt(facts: BriefFacts): { system: string; prompt: string } {
  const prompt = [
    `The alert of the agent "${facts.agentName}", with the numbers its run recorded, as JSON.`,
    'Each alert has its measured value and its limit in its unit; percentages are in %; candleTime is the open time of the latest candle (UTC).',
    '',
    JSON.stringify(facts),
  ].join('\n');
  return { system: BRIEF_SYSTEM_PROMPT, prompt };
}

/** Control characters, zero-width and bidirectional marks: nothing a brief needs, and the last
 * can make text read differently from what it is. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is removed
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * The assistant's answer as a brief: plain text on one paragraph, invisible characters removed,
 * at most BRIEF_MAX_CHARS characters (cut at a whole character, with '…'). Empty: no brief.
 */
export function cleanBriefText(text: string): string {
  const plain = text.replace(/\s+/g, ' ').replace(INVISIBLE, '').trim();
  const chars = Array.from(plain);
  return chars.length <= BRIEF_MAX_CHARS ? plain : `${chars.slice(0, BRIEF_MAX_CHARS - 1).join('').trimEnd()}…`;
}
