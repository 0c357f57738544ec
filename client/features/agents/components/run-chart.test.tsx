import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ZRunHistory, type TAgentRun, type TRunHistoryEntry } from '../../../../contracts/agents.ts';
import type { TCandle, TChartData, TMarketResult, TRunResult } from '../../../../contracts/market.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { RunChart, RunChartPanel, latestChartRun, toChartSeries } from './run-chart.tsx';

const T0 = Date.UTC(2025, 2, 4, 10, 0);
const MIN15 = 15 * 60_000;
const candle = (i: number, close = 100 + i, extraMs = 0): TCandle => ({ time: T0 + i * MIN15 + extraMs, open: close - 1, high: close + 2, low: close - 2, close, volume: 1000 });

describe('toChartSeries', () => {
  it('gives seconds, ascending and unique, keeping the later copy of a duplicated candle', () => {
    const chart: TChartData = {
      // Out of order, one duplicate second (the later copy in the list wins) and one bad candle.
      candles: [candle(2), candle(0), candle(1, 50), candle(1, 51, 400), { ...candle(3), close: Number.NaN }],
      overlays: { 'SMA 20': [12, null, 10, 11, 13] },
      markers: [],
    };
    const series = toChartSeries(chart);
    const s0 = T0 / 1000;
    expect(series.candles.map((c) => c.time)).toEqual([s0, s0 + 900, s0 + 1800]);
    expect(series.candles[1]).toEqual({ time: s0 + 900, open: 50, high: 53, low: 49, close: 51 });
    // Overlays follow their candles through the sort; null is a whitespace point (a gap).
    expect(series.overlays).toEqual([{ name: 'SMA 20', color: '#2563eb', data: [{ time: s0 }, { time: s0 + 900, value: 11 }, { time: s0 + 1800, value: 12 }] }]);
  });

  it('colours the Bollinger bands as one family and other overlays apart', () => {
    const series = toChartSeries({
      candles: [candle(0)],
      overlays: { 'SMA 20': [1], 'EMA 20': [1], 'Bollinger upper': [2], 'Bollinger middle': [1], 'Bollinger lower': [0] },
      markers: [],
    });
    const colors = Object.fromEntries(series.overlays.map((o) => [o.name, o.color]));
    expect(colors['Bollinger upper']).toBe(colors['Bollinger lower']);
    expect(colors['Bollinger middle']).toBe('#f59e0b');
    expect(new Set([colors['SMA 20'], colors['EMA 20'], colors['Bollinger upper']]).size).toBe(3);
  });

  it('places markers on drawn candles only, sorted, once per rule and candle, one colour per rule', () => {
    const series = toChartSeries({
      candles: [candle(0), candle(1), candle(2)],
      overlays: {},
      markers: [
        { time: T0 + 2 * MIN15, rule: 'Volume surge' },
        { time: T0 + MIN15, rule: 'Price change' },
        { time: T0 + 2 * MIN15, rule: 'Price change' },
        { time: T0 + 2 * MIN15, rule: 'Price change' },
        { time: T0 + 99 * MIN15, rule: 'Price change' },
      ],
    });
    const s0 = T0 / 1000;
    expect(series.markers.map((m) => [m.time, m.color, m.position, m.shape])).toEqual([
      [s0 + 900, '#7c3aed', 'aboveBar', 'circle'],
      [s0 + 1800, '#0891b2', 'aboveBar', 'circle'],
      [s0 + 1800, '#7c3aed', 'aboveBar', 'circle'],
    ]);
    expect(series.firedRules).toEqual([
      { rule: 'Price change', color: '#7c3aed', count: 2 },
      { rule: 'Volume surge', color: '#0891b2', count: 1 },
    ]);
  });
});

