import type { TClauseOutcome, TConditionDelivery, TConditionOutcome } from '../../../../contracts/condition-outcomes.ts';
import { OPERATOR_LABELS } from '../../../../contracts/conditions.ts';
import { formatNumber } from '../../../../contracts/number-format.ts';
import { DATE_TIME } from '../../../../contracts/time-format.ts';
import { Badge, type BadgeVariant } from '../../../components/ui/badge.tsx';
import { useTimes } from '../../../lib/times.ts';

export const DELIVERY_LABELS: Record<TConditionDelivery, string> = {
  notified: 'Notified',
  snoozed: 'Snoozed, not notified',
  cooldown: 'In cooldown, not notified',
  repeat: 'Already notified for this candle',
  held: 'Held by the hourly cap',
};

/** A condition's outcome in a word, and its colour (the word carries the meaning). */
export function outcomeState(outcome: TConditionOutcome): { label: string; variant: BadgeVariant } {
  if (outcome.status === 'expired') return { label: 'Expired, not evaluated', variant: 'neutral' };
  if (outcome.status === 'disarmed') return { label: 'Disarmed, not evaluated', variant: 'neutral' };
  if (outcome.status === 'insufficient data') return { label: 'Insufficient data', variant: 'neutral' };
  return outcome.met ? { label: 'Met', variant: 'warning' } : { label: 'Not met', variant: 'neutral' };
}

const clauseState = (met: boolean | null) => (met === null ? 'Undecided' : met ? 'Met' : 'Not met');

// The crossings read the candle before as well (decision 0071): their words name them.
const CROSSING_WORDS = [OPERATOR_LABELS['crosses-above'], OPERATOR_LABELS['crosses-below'], OPERATOR_LABELS.crosses].map((w) => ` ${w} `);
const isCrossing = (clause: TClauseOutcome) => CROSSING_WORDS.some((w) => clause.text.includes(w));

const value = (v: number | null) => (v === null ? 'not defined' : formatNumber(v));

/**
 * A market's conditions in a run (issue 30 item 5): per condition its title, met or not, what
 * the trigger made of it, and per clause its words and each side's value at the candle that
 * decided and, for a crossing, the candle before. Narrow tables: readable on a phone.
 */
export function ConditionOutcomes({ outcomes, market }: { outcomes: readonly TConditionOutcome[]; market: string }) {
  const times = useTimes();
  if (outcomes.length === 0) return null;
  return (
    <section aria-label={`Conditions on ${market}`} className="mt-3">
      <h5 className="text-xs font-semibold tracking-wide text-slate-700 uppercase">Conditions</h5>
      <ul className="mt-1 space-y-3">
        {outcomes.map((outcome) => {
          const state = outcomeState(outcome);
          const at = times.format(outcome.candleTime, DATE_TIME, 'an unknown candle');
          return (
            <li key={outcome.id} className="rounded-md border border-slate-200 p-2">
              <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
                <Badge variant={state.variant}>{state.label}</Badge>
                <span className="font-medium break-words text-slate-900">{outcome.title}</span>
                {outcome.met && outcome.delivery && <span className="text-slate-700">{DELIVERY_LABELS[outcome.delivery]}</span>}
              </div>
              {outcome.title !== outcome.text && <p className="mt-1 break-words text-slate-700">{outcome.text}</p>}
              {outcome.candleTime && outcome.status !== 'expired' && outcome.status !== 'disarmed' && <p className="mt-1 text-xs text-slate-600">{`Decided at the candle of ${at}`}</p>}
              {outcome.clauses.length > 0 && (
                <ol className="mt-2 space-y-2">
                  {outcome.clauses.map((clause) => (
                    <ClauseValues key={clause.path} clause={clause} at={at} />
                  ))}
                </ol>
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

function ClauseValues({ clause, at }: { clause: TClauseOutcome; at: string }) {
  const crossing = isCrossing(clause);
  return (
    <li>
      <p className="flex flex-wrap items-baseline gap-x-2">
        <span className="text-xs font-medium text-slate-700">{clauseState(clause.met)}</span>
        <span className="break-words text-slate-900">{clause.text}</span>
      </p>
      {clause.sides.length > 0 && (
        <table className="mt-1 w-full max-w-md text-left text-xs">
          <caption className="sr-only">{`Values of ${clause.text}`}</caption>
          <thead>
            <tr className="border-b border-slate-200 text-slate-600">
              <th scope="col" className="py-1 pr-2 font-medium">
                Side
              </th>
              <th scope="col" className="py-1 pr-2 text-right font-medium">
                At {at}
              </th>
              {crossing && (
                <th scope="col" className="py-1 text-right font-medium">
                  Candle before
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {clause.sides.map((side, i) => (
              <tr key={i} className="border-b border-slate-100 last:border-0">
                <th scope="row" className="py-1 pr-2 font-normal break-words text-slate-700">
                  {side.label}
                </th>
                <td className="py-1 pr-2 text-right font-medium text-slate-900 tabular-nums">{value(side.at)}</td>
                {crossing && <td className="py-1 text-right text-slate-900 tabular-nums">{value(side.before)}</td>}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </li>
  );
}
