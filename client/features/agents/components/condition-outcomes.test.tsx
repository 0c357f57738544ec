import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { TConditionOutcome } from '../../../../contracts/condition-outcomes.ts';
import { ZRunHistory } from '../../../../contracts/agents.ts';
import type { TRunResult } from '../../../../contracts/market.ts';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { RunHistory } from './run-history.tsx';
import { resultHeadline } from './run-result.tsx';

afterEach(() => setSettingsTimeZone(null));

const CROSSING: TConditionOutcome = {
  id: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
  title: 'Oversold in an uptrend',
  text: 'RSI (14) crosses below 30 and close is above EMA (200) on 1 day',
  status: 'evaluated',
  met: true,
  candleTime: '2025-03-04T09:00:00.000Z',
  delivery: 'snoozed',
  clauses: [
    {
      path: '0',
      text: 'RSI (14) crosses below 30',
      met: true,
      sides: [
        { label: 'RSI (14)', at: 28.4, before: 31.2 },
        { label: '30', at: 30, before: 30 },
      ],
    },
    {
      path: '1',
      text: 'close is above EMA (200) on 1 day',
      met: true,
      sides: [
        { label: 'close', at: 101.5, before: 100 },
        { label: 'EMA (200) on 1 day', at: 95.25, before: 95.2 },
      ],
    },
  ],
};
const UNDECIDED: TConditionOutcome = {
  id: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb',
  title: 'VWAP cross',
  text: 'close crosses above VWAP',
  status: 'insufficient data',
  met: false,
  candleTime: '2025-03-04T09:00:00.000Z',
  delivery: null,
  clauses: [{ path: '0', text: 'close crosses above VWAP', met: null, sides: [{ label: 'close', at: 101.5, before: null }, { label: 'VWAP', at: null, before: null }] }],
};
const DISARMED: TConditionOutcome = { id: 'cccccccc-cccc-4ccc-8ccc-cccccccccccc', title: 'Once', text: 'close is above 100', status: 'disarmed', met: false, candleTime: null, delivery: null, clauses: [] };

const result = (conditions: TConditionOutcome[]): TRunResult => ({
  templateId: 'custom-monitor',
  simulated: false,
  performance: null,
  alerts: [],
  markets: [
    {
      ok: true,
      symbol: 'AAPL',
      source: 'yahoo',
      simulated: false,
      timeframe: '1h',
      price: 101.5,
      candleTime: '2025-03-04T09:00:00.000Z',
      indicators: {},
      rules: [],
      chart: { candles: [], overlays: {}, markers: [] },
      conditions,
    },
  ],
});

function renderRun(conditions: TConditionOutcome[]) {
  // Through the runs query's own schema, as the details read a stored run.
  const runs = ZRunHistory.parse([
    { id: 9, scheduledFor: null, status: 'success', startTime: '2025-03-04T10:00:00.000Z', endTime: '2025-03-04T10:00:01.000Z', result: result(conditions), error: null, createdAt: '2025-03-04T10:00:00.000Z' },
  ]);
  renderWithProviders(<RunHistory runs={runs} loading={false} />);
}

describe('Run History: conditions', () => {
  it("shows each condition's outcome and delivery, and each clause's sides at the deciding candle and, for a crossing, the one before", () => {
    setSettingsTimeZone('Europe/Paris');
    renderRun([CROSSING, UNDECIDED, DISARMED]);
    const section = within(screen.getByRole('region', { name: 'Conditions on AAPL · yahoo · 1h' }));
    const items = section.getAllByRole('listitem').filter((li) => li.parentElement?.parentElement?.tagName === 'SECTION');
    expect(items).toHaveLength(3);
    const first = within(items[0]!);
    // The condition's badge and each of its two clauses.
    expect(first.getAllByText('Met')).toHaveLength(3);
    expect(first.getByText('Oversold in an uptrend')).toBeInTheDocument();
    expect(first.getByText('Snoozed, not notified')).toBeInTheDocument();
    expect(first.getByText('Decided at the candle of Mar 4, 2025 10:00 GMT+1')).toBeInTheDocument();

    // The crossing: both candles, named.
    const crossing = first.getByRole('table', { name: 'Values of RSI (14) crosses below 30' });
    const rows = within(crossing)
      .getAllByRole('row')
      .map((row) => [...row.querySelectorAll('th, td')].map((cell) => cell.textContent));
    expect(rows).toEqual([
      ['Side', 'At Mar 4, 2025 10:00 GMT+1', 'Candle before'],
      ['RSI (14)', '28.4', '31.2'],
      ['30', '30', '30'],
    ]);
    // Not a crossing: the deciding candle only.
    const above = first.getByRole('table', { name: 'Values of close is above EMA (200) on 1 day' });
    expect(within(above).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Side', 'At Mar 4, 2025 10:00 GMT+1']);
    expect(within(above).getByRole('row', { name: /EMA \(200\) on 1 day/ })).toHaveTextContent('95.25');

    const second = within(items[1]!);
    expect(second.getByText('Insufficient data')).toBeInTheDocument();
    expect(second.getByText('Undecided')).toBeInTheDocument();
    expect(within(second.getByRole('table')).getByRole('row', { name: /VWAP/ })).toHaveTextContent('VWAPnot definednot defined');
    expect(within(items[2]!).getByText('Disarmed, not evaluated')).toBeInTheDocument();
    // A Custom Monitor's run has no signals: said, not an empty list.
    expect(screen.getByText('No signals: only conditions and alerts')).toBeInTheDocument();
  });

  it('counts met conditions in a folded run\'s line', () => {
    expect(resultHeadline(result([CROSSING, UNDECIDED]))).toBe('1 market · 0 alerts · 0 signals fired · 1 condition met');
    expect(resultHeadline({ ...result([]), markets: [{ ...result([]).markets[0]!, conditions: undefined } as TRunResult['markets'][number]] })).toBe('1 market · 0 alerts · 0 signals fired');
  });
});
