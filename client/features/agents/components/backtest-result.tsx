import { useMemo } from 'react';
import { FLOOD_NOTIFICATIONS_PER_DAY, FORWARD_HORIZONS, type TBacktestFiring, type TBacktestMarket, type TBacktestResult, type TBacktestRow } from '../../../../contracts/backtest.ts';
import { MARKET_FAILURES, type TCandleTimeframe, type TMarketSource } from '../../../../contracts/market.ts';
import { formatNumber, formatPercent, formatPrice, pricePrecision } from '../../../../contracts/number-format.ts';
import { Badge } from '../../../components/ui/badge.tsx';
import { DATE, DATE_TIME, formatTime, type TInstant } from '../../../../contracts/time-format.ts';
import { useTimeZone } from '../../../lib/time-zone.ts';
import { formatSignedPercent } from '../lib/agent-format.ts';
import { SECTION } from './editable-section.tsx';
import { Row } from './form-controls.tsx';
import { ChartFigure, candleZone, toChartSeries } from './run-chart.tsx';

type TOkBacktestMarket = Extract<TBacktestMarket, { ok: true }>;

export const SOURCE_NAMES: Record<TMarketSource, string> = {
  yahoo: 'Yahoo Finance',
  binance: 'Binance',
  coinbase: 'Coinbase',
  kraken: 'Kraken',
  kucoin: 'KuCoin',
  htx: 'HTX',
  simulated: 'Simulated data',
};
const DAILY: ReadonlySet<TCandleTimeframe> = new Set(['1d', '1w']);
/**
 * A row's kind as the tables say it. The kinds grow (issue 30 adds the owner's conditions); one
 * this version does not know shows as the server named it rather than being hidden.
 */
const KIND_LABELS: Record<string, { one: string; many: string }> = {
  signal: { one: 'signal', many: 'signals' },
  alert: { one: 'alert', many: 'alerts' },
  condition: { one: 'condition', many: 'conditions' },
};
export const rowKindLabel = (kind: string) => KIND_LABELS[kind]?.one ?? kind;
/** 'Signals and alerts', 'Signals, alerts and conditions': what the rows hold, in the order above. */
export function rowsCaption(rows: readonly { kind: string }[]): string {
  const kinds = unique(['signal', 'alert', ...rows.map((r) => String(r.kind))]).map((k, i) => {
    const many = KIND_LABELS[k]?.many ?? `${k} rows`;
    return i === 0 ? many.charAt(0).toUpperCase() + many.slice(1) : many.toLowerCase();
  });
  return kinds.length === 1 ? kinds[0]! : `${kinds.slice(0, -1).join(', ')} and ${kinds.at(-1)}`;
}
/** The heading of the column naming each row: 'Signal or alert', 'Signal, alert or condition'. */
const rowColumn = (rows: readonly { kind: string }[]) => {
  const kinds = unique(['signal', 'alert', ...rows.map((r) => String(r.kind))]).map(rowKindLabel);
  const text = kinds.length === 1 ? kinds[0]! : `${kinds.slice(0, -1).join(', ')} or ${kinds.at(-1)}`;
  return text.charAt(0).toUpperCase() + text.slice(1);
};
const notifies = (kind: string) => kind !== 'signal';
const plural = (n: number, one: string, many = `${one}s`) => `${formatNumber(n, 0)} ${n === 1 ? one : many}`;
const unique = <T,>(values: readonly T[]) => [...new Set(values)];

/** A candle's time as the chart reads it: intraday in the reader's zone, named; a daily candle by its day. */
function useCandleTime(daily: boolean): (at: TInstant) => string {
  const zone = candleZone(!daily, useTimeZone());
  return (at) => formatTime(at, daily ? DATE : DATE_TIME, zone, '—');
}

/** Why a market's history is shorter than asked, or null when all of it arrived. */
export function shortHistoryText(market: TOkBacktestMarket): string | null {
  const { short, received, requested } = market.history;
  if (short === null) return null;
  const counts = `${formatNumber(received, 0)} of ${formatNumber(requested, 0)} candles received (indicator warm-up included)`;
  if (short === 'provider-history') return `Short history: the data provider keeps no older candles. ${counts}.`;
  return `Short history: ${MARKET_FAILURES[short]} Loading stopped with ${counts}; the test used what arrived.`;
}

