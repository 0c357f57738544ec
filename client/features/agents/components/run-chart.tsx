import type { CandlestickData, HistogramData, IChartApi, LineData, SeriesMarker, Time, UTCTimestamp, WhitespaceData } from 'lightweight-charts';
import { Maximize2 } from 'lucide-react';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import type { TAgentRun } from '../../../../contracts/agents.ts';
import type { TCandleTimeframe, TChartData, TRunAlert, TRunResult } from '../../../../contracts/market.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Dialog } from '../../../components/ui/dialog.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { DATE, DATE_TIME, DAY_TIME, RUN_TIME, formatInZone, formatTime } from '../../../../contracts/time-format.ts';
import { useTimes } from '../../../lib/times.ts';
import { CONTROL } from './form-controls.tsx';
import { formatNumber } from '../../../../contracts/number-format.ts';
import type { TOkMarket } from './run-result.tsx';

type TSeconds = UTCTimestamp;

/** What the chart draws for one market, in lightweight-charts' shapes. */
export type TChartSeries = {
  candles: Array<CandlestickData<TSeconds>>;
  /** One line per overlay; a missing value (indicator warm-up) is a whitespace point, so the
   * line has a gap there instead of dropping to zero or joining across it. */
  overlays: Array<{ name: string; color: string; data: Array<LineData<TSeconds> | WhitespaceData<TSeconds>> }>;
  /** Each candle's volume, for the pane under the price; empty when the market reports none. */
  volumes: Array<HistogramData<TSeconds>>;
  /** Signal markers (the template's rules, on every candle where one fired) above the bars, then
   * alert markers (the user's thresholds that fired in this run, on its last candle) below. */
  markers: Array<SeriesMarker<TSeconds>>;
  /** The rules that fired on the candles shown, with their marker colour and count. */
  firedRules: Array<{ rule: string; color: string; count: number }>;
  /** The alerts marked: a run's for the market, in the words the user gave them, each once on
   * its last candle; on history, each alert row's label with its firings' count. */
  firedAlerts: Array<{ message: string; color: string; count: number }>;
};

export const CANDLE_UP = '#047857';
export const CANDLE_DOWN = '#b91c1c';
// The same up/down colours, paler, so the volume bars do not compete with the candles.
const VOLUME_UP = 'rgba(4, 120, 87, 0.45)';
const VOLUME_DOWN = 'rgba(185, 28, 28, 0.45)';
/** Alerts are the user's own limits: one strong colour, a square below the bar. */
export const ALERT_COLOR = '#c2410c';
// On history several alerts may be marked at once: the run's alert colour first, then other warm ones.
const ALERT_COLORS = [ALERT_COLOR, '#a16207', '#be123c', '#9a3412'];
// Upper and lower Bollinger bands share one amber, the middle a lighter one: one family.
const BOLLINGER: Record<string, string> = { 'Bollinger upper': '#b45309', 'Bollinger middle': '#f59e0b', 'Bollinger lower': '#b45309' };
const OVERLAY_COLORS = ['#2563eb', '#c026d3', '#0d9488', '#4f46e5'];
// Distinct from the candles' green and red and from the overlays, so a marker reads as a rule.
const MARKER_COLORS = ['#7c3aed', '#0891b2', '#db2777', '#475569', '#65a30d'];

