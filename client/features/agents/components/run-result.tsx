import { CircleSlash, Hourglass, Minus, Zap, type LucideIcon } from 'lucide-react';
import { MARKET_FAILURES, type TMarketResult, type TRuleOutcome, type TRunResult } from '../../../../contracts/market.ts';
import { Badge, type BadgeVariant } from '../../../components/ui/badge.tsx';
import { thresholdLabel } from '../../../../contracts/alert-thresholds.ts';
import { formatCompact, formatNumber, formatPercent, formatPrice, pricePrecision } from '../../../../contracts/number-format.ts';
import { DATE_TIME } from '../../../../contracts/time-format.ts';
import { useTimes, type Times } from '../../../lib/times.ts';
import { performanceClass } from '../lib/agent-format.ts';
import { ConditionOutcomes } from './condition-outcomes.tsx';

export type TOkMarket = Extract<TMarketResult, { ok: true }>;

/** 'BTC/USDT · binance · 15m': what a market is, where it came from and its candle size. */
export const marketLabel = (market: TMarketResult) => [market.symbol, market.source, market.ok ? market.timeframe : null].filter(Boolean).join(' · ');

/** A rule's outcome in words and in colour; the word carries the meaning, the colour helps. */
export function ruleState(rule: TRuleOutcome): { label: string; variant: BadgeVariant; icon: LucideIcon } {
  if (rule.status === 'not configured') return { label: 'Not configured', variant: 'neutral', icon: CircleSlash };
  if (rule.status === 'insufficient data') return { label: 'Insufficient data', variant: 'neutral', icon: Hourglass };
  return rule.fired ? { label: 'Fired', variant: 'warning', icon: Zap } : { label: 'Not fired', variant: 'neutral', icon: Minus };
}

/** Why a market failed: its kind's sentence (the current wording, for old runs too); a run
 * recorded before kinds existed keeps its stored text. */
export function failureText(market: Extract<TMarketResult, { ok: false }>, times: Times): string {
  // These two carry our own numbers (candles that arrived, the latest candle's time).
  if (market.failure === 'too-few-candles') return market.error;
  if (market.failure === 'stale' && market.candleTime) return `${MARKET_FAILURES.stale} Latest candle: ${times.format(market.candleTime, DATE_TIME, 'unknown')}.`;
  return market.failure ? MARKET_FAILURES[market.failure] : market.error;
}

/**
 * The latest candle against the ones before it, as the run recorded them (what an alert's brief
 * compares a move with, docs/decisions/0044): 'Change +0.6% (average size 0.081%), volume 3.1K
 * (average 1K), range 2.49% of the price (average 1%), against the 20 candles before.'
 */
export function recentText(recent: NonNullable<TOkMarket['recent']>): string {
  const signed = (value: number | null) => (value !== null && value > 0 ? `+${formatPercent(value)}` : formatPercent(value));
  return `Change ${signed(recent.changePercent)} (average size ${formatPercent(recent.averageAbsChangePercent)}), volume ${formatCompact(recent.volume)} (average ${formatCompact(recent.averageVolume)}), range ${formatPercent(recent.rangePercent)} of the price (average ${formatPercent(recent.averageRangePercent)}), against the ${recent.window} candles before.`;
}

