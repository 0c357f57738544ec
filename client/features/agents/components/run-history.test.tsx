import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ZRunHistory, type TAgentRun, type TRunHistoryAnswer, type TRunHistoryEntry } from '../../../../contracts/agents.ts';
import { MARKET_FAILURES, type TRunResult } from '../../../../contracts/market.ts';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { RunHistory } from './run-history.tsx';

const CANDLE = { time: Date.UTC(2025, 2, 4, 10, 0), open: 100, high: 102, low: 99, close: 101.5, volume: 1200 };

const RESULT: TRunResult = {
  templateId: 'crypto-market-monitor',
  simulated: true,
  performance: '+1.2%',
  alerts: [{ market: 'BTC/USDT on binance', threshold: 'priceChange', value: 1.49, limit: 0, message: 'Price moved (BTC/USDT on binance: 1.49% > 0.00%)' }],
  markets: [
    {
      ok: true,
      symbol: 'BTC/USDT',
      source: 'binance',
      simulated: true,
      timeframe: '15m',
      price: 65432.1,
      candleTime: new Date(CANDLE.time).toISOString(),
      indicators: { 'RSI 14': 61.234, 'SMA 20': null },
      rules: [
        { name: 'Price change', status: 'evaluated', fired: true, values: { percentChange: 1.49, threshold: 1 }, detail: 'change +1.49% > 1% in size' },
        { name: 'Volume surge', status: 'evaluated', fired: false, values: { volume: 1200, averageVolume: 1000, factor: 1.5 }, detail: 'volume 1200 <= 1.5 x average 1000' },
        { name: 'Volatility spike', status: 'insufficient data', fired: false, values: {}, detail: 'not enough history (20 candles needed)' },
        { name: 'Whale transaction', status: 'not configured', fired: false, values: {}, detail: 'not configured: set WHALE_ALERT_API_KEY to read on-chain data' },
      ],
      chart: { candles: [CANDLE], overlays: { 'SMA 20': [null] }, markers: [{ time: CANDLE.time, rule: 'Price change' }] },
    },
    { ok: false, symbol: 'BTC/USD', source: 'kraken', simulated: false, failure: 'unavailable', error: MARKET_FAILURES.unavailable },
  ],
};

/** A run as the runs query holds it: parsed with the contract's schema, as the client reads it. */
const parsed = (answer: TRunHistoryAnswer[number]): TRunHistoryEntry => ZRunHistory.parse([answer])[0]!;

const run = (over: Partial<TRunHistoryAnswer[number]> & Pick<TAgentRun, 'id' | 'status'>): TRunHistoryEntry =>
  parsed({
    scheduledFor: null,
    startTime: null,
    endTime: null,
    result: null,
    error: null,
    createdAt: '2025-03-04T10:05:00.000Z',
    ...over,
  });

const SUCCESS = run({ id: 9, status: 'success', startTime: '2025-03-04T10:05:00.000Z', endTime: '2025-03-04T10:05:02.345Z', result: RESULT });

/** The run items of the history list (not the lists nested in a result). */
const runItems = () => Array.from(screen.getByRole('heading', { name: /^Last \d+ executions$/ }).nextElementSibling!.children) as HTMLElement[];