const seconds = (ms: number) => Math.floor(ms / 1000) as TSeconds;
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * Maps a run's chart data to series lightweight-charts accepts: times in UTC seconds, strictly
 * ascending and unique (it throws otherwise), overlays and volumes aligned with the candles they
 * belong to, markers only on candles that are drawn. Candles with a duplicated second keep the
 * later one in the list (the fresher copy of a still-forming candle). `alerts` are the run's
 * alerts for this market: they fired on its latest candle. `alertRules` name the chart's markers
 * that are alerts rather than signals (a test on history marks both by their row's label): they
 * are drawn as alerts, squares below the bar.
 */
export function toChartSeries(chart: TChartData, alerts: readonly TRunAlert[] = [], alertRules: ReadonlySet<string> = new Set()): TChartSeries {
  const rows = chart.candles
    .map((candle, index) => ({ candle, index, time: seconds(candle.time) }))
    .filter(({ candle, time }) => isNumber(time) && isNumber(candle.open) && isNumber(candle.high) && isNumber(candle.low) && isNumber(candle.close))
    .sort((a, b) => a.time - b.time || a.index - b.index);
  const unique: typeof rows = [];
  for (const row of rows) {
    if (unique.length > 0 && unique[unique.length - 1]!.time === row.time) unique[unique.length - 1] = row;
    else unique.push(row);
  }

  const candles = unique.map(({ candle, time }) => ({ time, open: candle.open, high: candle.high, low: candle.low, close: candle.close }));
  const hasVolume = unique.some(({ candle }) => isNumber(candle.volume) && candle.volume > 0);
  const volumes = hasVolume
    ? unique.map(({ candle, time }) => ({ time, value: isNumber(candle.volume) ? candle.volume : 0, color: candle.close >= candle.open ? VOLUME_UP : VOLUME_DOWN }))
    : [];
  let nextColor = 0;
  const overlays = Object.entries(chart.overlays).map(([name, values]) => ({
    name,
    color: BOLLINGER[name] ?? OVERLAY_COLORS[nextColor++ % OVERLAY_COLORS.length]!,
    data: unique.map(({ index, time }) => {
      const value = values[index];
      return isNumber(value) ? { time, value } : { time };
    }),
  }));

  const drawn = new Set(candles.map((c) => c.time));
  const colors = new Map<string, string>();
  const alertColors = new Map<string, string>();
  const counts = new Map<string, number>();
  const seen = new Set<string>();
  const markers: Array<SeriesMarker<TSeconds>> = [];
  for (const { time: ms, rule } of [...chart.markers].sort((a, b) => a.time - b.time)) {
    const time = seconds(ms);
    if (!drawn.has(time) || seen.has(`${time}:${rule}`)) continue;
    seen.add(`${time}:${rule}`);
    counts.set(rule, (counts.get(rule) ?? 0) + 1);
    if (alertRules.has(rule)) {
      if (!alertColors.has(rule)) alertColors.set(rule, ALERT_COLORS[alertColors.size % ALERT_COLORS.length]!);
      markers.push({ time, position: 'belowBar', shape: 'square', color: alertColors.get(rule)!, id: `${time}:${rule}` });
      continue;
    }
    if (!colors.has(rule)) colors.set(rule, MARKER_COLORS[colors.size % MARKER_COLORS.length]!);
    markers.push({ time, position: 'aboveBar', shape: 'circle', color: colors.get(rule)!, id: `${time}:${rule}` });
  }
  const firedRules = [...colors].map(([rule, color]) => ({ rule, color, count: counts.get(rule)! }));

  const last = candles.at(-1);
  const runAlerts = last ? [...new Set(alerts.map((a) => a.message))].map((message) => ({ message, color: ALERT_COLOR, count: 1 })) : [];
  const firedAlerts = [...[...alertColors].map(([message, color]) => ({ message, color, count: counts.get(message)! })), ...runAlerts];
  // One square per alert at the last candle, after the signals there (markers must be in time order).
  for (const [i, alert] of runAlerts.entries()) markers.push({ time: last!.time, position: 'belowBar', shape: 'square', color: alert.color, id: `alert:${i}` });
  return { candles, volumes, overlays, markers, firedRules, firedAlerts };
}

/** The newest successful run with a market to draw (runs come newest first). */
export function latestChartRun(runs: readonly TAgentRun[] | undefined): { run: TAgentRun; result: TRunResult } | null {
  for (const run of runs ?? []) {
    if (run.status === 'success' && run.result && chartMarkets(run.result).length > 0) return { run, result: run.result };
  }
  return null;
}

const chartMarkets = (result: TRunResult) => result.markets.filter((m): m is TOkMarket => m.ok && m.chart.candles.length > 0);
const marketKey = (m: TOkMarket) => `${m.source}:${m.symbol}`;
const marketName = (m: TOkMarket) => (m.source === 'simulated' || m.source === 'yahoo' ? m.symbol : `${m.symbol} on ${m.source}`);
const INTRADAY: ReadonlySet<TCandleTimeframe> = new Set(['1m', '5m', '15m', '30m', '1h', '4h']);

/**
 * The zone a chart's candles are read in: intraday ones in the reader's, like every time; a daily
 * or weekly candle is named by its day, which is its UTC day (crypto days open at 00:00 UTC;
 * Yahoo's daily candles of American and European markets open within their UTC day), so read in
 * a zone west of UTC it would name the day before (docs/decisions/0066).
 */
export const candleZone = (intraday: boolean, readerZone: string): string => (intraday ? readerZone : 'UTC');

/** The Chart tab: the latest successful run's prices, or how to get one. */
export function RunChartPanel({ runs, loading }: { runs: TAgentRun[] | undefined; loading: boolean }) {
  const latest = useMemo(() => latestChartRun(runs), [runs]);
  if (loading) return <Spinner label="Loading chart data" />;
  if (!latest) return <p className="py-6 text-center text-sm text-slate-600">No chart yet: run the agent to see its data</p>;
  return <RunChart run={latest.run} result={latest.result} />;
}

type RunChartProps = {
  run: TAgentRun;
  result: TRunResult;
  /** The full-width view: a taller chart, and no button to open itself again. */
  large?: boolean;
  /** The market shown first (`source:symbol`); the first one otherwise. */
  initialMarket?: string;
};

/** One market of a run at a time: a select when the run watched several, a legend, the chart
 * (price with its overlays, signal and alert markers; volume in a pane below) and the same facts
 * in text, with a button to the same chart at the window's full width. */
export function RunChart({ run, result, large = false, initialMarket }: RunChartProps) {
  const selectId = useId();
  // Every market's series at once (a few hundred points): the chart redraws only when the
  // run's result changes, not on each render while the history polls.
  const drawable = useMemo(
    () => chartMarkets(result).map((market) => ({ market, series: toChartSeries(market.chart, result.alerts.filter((a) => a.market === marketName(market))) })),
    [result],
  );
  const [selected, setSelected] = useState<string | null>(initialMarket ?? null);
  const [enlarged, setEnlarged] = useState(false);
  const times = useTimes();
  const current = drawable.find(({ market }) => marketKey(market) === selected) ?? drawable[0];
  if (!current) return null;
  const { market, series } = current;
  const markets = drawable.map((d) => d.market);

  const from = `From run #${run.id}, ${times.format(run.endTime ?? run.startTime, RUN_TIME, 'unknown time')}${result.simulated ? ' (simulated data)' : ''}`;

  const marketChoice = markets.length > 1 && (
    <div className="w-full sm:w-72">
      <label htmlFor={selectId} className="block text-sm font-medium text-slate-900">
        Market
      </label>
      <select id={selectId} value={marketKey(market)} onChange={(event) => setSelected(event.target.value)} className={`${CONTROL} mt-1`}>
        {markets.map((m) => (
          <option key={marketKey(m)} value={marketKey(m)}>
            {`${m.symbol} · ${m.source} · ${m.timeframe}`}
          </option>
        ))}
      </select>
    </div>
  );

  // The larger view says where the chart is from once, in its description, and its chart takes
  // the height the window leaves: the volume pane is in view without scrolling.
  return (
    <div className={large ? 'flex min-h-0 flex-1 flex-col gap-3' : 'space-y-3'}>
      {large ? (
        marketChoice
      ) : (
        <div className="flex flex-wrap items-end justify-between gap-3">
          <p className="text-sm text-slate-600">{from}</p>
          <div className="flex w-full flex-wrap items-end gap-3 sm:w-auto">
            {marketChoice}
            <Button variant="outline" onClick={() => setEnlarged(true)}>
              <Maximize2 aria-hidden="true" /> Larger view
            </Button>
          </div>
        </div>
      )}
      <ChartFigure series={series} name={marketName(market)} timeframe={market.timeframe} large={large} alerts="last-candle" />
      {!large && (
        <Dialog open={enlarged} onOpenChange={setEnlarged} size="full" title={`Chart of ${marketName(market)}`} description={`${from}, across the window.`}>
          <div className="mt-4 flex min-h-0 flex-1 flex-col">
            <RunChart run={run} result={result} large initialMarket={marketKey(market)} />
          </div>
        </Dialog>
      )}
    </div>
  );
}

type ChartFigureProps = {
  series: TChartSeries;
  /** The market as people read it ('AAPL', 'BTC/USDT on binance'). */
  name: string;
  timeframe: TCandleTimeframe;
  large?: boolean;
  /** Where the alert markers sit: a run's on its last candle, a test's at each firing. */
  alerts: 'last-candle' | 'candles';
};

/**
 * One market's chart as drawn from its series: the legend, the canvas and the same facts in
 * text. A run's chart and a test on history's share it; each caller says where its alerts sit.
 */
export function ChartFigure({ series, name, timeframe, large = false, alerts }: ChartFigureProps) {
  const summaryId = useId();
  const intraday = INTRADAY.has(timeframe);
  const zone = candleZone(intraday, useTimes().zone);
  const first = series.candles[0];
  const last = series.candles.at(-1);
  const when = (time: number | undefined) => (time === undefined ? 'unknown' : formatTime(time * 1000, intraday ? DAY_TIME : DATE, zone));
  const total = (items: ReadonlyArray<{ count: number }>) => items.reduce((sum, item) => sum + item.count, 0);
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  const label =
    `${series.volumes.length > 0 ? 'Price and volume' : 'Price'} chart of ${name}, ${count(series.candles.length, 'candle')}, ` +
    `${count(total(series.firedRules), 'signal marker')}, ${count(total(series.firedAlerts), 'alert marker')}`;
  const alertText =
    alerts === 'last-candle'
      ? series.firedAlerts.length > 0
        ? `Alerts on the last candle: ${series.firedAlerts.map((a) => a.message).join('; ')}.`
        : 'No alert fired in this run.'
      : series.firedAlerts.length > 0
        ? `Alert markers: ${series.firedAlerts.map((a) => `${a.message} ${a.count}×`).join(', ')}.`
        : 'No alert fired on these candles.';
  return (
    <>
      <Legend series={series} />
      {/* Keyed by market: a new market is a new chart, and the old one is disposed. */}
      <PriceChart key={`${name}:${timeframe}`} series={series} label={label} describedBy={summaryId} intraday={intraday} large={large} zone={zone} />
      <p id={summaryId} className="text-sm text-slate-600">
        {series.candles.length} {timeframe} candles of {name} from {when(first?.time)} to {when(last?.time)}; last close {formatNumber(last?.close)}
        {series.volumes.length > 0 && `, volume ${formatNumber(series.volumes.at(-1)?.value)}`}.{' '}
        {series.firedRules.length > 0
          ? `Signal markers: ${series.firedRules.map((r) => `${r.rule} ${r.count}×`).join(', ')}.`
          : 'No signal fired on these candles.'}{' '}
        {alertText}
      </p>
      <p className="text-xs text-slate-500">
        Charting by{' '}
        <a href="https://www.tradingview.com/" target="_blank" rel="noreferrer" className="underline hover:text-slate-700">
          TradingView Lightweight Charts
        </a>
      </p>
    </>
  );
}

function Legend({ series }: { series: TChartSeries }) {
  const item = 'inline-flex items-center gap-1.5';
  return (
    <ul aria-label="Legend" className="flex flex-wrap gap-x-4 gap-y-1 text-xs text-slate-700">
      <li className={item}>
        <span aria-hidden="true" className="inline-flex gap-0.5">
          <span className="h-3 w-1.5 rounded-sm" style={{ backgroundColor: CANDLE_UP }} />
          <span className="h-3 w-1.5 rounded-sm" style={{ backgroundColor: CANDLE_DOWN }} />
        </span>
        Price (up / down)
      </li>
      {series.overlays.map((o) => (
        <li key={o.name} className={item}>
          <span aria-hidden="true" className="h-0.5 w-4" style={{ backgroundColor: o.color }} />
          {o.name}
        </li>
      ))}
      {series.volumes.length > 0 && (
        <li className={item}>
          <span aria-hidden="true" className="inline-flex items-end gap-0.5">
            <span className="h-2 w-1.5" style={{ backgroundColor: VOLUME_UP }} />
            <span className="h-3 w-1.5" style={{ backgroundColor: VOLUME_DOWN }} />
          </span>
          Volume (pane below)
        </li>
      )}
      {series.firedRules.map((r) => (
        <li key={r.rule} className={item}>
          <span aria-hidden="true" className="size-2.5 rounded-full" style={{ backgroundColor: r.color }} />
          {r.rule} signal
        </li>
      ))}
      {series.firedAlerts.map((a) => (
        <li key={a.message} className={item}>
          <span aria-hidden="true" className="size-2.5" style={{ backgroundColor: a.color }} />
          Alert: {a.message}
        </li>
      ))}
    </ul>
  );
}

let canvasSupport: boolean | undefined;
/** Whether this browser draws on a 2D canvas (lightweight-charts needs it). */
function canDrawCanvas(): boolean {
  if (canvasSupport === undefined) {
    try {
      canvasSupport = document.createElement('canvas').getContext('2d') !== null;
    } catch {
      canvasSupport = false;
    }
  }
  return canvasSupport;
}

/**
 * The canvas chart. lightweight-charts (about 57 kB gzipped) is imported here, on first draw,
 * so it is its own chunk: neither the landing page nor the agents page loads it until a chart
 * is shown.
 */
function PriceChart({ series, label, describedBy, intraday, large, zone }: { series: TChartSeries; label: string; describedBy: string; intraday: boolean; large: boolean; zone: string }) {
  const container = useRef<HTMLDivElement>(null);
  const [supported] = useState(canDrawCanvas);
  const [state, setState] = useState<'loading' | 'ready' | 'failed'>('loading');

  useEffect(() => {
    if (!supported) return;
    let chart: IChartApi | null = null;
    let disposed = false;
    import('lightweight-charts')
      .then((lib) => {
        if (disposed || !container.current) return;
        // The axis in the zone of every other time (the library would show UTC); the crosshair's
        // time names it, the ticks do not repeat it.
        const timeText = (time: Time, pattern: string) => (typeof time === 'number' ? formatInZone(time * 1000, pattern, zone) : String(time));
        const crosshairText = (time: Time, pattern: string) => (typeof time === 'number' ? formatTime(time * 1000, pattern, zone) : String(time));
        chart = lib.createChart(container.current, {
          autoSize: true,
          // Attribution is a link under the chart: a link inside role="img" would be hidden from
          // assistive technology (an image's children are presentational).
          layout: { attributionLogo: false, background: { type: lib.ColorType.Solid, color: '#ffffff' }, textColor: '#334155' },
          grid: { vertLines: { color: '#f1f5f9' }, horzLines: { color: '#f1f5f9' } },
          rightPriceScale: { borderColor: '#cbd5e1' },
          // The dialog scrolls with the wheel; zoom and pan stay on drag, pinch and the axes.
          handleScroll: { mouseWheel: false },
          handleScale: { mouseWheel: false },
          localization: { timeFormatter: (time: Time) => crosshairText(time, intraday ? DATE_TIME : DATE) },
          timeScale: {
            borderColor: '#cbd5e1',
            timeVisible: intraday,
            tickMarkFormatter: (time: Time, type: number) =>
              timeText(time, type === lib.TickMarkType.Year ? 'yyyy' : type === lib.TickMarkType.Month ? 'MMM' : type === lib.TickMarkType.DayOfMonth ? 'MMM d' : 'HH:mm'),
          },
        });
        const candles = chart.addSeries(lib.CandlestickSeries, {
          upColor: CANDLE_UP,
          downColor: CANDLE_DOWN,
          borderUpColor: CANDLE_UP,
          borderDownColor: CANDLE_DOWN,
          wickUpColor: CANDLE_UP,
          wickDownColor: CANDLE_DOWN,
        });
        candles.setData(series.candles);
        for (const overlay of series.overlays) {
          const line = chart.addSeries(lib.LineSeries, {
            color: overlay.color,
            lineWidth: 2,
            lineStyle: overlay.name === 'Bollinger middle' ? lib.LineStyle.Dashed : lib.LineStyle.Solid,
            priceLineVisible: false,
            lastValueVisible: false,
            crosshairMarkerVisible: false,
            title: overlay.name,
          });
          line.setData(overlay.data);
        }
        lib.createSeriesMarkers(candles, series.markers);
        if (series.volumes.length > 0) {
          // Its own pane under the price (pane 1), about a quarter of the height.
          const volume = chart.addSeries(lib.HistogramSeries, { priceFormat: { type: 'volume' }, priceLineVisible: false, lastValueVisible: false, title: 'Volume' }, 1);
          volume.setData(series.volumes);
          chart.panes()[1]?.setStretchFactor(0.3);
        }
        chart.timeScale().fitContent();
        setState('ready');
      })
      .catch(() => {
        if (!disposed) setState('failed');
      });
    return () => {
      disposed = true;
      chart?.remove();
    };
  }, [series, intraday, supported, zone]);

  if (!supported) return <p className="text-sm text-slate-600">This browser cannot draw the chart; the summary below gives its figures.</p>;
  if (state === 'failed') return <p className="text-sm text-red-700">The chart could not be loaded. Check your connection and open the tab again.</p>;
  return (
    <div className={large ? 'relative min-h-64 flex-1' : 'relative'}>
      <div ref={container} role="img" aria-label={label} aria-describedby={describedBy} className={large ? 'absolute inset-0' : 'h-80 w-full sm:h-96'} />
      {state === 'loading' && (
        <div className="absolute inset-0 flex items-center justify-center">
          <Spinner label="Loading chart" />
        </div>
      )}
    </div>
  );
}