describe('toChartSeries volume and alerts', () => {
  it('gives one volume bar per drawn candle, coloured by the candle, and none when the market reports no volume', () => {
    const up = { ...candle(0), volume: 1500 };
    const down = { ...candle(1), open: 110, close: 100, volume: 2500 };
    const series = toChartSeries({ candles: [down, up], overlays: {}, markers: [] });
    const s0 = T0 / 1000;
    expect(series.volumes).toEqual([
      { time: s0, value: 1500, color: 'rgba(4, 120, 87, 0.45)' },
      { time: s0 + 900, value: 2500, color: 'rgba(185, 28, 28, 0.45)' },
    ]);
    expect(toChartSeries({ candles: [{ ...up, volume: 0 }], overlays: {}, markers: [] }).volumes).toEqual([]);
  });

  it("puts the run's alerts for the market on its last candle, below the bar, after the signals there", () => {
    const alerts = [
      { market: 'X', threshold: 'priceChange', value: 0.59, limit: 0.1, message: 'Price change above 0.1%' },
      { market: 'X', threshold: 'volumeSpike', value: 250, limit: 200, message: 'Volume above 200% of average' },
    ];
    const series = toChartSeries({ candles: [candle(0), candle(1)], overlays: {}, markers: [{ time: T0 + MIN15, rule: 'Price change' }] }, alerts);
    const last = T0 / 1000 + 900;
    expect(series.markers.map((m) => [m.time, m.position, m.shape, m.color])).toEqual([
      [last, 'aboveBar', 'circle', '#7c3aed'],
      [last, 'belowBar', 'square', '#c2410c'],
      [last, 'belowBar', 'square', '#c2410c'],
    ]);
    expect(series.firedAlerts.map((a) => a.message)).toEqual(['Price change above 0.1%', 'Volume above 200% of average']);
  });
});

describe('toChartSeries on history', () => {
  it('draws the markers named as alerts as squares below the bar, one colour and one count per alert', () => {
    const series = toChartSeries(
      {
        candles: [candle(0), candle(1), candle(2)],
        overlays: {},
        markers: [
          { time: T0, rule: 'RSI extreme' },
          { time: T0 + MIN15, rule: 'Price change > 5%' },
          { time: T0 + 2 * MIN15, rule: 'Price change > 5%' },
          { time: T0 + 2 * MIN15, rule: 'Volume spike > 200%' },
        ],
      },
      [],
      new Set(['Price change > 5%', 'Volume spike > 200%']),
    );
    const s0 = T0 / 1000;
    expect(series.markers.map((m) => [m.time, m.position, m.shape, m.color])).toEqual([
      [s0, 'aboveBar', 'circle', '#7c3aed'],
      [s0 + 900, 'belowBar', 'square', '#c2410c'],
      [s0 + 1800, 'belowBar', 'square', '#c2410c'],
      [s0 + 1800, 'belowBar', 'square', '#a16207'],
    ]);
    expect(series.firedRules).toEqual([{ rule: 'RSI extreme', color: '#7c3aed', count: 1 }]);
    expect(series.firedAlerts).toEqual([
      { message: 'Price change > 5%', color: '#c2410c', count: 2 },
      { message: 'Volume spike > 200%', color: '#a16207', count: 1 },
    ]);
  });
});

const market = (symbol: string, source: 'binance' | 'kraken', closes: number[], markers: TChartData['markers'] = []): TMarketResult => ({
  ok: true,
  symbol,
  source,
  simulated: true,
  timeframe: '15m',
  price: closes.at(-1)!,
  candleTime: new Date(T0).toISOString(),
  indicators: {},
  rules: [],
  chart: { candles: closes.map((c, i) => candle(i, c)), overlays: { 'SMA 20': closes.map(() => null) }, markers },
});

const RESULT: TRunResult = {
  templateId: 'crypto-market-monitor',
  simulated: true,
  performance: null,
  alerts: [],
  markets: [
    { ok: false, symbol: 'BTC/USDT', source: 'coinbase', simulated: false, error: 'down' },
    market('BTC/USDT', 'binance', [100, 101, 102], [{ time: T0 + MIN15, rule: 'Price change' }]),
    market('BTC/USD', 'kraken', [200, 210]),
  ],
};

/** A run as the runs query holds it: parsed with the contract's schema. */
const run = (id: number, status: TAgentRun['status'], result: unknown): TRunHistoryEntry => ZRunHistory.parse([{
  id,
  status,
  scheduledFor: null,
  startTime: '2025-03-04T10:05:00.000Z',
  endTime: status === 'success' || status === 'failure' ? '2025-03-04T10:05:02.000Z' : null,
  result,
  error: null,
  createdAt: '2025-03-04T10:05:00.000Z',
}])[0]!;

describe('latestChartRun', () => {
  it('takes the newest successful run that has a market to draw', () => {
    const allFailed: TRunResult = { ...RESULT, markets: [RESULT.markets[0]!] };
    const runs = [run(5, 'queued', null), run(4, 'success', allFailed), run(3, 'success', { signals: 2 }), run(2, 'success', RESULT), run(1, 'success', RESULT)];
    expect(latestChartRun(runs)?.run.id).toBe(2);
    expect(latestChartRun([run(1, 'failure', null)])).toBeNull();
    expect(latestChartRun(undefined)).toBeNull();
  });
});