/** One line for a collapsed run: '3 markets · 2 alerts · 4 signals fired'. */
export function resultHeadline(result: TRunResult): string {
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const fired = result.markets.reduce((n, m) => n + (m.ok ? m.rules.filter((r) => r.status === 'evaluated' && r.fired).length : 0), 0);
  const failed = result.markets.filter((m) => !m.ok).length;
  const withConditions = result.markets.some((m) => m.ok && m.conditions !== undefined && m.conditions.length > 0);
  const met = result.markets.reduce((n, m) => n + (m.ok ? (m.conditions ?? []).filter((c) => c.met).length : 0), 0);
  return [
    plural(result.markets.length, 'market'),
    failed ? `${failed} failed` : null,
    plural(result.alerts.length, 'alert'),
    `${plural(fired, 'signal')} fired`,
    withConditions ? `${plural(met, 'condition')} met` : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

const SUBHEADING = 'text-xs font-semibold tracking-wide text-slate-700 uppercase';

/** A run's result for reading: badges, alerts, then each market; the raw JSON on request. A
 * result of another shape (recorded before TRunResult, or by a later version: ZRunHistory) is
 * shown as the JSON stored. */
export function RunResult({ result, unreadable }: { result: TRunResult | null; unreadable?: unknown }) {
  if (!result) {
    return <RawJson value={unreadable} />;
  }
  return (
    <div className="mt-3 space-y-3">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1 text-sm">
        {result.simulated && (
          <>
            <Badge variant="warning">Simulated data</Badge>
            <span className="text-slate-600">Generated prices, not read from a market.</span>
          </>
        )}
        <span className="text-slate-700">
          Performance since the previous run:{' '}
          {result.performance ? <span className={`font-medium ${performanceClass(result.performance)}`}>{result.performance}</span> : 'not available'}
        </span>
      </div>
      <Alerts alerts={result.alerts} />
      {result.markets.map((market) => (
        <MarketResult key={`${market.source}:${market.symbol}`} market={market} />
      ))}
      <details className="text-sm">
        <summary className="cursor-pointer rounded text-slate-700 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600">
          Show raw JSON
        </summary>
        <RawJson value={result} />
      </details>
    </div>
  );
}

/** Formatted JSON in a box that scrolls; focusable so the keyboard can scroll it too. */
function RawJson({ value }: { value: unknown }) {
  return (
    <pre
      tabIndex={0}
      className="mt-2 max-h-60 overflow-auto rounded-md bg-slate-50 p-2 text-xs text-slate-800 focus-visible:outline-2 focus-visible:outline-brand-600"
    >
      {JSON.stringify(value, null, 2)}
    </pre>
  );
}

function Alerts({ alerts }: { alerts: TRunResult['alerts'] }) {
  return (
    <section aria-label="Alerts">
      <h4 className={SUBHEADING}>Alerts</h4>
      {alerts.length === 0 ? (
        <p className="mt-1 text-sm text-slate-600">No alerts fired</p>
      ) : (
        <ul className="mt-1 space-y-1 text-sm">
          {alerts.map((alert, i) => (
            <li key={i} className="flex gap-2">
              <Zap aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-amber-700" />
              <span>
                <span className="font-medium text-slate-900">{thresholdLabel(alert.threshold)}:</span> <span className="text-slate-700">{alert.message}</span>
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function MarketResult({ market }: { market: TMarketResult }) {
  const label = marketLabel(market);
  const times = useTimes();
  if (!market.ok) {
    return (
      <section aria-label={label} className="rounded-md border border-red-200 bg-red-50 p-3 text-sm">
        <h4 className="font-semibold text-slate-900">{label}</h4>
        <p className="mt-1 text-red-800">Could not read this market: {failureText(market, times)}</p>
      </section>
    );
  }
  const indicators = Object.entries(market.indicators);
  return (
    <section aria-label={label} className="rounded-md border border-slate-200 p-3 text-sm">
      <h4 className="font-semibold text-slate-900">{label}</h4>
      <p className="mt-1 text-slate-700">
        Price <span className="font-medium text-slate-900">{formatPrice(market.price, pricePrecision(market.chart.candles.map((c) => c.close)))}</span> at the candle of {times.format(market.candleTime, DATE_TIME, 'an unknown time')}
      </p>
      {market.recent && <p className="mt-1 text-slate-700">{recentText(market.recent)}</p>}
      <div className="mt-3 grid gap-4 sm:grid-cols-[minmax(0,14rem)_1fr]">
        {indicators.length > 0 ? (
          <table className="w-full self-start text-left">
            <caption className="sr-only">Indicators of {label}</caption>
            <thead>
              <tr className="border-b border-slate-200 text-slate-600">
                <th scope="col" className="py-1 font-medium">
                  Indicator
                </th>
                <th scope="col" className="py-1 text-right font-medium">
                  Value
                </th>
              </tr>
            </thead>
            <tbody>
              {indicators.map(([name, value]) => (
                <tr key={name} className="border-b border-slate-100 last:border-0">
                  <th scope="row" className="py-1 font-normal text-slate-700">
                    {name}
                  </th>
                  <td className="py-1 text-right font-medium text-slate-900 tabular-nums">{formatNumber(value)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p className="text-slate-600">No indicators computed</p>
        )}
        <div>
          <h5 className={SUBHEADING}>Signals</h5>
          {/* The Custom Monitor evaluates none (issue 30): said, not an empty list. */}
          {market.rules.length === 0 && <p className="mt-1 text-slate-600">No signals: only conditions and alerts</p>}
          <ul className="mt-1 space-y-1.5" aria-label={`Signals for ${label}`} hidden={market.rules.length === 0}>
            {market.rules.map((rule) => {
              const state = ruleState(rule);
              const Icon = state.icon;
              return (
                <li key={rule.name} className="flex flex-wrap items-baseline gap-x-2">
                  <Badge variant={state.variant} className="self-center">
                    <Icon aria-hidden="true" className="size-3" />
                    {state.label}
                  </Badge>
                  <span className="font-medium text-slate-900">{rule.name}</span>
                  <span className="text-slate-600">{rule.detail}</span>
                </li>
              );
            })}
          </ul>
        </div>
      </div>
      {market.conditions && <ConditionOutcomes outcomes={market.conditions} market={label} />}
    </section>
  );
}
