import { z } from 'zod';

/**
 * What a run records of each of the owner's conditions (issue 30, docs/decisions/0071), in a
 * market's result (contracts/market.ts). Apart from conditions.ts, which reads market.ts's
 * timeframes, so market.ts can read this without an import circle.
 */

/** A side's value at the candle that decided and at the candle before it (crossings read both). */
export const ZSideValues = z.object({ label: z.string(), at: z.number().nullable(), before: z.number().nullable() });
export type TSideValues = z.infer<typeof ZSideValues>;

export const ZClauseOutcome = z.object({
  /** The clause's place in the condition ('0', '2.1'). */
  path: z.string(),
  text: z.string(),
  /** Null: undecided (a side not defined yet at that candle). */
  met: z.boolean().nullable(),
  sides: z.array(ZSideValues),
});
export type TClauseOutcome = z.infer<typeof ZClauseOutcome>;

/**
 * What became of a met condition: notified; or recorded without a notification because it was
 * snoozed, in its cooldown, already notified for this candle, or held by the agent's hourly cap.
 */
export const CONDITION_DELIVERIES = ['notified', 'snoozed', 'cooldown', 'repeat', 'held'] as const;
export type TConditionDelivery = (typeof CONDITION_DELIVERIES)[number];

export const ZConditionOutcome = z.object({
  id: z.string(),
  /** conditionTitle at the time of the run. */
  title: z.string(),
  /** conditionText at the time of the run. */
  text: z.string(),
  /** 'evaluated': `met` says the answer; 'insufficient data': some clause could not decide and
   * the join could not decide without it; 'expired' and 'disarmed' were not evaluated. */
  status: z.enum(['evaluated', 'insufficient data', 'expired', 'disarmed']),
  met: z.boolean(),
  /** Open time (ISO) of the candle that decided: the latest closed one for 'once-per-close'. */
  candleTime: z.string().nullable(),
  /** For a met condition: what the trigger made of it; null otherwise. */
  delivery: z.enum(CONDITION_DELIVERIES).nullable(),
  clauses: z.array(ZClauseOutcome),
});
export type TConditionOutcome = z.infer<typeof ZConditionOutcome>;

/**
 * One of the owner's conditions a notification tells of (issue 30): which one (so the bell can
 * snooze it), on which market, and in plain words with the values that decided
 * ('AAPL: RSI (14) on 1 hour crossed below 30 (29.4, before 31.2)').
 */
export const ZNotifiedCondition = z.object({
  conditionId: z.string(),
  market: z.string(),
  title: z.string(),
  /** The sentence the notification, email and channels show. */
  text: z.string(),
});
export type TNotifiedCondition = z.infer<typeof ZNotifiedCondition>;