describe('RunHistory', () => {
  it('reads a success result: simulated badge, performance, alerts, indicators, rules in words, failed markets, raw JSON on request', async () => {
    setSettingsTimeZone('Asia/Tokyo');
    renderWithProviders(<RunHistory runs={[SUCCESS]} loading={false} />);
    expect(screen.getByRole('heading', { name: 'Last 1 executions' })).toBeInTheDocument();
    const [item] = runItems();
    const r = within(item!);
    expect(item).toHaveTextContent('Success');
    expect(item).toHaveTextContent('Run #9');
    expect(item).toHaveTextContent('Run now');
    // Every time in the one zone, named: 10:05 UTC is 19:05 in Tokyo.
    expect(item).toHaveTextContent('Started Mar 4, 19:05:00 GMT+9 · Ended Mar 4, 19:05:02 GMT+9');
    expect(item).toHaveTextContent('Duration: 2.3s');
    expect(r.getByText('Simulated data')).toBeInTheDocument();
    expect(item).toHaveTextContent('Performance since the previous run: +1.2%');

    expect(within(r.getByRole('region', { name: 'Alerts' })).getByRole('listitem')).toHaveTextContent('Price change: Price moved (BTC/USDT on binance: 1.49% > 0.00%)');

    const market = within(r.getByRole('region', { name: 'BTC/USDT · binance · 15m' }));
    expect(market.getByText((_, el) => el?.tagName === 'P' && /^Price \d/.test(el.textContent ?? ''))).toHaveTextContent('Price 65,432.10 at the candle of Mar 4, 2025 19:00 GMT+9');
    const table = market.getByRole('table', { name: 'Indicators of BTC/USDT · binance · 15m' });
    expect(within(table).getByRole('rowheader', { name: 'RSI 14' }).nextSibling).toHaveTextContent('61.23');
    expect(within(table).getByRole('rowheader', { name: 'SMA 20' }).nextSibling).toHaveTextContent('—');
    const rules = market.getAllByRole('listitem');
    expect(rules.map((li) => li.textContent)).toEqual([
      'FiredPrice changechange +1.49% > 1% in size',
      'Not firedVolume surgevolume 1200 <= 1.5 x average 1000',
      'Insufficient dataVolatility spikenot enough history (20 candles needed)',
      'Not configuredWhale transactionnot configured: set WHALE_ALERT_API_KEY to read on-chain data',
    ]);

    expect(r.getByRole('region', { name: 'BTC/USD · kraken' })).toHaveTextContent('Could not read this market: The data provider is having trouble on its side.');

    const raw = r.getByText('Show raw JSON');
    expect(raw.closest('details')).not.toHaveAttribute('open');
    await userEvent.click(raw);
    expect(raw.closest('details')).toHaveAttribute('open');
    expect(JSON.parse(raw.closest('details')!.querySelector('pre')!.textContent!)).toEqual(RESULT);
  });

  it('shows a failure with its error, an interrupted run in words, a queued and a running run, and a scheduled slot', () => {
    setSettingsTimeZone('America/New_York');
    renderWithProviders(
      <RunHistory
        runs={[
          run({ id: 12, status: 'queued' }),
          run({ id: 11, status: 'running', scheduledFor: '2025-03-04T10:00:00.000Z', startTime: '2025-03-04T10:00:01.000Z' }),
          run({ id: 10, status: 'failure', startTime: '2025-03-04T09:05:00.000Z', endTime: '2025-03-04T09:05:01.000Z', error: 'No market to watch: check the symbols or exchanges.' }),
          run({ id: 8, status: 'failure', startTime: '2025-03-04T08:05:00.000Z', endTime: '2025-03-04T08:05:31.000Z', error: 'interrupted' }),
        ]}
        loading={false}
      />,
    );
    const [queued, running, failure, interrupted] = runItems();
    expect(queued).toHaveTextContent('Queued');
    expect(queued).toHaveTextContent('Run #12');
    expect(queued).toHaveTextContent('Queued at Mar 4, 05:05:00 EST, waiting for a worker');
    expect(queued).not.toHaveTextContent('Duration');
    expect(running).toHaveTextContent('Running');
    expect(running).toHaveTextContent('Scheduled for Mar 4, 05:00:00 EST');
    expect(running).toHaveTextContent('Started Mar 4, 05:00:01 EST, still running');
    expect(running).toHaveTextContent('still running');
    expect(failure).toHaveTextContent('Failure');
    expect(failure).toHaveTextContent('No market to watch: check the symbols or exchanges.');
    expect(failure).toHaveTextContent('Duration: 1.0s');
    expect(interrupted).toHaveTextContent('Interrupted: the worker running this agent stopped before the run finished.');
  });

  it('opens the newest result and folds older ones into one line, built when opened', async () => {
    const older = { ...SUCCESS, id: 5, result: { ...RESULT, simulated: false } };
    renderWithProviders(<RunHistory runs={[run({ id: 10, status: 'queued' }), SUCCESS, older, parsed({ ...SUCCESS, id: 4, result: { signals: 2 } })]} loading={false} />);
    const [, newest, folded, legacy] = runItems();
    expect(within(newest!).getByText('Simulated data')).toBeVisible();
    const summary = within(folded!).getByText(/^Result:/);
    expect(summary).toHaveTextContent('Result: 2 markets · 1 failed · 1 alert · 1 signal fired');
    expect(within(folded!).queryByRole('table')).not.toBeInTheDocument();
    await userEvent.click(summary);
    expect(within(folded!).getByRole('table')).toBeInTheDocument();
    // A result of another shape (recorded before TRunResult) is shown as formatted JSON.
    await userEvent.click(within(legacy!).getByText('Result: show'));
    expect(legacy!.querySelector('pre')?.textContent).toBe('{\n  "signals": 2\n}');
  });

  it('says when there is none, and while loading', () => {
    const { rerender } = renderWithProviders(<RunHistory runs={[]} loading={false} />);
    expect(screen.getByText('No execution history available')).toBeInTheDocument();
    rerender(<RunHistory runs={undefined} loading />);
    expect(screen.getByRole('status')).toHaveTextContent('Loading run history');
  });
});