describe('RunChart', () => {
  it('shows one market at a time, switched with a labelled select, with a legend and a text summary', async () => {
    renderWithProviders(<RunChart run={run(2, 'success', RESULT)} result={RESULT} />);
    expect(screen.getByText(/^From run #2, .* \(simulated data\)$/)).toBeInTheDocument();
    const select = screen.getByRole('combobox', { name: 'Market' });
    // The failed market has nothing to draw, so it is not offered.
    expect(Array.from((select as HTMLSelectElement).options, (o) => o.textContent)).toEqual(['BTC/USDT · binance · 15m', 'BTC/USD · kraken · 15m']);
    expect(screen.getByText(/^3 15m candles of BTC\/USDT on binance/)).toHaveTextContent('last close 102, volume 1,000. Signal markers: Price change 1×. No alert fired in this run.');
    const legend = screen.getByRole('list', { name: 'Legend' });
    expect(legend).toHaveTextContent('Price (up / down)SMA 20Volume (pane below)Price change signal');

    await userEvent.selectOptions(select, 'kraken:BTC/USD');
    expect(screen.getByText(/^2 15m candles of BTC\/USD on kraken/)).toHaveTextContent('last close 210, volume 1,000. No signal fired on these candles. No alert fired in this run.');
    expect(legend).not.toHaveTextContent('Price change signal');
  });

  it("shows the run's alerts for the selected market in the legend and the summary", async () => {
    const withAlert: TRunResult = { ...RESULT, alerts: [{ market: 'BTC/USD on kraken', threshold: 'priceChange', value: 4.9, limit: 3, message: 'Price change above 3%' }] };
    renderWithProviders(<RunChart run={run(2, 'success', withAlert)} result={withAlert} />);
    const legend = screen.getByRole('list', { name: 'Legend' });
    expect(legend).not.toHaveTextContent('Alert:');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Market' }), 'kraken:BTC/USD');
    expect(legend).toHaveTextContent('Alert: Price change above 3%');
    expect(screen.getByText(/^2 15m candles of BTC\/USD on kraken/)).toHaveTextContent('Alerts on the last candle: Price change above 3%.');
  });

  it('opens the same chart at full width from Larger view, on the market shown, and closes it with Escape', async () => {
    renderWithProviders(<RunChart run={run(2, 'success', RESULT)} result={RESULT} />);
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Market' }), 'kraken:BTC/USD');
    await userEvent.click(screen.getByRole('button', { name: 'Larger view' }));
    const large = await screen.findByRole('dialog', { name: 'Chart of BTC/USD on kraken' });
    expect(large).toHaveAccessibleDescription(/^From run #2, .*, across the window\.$/);
    // Issue 29 item 11: said once, in the description (the chart repeated it under it).
    expect(within(large).getAllByText(/From run #2/)).toHaveLength(1);
    expect(within(large).getByRole('combobox', { name: 'Market' })).toHaveValue('kraken:BTC/USD');
    expect(within(large).queryByRole('button', { name: 'Larger view' })).not.toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Larger view' })).toHaveFocus();
  });

  it('has no select for a single market, and says so when the browser cannot draw on a canvas (happy-dom)', () => {
    const single = { ...RESULT, markets: [RESULT.markets[1]!] };
    renderWithProviders(<RunChart run={run(2, 'success', single)} result={single} />);
    expect(screen.queryByRole('combobox')).not.toBeInTheDocument();
    expect(screen.getByText('This browser cannot draw the chart; the summary below gives its figures.')).toBeInTheDocument();
  });
});

describe('RunChartPanel', () => {
  it("says 'No chart yet' without a successful run, and draws the latest one otherwise", () => {
    const { rerender } = renderWithProviders(<RunChartPanel runs={[run(1, 'failure', null)]} loading={false} />);
    expect(screen.getByText('No chart yet: run the agent to see its data')).toBeInTheDocument();
    rerender(<RunChartPanel runs={[run(3, 'success', RESULT)]} loading={false} />);
    expect(screen.getByText(/^From run #3/)).toBeInTheDocument();
    rerender(<RunChartPanel runs={undefined} loading />);
    expect(screen.getByRole('status')).toHaveTextContent('Loading chart data');
  });
});