/** What a test found (decision record 0039): its data and period, the notifications it would
 * have sent, each signal's and alert's firings with what followed, and each market's chart. */
export function BacktestResultView({ result }: { result: TBacktestResult }) {
  const ok = result.markets.filter((m): m is TOkBacktestMarket => m.ok);
  const failed = result.markets.filter((m) => !m.ok);
  const timeframes = unique(ok.map((m) => m.timeframe));
  const candleTime = useCandleTime(timeframes.every((t) => DAILY.has(t)));
  const zone = useTimeZone();
  const from = ok.map((m) => m.from).sort()[0];
  const to = ok.map((m) => m.to).sort().at(-1);
  const evaluated = unique(ok.map((m) => m.evaluated));
  const hasAlerts = result.summary.some((r) => notifies(String(r.kind)));
  const { notifications } = result;

  return (
    <section aria-label="Test result" className="space-y-4">
      <div className={`${SECTION} space-y-2`}>
        <h3 className="flex flex-wrap items-center gap-2 text-sm font-semibold text-slate-900">
          Result on history
          {result.simulated && <Badge variant="warning">Simulated data</Badge>}
        </h3>
        <dl>
          <Row term="Data">{unique(result.markets.map((m) => SOURCE_NAMES[m.source])).join(', ')}</Row>
          <Row term="Timeframe">{timeframes.length ? timeframes.join(', ') : '—'}</Row>
          <Row term="Period">{from && to ? `${candleTime(from)} – ${candleTime(to)}` : '—'}</Row>
          <Row term="Candles">
            {evaluated.length === 1 ? `${plural(evaluated[0]!, 'candle')} per market` : ok.map((m) => `${m.label} ${formatNumber(m.evaluated, 0)}`).join(', ') || 'None'}
            {` (${formatNumber(result.candles, 0)} asked)`}
          </Row>
        </dl>
        {result.simulated && (
          <p className="text-sm text-amber-900">
            These candles were generated by this server (simulated market data), not read from a real market: the counts show how the rules behave, not what the market did.
          </p>
        )}
        {failed.map((m) => (
          <p key={`${m.source}:${m.symbol}`} className="text-sm font-medium text-red-700">
            {m.label}: {m.error}
          </p>
        ))}
      </div>

      <div className={`${SECTION} space-y-2`}>
        <h3 className="text-sm font-semibold text-slate-900">Notifications</h3>
        <dl>
          <Row term="Total">{formatNumber(notifications.total, 0)}</Row>
          <Row term="Per day on average">{`${formatNumber(notifications.perDay)} over ${plural(notifications.days, 'day')}`}</Row>
          <Row term="Worst day">
            {notifications.worstDay ? `${formatTime(`${notifications.worstDay.date}T00:00:00Z`, DATE, 'UTC')}: ${formatNumber(notifications.worstDay.count, 0)}` : 'None'}
            {/* Days are counted in the schedule's zone; said when it is not the one times are shown in. */}
            {notifications.worstDay && result.timeZone !== zone && ` (days in ${result.timeZone})`}
          </Row>
          {notifications.held > 0 && (
            <Row term="Held back">
              {`${plural(notifications.held, 'alert')} over the limit of ${formatNumber(notifications.maxPerHour, 0)} per hour; ${plural(notifications.stormNotices, 'alert storm notice')} instead (counted in the total)`}
            </Row>
          )}
        </dl>
        {notifications.floodDays > 0 && (
          <p className="text-sm font-medium text-red-700">
            Warning: on {plural(notifications.floodDays, 'day')} of {formatNumber(notifications.days, 0)} this configuration would have sent more than {FLOOD_NOTIFICATIONS_PER_DAY}{' '}
            notifications. Raise the alert thresholds or remove some, or they will flood your inbox.
          </p>
        )}
        {!hasAlerts && <p className="text-sm text-slate-600">No alert thresholds are set: this configuration notifies nobody; its signals show in its runs only.</p>}
        {hasAlerts && !result.channels.email && !result.channels.inApp && (
          <p className="text-sm font-medium text-amber-900">
            Email and in-app notifications are both off: as configured, this agent would tell nobody. The counts above are what it would send with them on.
          </p>
        )}
        <p className="text-xs text-slate-600">
          An alert notifies once when its condition starts and again only after it has cleared, as the live agent does; one notification covers every alert a run raises. The
          counts assume a run at the close of every candle: an agent scheduled less often than its timeframe would send fewer.
        </p>
      </div>

      <RowsTable
        rows={result.summary}
        caption={ok.length > 1 ? `${rowsCaption(result.summary)} over all markets` : `${rowsCaption(result.summary)} on ${ok[0]?.label ?? 'the markets'}`}
      />

      {ok.map((market) => (
        <MarketSection key={`${market.source}:${market.symbol}`} market={market} showRows={ok.length > 1} />
      ))}

      {result.notTested.length > 0 && (
        <section className={SECTION} aria-label="Not tested">
          <h3 className="text-sm font-semibold text-slate-900">Not tested</h3>
          <ul className="mt-2 space-y-1 text-sm text-slate-700">
            {result.notTested.map((rule) => (
              <li key={rule.name}>
                <span className="font-medium text-slate-900">{rule.name}</span>: {rule.reason}
              </li>
            ))}
          </ul>
        </section>
      )}
    </section>
  );
}

