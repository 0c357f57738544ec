import { render, screen, within } from '@testing-library/react';
import axe from 'axe-core';
import { describe, expect, it } from 'vitest';
import { backtestMarket, backtestResult } from '../features/agents/lib/agents-test-data.ts';
import { BacktestSummary } from './backtest-summary.tsx';

describe('BacktestSummary', () => {
  it('tabulates each market’s rules: fired, notified (— for signals) and the average move after 1, 5 and 20 candles', () => {
    render(<BacktestSummary result={backtestResult()} />);
    const section = screen.getByRole('region', { name: 'Test on history' });
    expect(section).toHaveTextContent('2 notifications over 5 days (0.4 a day).');
    const table = within(section).getByRole('table', { name: /^AAPL: 100 candles from 2025-01-06/ });
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Rule', 'Fired', 'Notified', 'After 1 candle', 'After 5 candles', 'After 20 candles']);
    const [signal, alert] = within(table).getAllByRole('row').slice(1);
    expect(within(signal!).getByRole('rowheader')).toHaveTextContent('Signal: RSI extreme');
    expect(within(signal!).getAllByRole('cell').map((c) => c.textContent)).toEqual(['12', '—', '+1.25%', '+2.5%', '+3.75%']);
    expect(within(alert!).getByRole('rowheader')).toHaveTextContent('Alert: Price change > 5%');
    expect(within(alert!).getAllByRole('cell').map((c) => c.textContent)).toEqual(['4', '2', '-0.5%', '-1%', '-1.5%']);
  });

  it('says a market that could not be read, the held-back alerts and simulated data', () => {
    const failed = { ok: false as const, label: 'NOPE', symbol: 'NOPE', source: 'yahoo' as const, simulated: false, failure: 'unknown-symbol' as const, error: 'The data provider does not list this symbol.' };
    render(<BacktestSummary result={backtestResult({ simulated: true, markets: [backtestMarket(), failed], notifications: { ...backtestResult().notifications, held: 3 } })} />);
    expect(screen.getByText('NOPE: The data provider does not list this symbol.')).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Test on history' })).toHaveTextContent('3 held back by the hourly cap. Simulated data, not a real market.');
  });

  it('has no serious accessibility violations', async () => {
    const { container } = render(<BacktestSummary result={backtestResult()} />);
    const serious = (await axe.run(container, { rules: { 'color-contrast': { enabled: false } } })).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => v.id)).toEqual([]);
  });
});