const share = (value: number | null) => (value === null ? '—' : formatPercent(value * 100));
const TH = 'px-2 py-1.5 text-left font-medium text-slate-700';
const SCROLLER = 'overflow-auto focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600';
const TD = 'px-2 py-1.5 text-right tabular-nums text-slate-900';

/** Fired, notified, and what followed after 1, 5 and 20 candles, one row per signal and alert. */
function RowsTable({ rows, caption }: { rows: readonly TBacktestRow[]; caption: string }) {
  if (rows.length === 0) return <p className="text-sm text-slate-600">This template has no rules or alerts to test.</p>;
  return (
    // Wider than a phone or the dialog: it scrolls, so it takes focus for the arrow keys.
    <div role="region" aria-label={caption} tabIndex={0} className={SCROLLER}>
      <table className="w-full min-w-[44rem] border-collapse text-sm">
        <caption className="mb-2 text-left text-sm font-semibold text-slate-900">{caption}</caption>
        <thead className="border-b border-slate-200">
          <tr>
            <th scope="col" rowSpan={2} className={TH}>
              {rowColumn(rows)}
            </th>
            <th scope="col" rowSpan={2} className={`${TH} text-right`}>
              Fired
            </th>
            <th scope="col" rowSpan={2} className={`${TH} text-right`}>
              Notifications
            </th>
            {FORWARD_HORIZONS.map((h) => (
              <th key={h} scope="colgroup" colSpan={3} className={`${TH} border-l border-slate-200 text-center`}>
                After {plural(h, 'candle')}
              </th>
            ))}
          </tr>
          <tr>
            {FORWARD_HORIZONS.map((h) => (
              <HorizonHeaders key={h} />
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((row) => (
            <tr key={row.key}>
              <th scope="row" className={`${TH} text-slate-900`}>
                {row.label} <span className="text-xs font-normal text-slate-600">({rowKindLabel(String(row.kind))})</span>
              </th>
              <td className={TD}>{formatNumber(row.fired, 0)}</td>
              <td className={TD}>{row.notifications === null ? '—' : formatNumber(row.notifications, 0)}</td>
              {row.forward.map((f) => (
                <ForwardCells key={f.horizon} average={f.average} median={f.median} share={f.shareInDirection} />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const HorizonHeaders = () => (
  <>
    <th scope="col" className={`${TH} border-l border-slate-200 text-right`}>
      Average
    </th>
    <th scope="col" className={`${TH} text-right`}>
      Median
    </th>
    <th scope="col" className={`${TH} text-right`}>
      In direction
    </th>
  </>
);

const ForwardCells = ({ average, median, share: value }: { average: number | null; median: number | null; share: number | null }) => (
  <>
    <td className={`${TD} border-l border-slate-100`}>{formatSignedPercent(average)}</td>
    <td className={TD}>{formatSignedPercent(median)}</td>
    <td className={TD}>{share(value)}</td>
  </>
);

/** One market: its period and history, its rows when there are several markets, its chart
 * with every firing marked, and the firings themselves. */
function MarketSection({ market, showRows }: { market: TOkBacktestMarket; showRows: boolean }) {
  // Alerts and conditions notify; their firings are marked as alerts are.
  const alertLabels = useMemo(() => new Set(market.rows.filter((r) => notifies(String(r.kind))).map((r) => r.label)), [market]);
  const series = useMemo(() => toChartSeries(market.chart, [], alertLabels), [market, alertLabels]);
  const candleTime = useCandleTime(DAILY.has(market.timeframe));
  const short = shortHistoryText(market);
  return (
    <section className={`${SECTION} space-y-3`} aria-label={`Market ${market.label}`}>
      <div>
        <h3 className="text-sm font-semibold text-slate-900">{market.label}</h3>
        <p className="text-sm text-slate-600">
          {plural(market.evaluated, `${market.timeframe} candle`)} from {candleTime(market.from)} to {candleTime(market.to)}, {SOURCE_NAMES[market.source]}
          {market.simulated && ' (simulated data)'}
          {market.history.cached > 0 && `; ${formatNumber(market.history.cached, 0)} read from the cache`}.
        </p>
        {short && <p className="mt-1 text-sm font-medium text-amber-900">{short}</p>}
      </div>
      {showRows && <RowsTable rows={market.rows} caption={`${rowsCaption(market.rows)} on ${market.label}`} />}
      {series.candles.length > 0 && <ChartFigure series={series} name={market.label} timeframe={market.timeframe} alerts="candles" />}
      <FiringsList market={market} />
    </section>
  );
}

const DIRECTIONS = { up: 'Up', down: 'Down' } as const;

/** Every listed firing in a table a screen reader can walk, folded until asked for. */
function FiringsList({ market }: { market: TOkBacktestMarket }) {
  const labels = new Map(market.rows.map((r) => [r.key, r] as const));
  const decimals = useMemo(() => pricePrecision(market.chart.candles.map((c) => c.close)), [market]);
  const candleTime = useCandleTime(DAILY.has(market.timeframe));
  const total = market.firings.length + market.firingsOmitted;
  if (total === 0) return <p className="text-sm text-slate-600">Nothing fired on {market.label} in this period.</p>;
  const notifiedText = (f: TBacktestFiring) => {
    const kind = labels.get(f.key)?.kind;
    if (kind === undefined || !notifies(String(kind))) return '—';
    if (f.notified) return 'Yes';
    return kind === 'alert' ? 'No, already active' : 'No';
  };
  return (
    <details className="group">
      <summary className="cursor-pointer text-sm font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600">
        Firings on {market.label} ({formatNumber(total, 0)})
      </summary>
      {market.firingsOmitted > 0 && (
        <p className="mt-2 text-sm text-slate-600">
          The latest {formatNumber(market.firings.length, 0)} are listed; {formatNumber(market.firingsOmitted, 0)} earlier ones are not, though every count above includes them.
        </p>
      )}
      <div role="region" aria-label={`Firings on ${market.label}`} tabIndex={0} className={`mt-2 max-h-96 ${SCROLLER}`}>
        <table className="w-full min-w-[48rem] border-collapse text-sm">
          <caption className="sr-only">Firings on {market.label}, oldest first</caption>
          <thead className="border-b border-slate-200">
            <tr>
              <th scope="col" className={TH}>
                Time
              </th>
              <th scope="col" className={TH}>
                {rowColumn(market.rows)}
              </th>
              <th scope="col" className={`${TH} text-right`}>
                Price
              </th>
              <th scope="col" className={TH}>
                Direction
              </th>
              <th scope="col" className={TH}>
                Notified
              </th>
              {FORWARD_HORIZONS.map((h) => (
                <th key={h} scope="col" className={`${TH} text-right`}>
                  After {h}
                </th>
              ))}
              <th scope="col" className={TH}>
                Detail
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {market.firings.map((f, i) => (
              <tr key={`${f.time}:${f.key}:${i}`}>
                <th scope="row" className={`${TH} font-normal whitespace-nowrap text-slate-900`}>
                  {candleTime(f.time)}
                </th>
                <td className="px-2 py-1.5 text-slate-900">{labels.get(f.key)?.label ?? f.key}</td>
                <td className={TD}>{formatPrice(f.price, decimals)}</td>
                <td className="px-2 py-1.5 text-slate-900">{f.direction ? DIRECTIONS[f.direction] : '—'}</td>
                <td className="px-2 py-1.5 text-slate-900">{notifiedText(f)}</td>
                {f.forward.map((change, h) => (
                  <td key={h} className={TD}>
                    {formatSignedPercent(change)}
                  </td>
                ))}
                <td className="px-2 py-1.5 text-slate-700">{f.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
