import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { MARKET_FAILURES, ZRunResult, type TRuleOutcome } from '../../../../contracts/market.ts';
import { timesIn } from '../../../lib/times.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { RunResult, failureText, recentText, ruleState } from './run-result.tsx';

describe('ZRunResult (what the runs query reads a stored result with)', () => {
  const readsAsRunResult = (value: unknown) => ZRunResult.safeParse(value).success;
  it("accepts TRunResult's shape and nothing else", () => {
    expect(readsAsRunResult({ templateId: 't', markets: [{ ok: false, symbol: 'AAPL', source: 'yahoo', simulated: false, error: 'x' }], alerts: [], simulated: false, performance: null })).toBe(true);
    expect(readsAsRunResult({ signals: 2 })).toBe(false);
    expect(readsAsRunResult({ markets: [{ symbol: 1 }], alerts: [], simulated: false })).toBe(false);
    expect(readsAsRunResult(null)).toBe(false);
    expect(readsAsRunResult('done')).toBe(false);
  });
});

describe('ruleState', () => {
  const rule = (status: TRuleOutcome['status'], fired: boolean): TRuleOutcome => ({ name: 'r', status, fired, values: {}, detail: '' });
  it('says each outcome in words', () => {
    expect(ruleState(rule('evaluated', true)).label).toBe('Fired');
    expect(ruleState(rule('evaluated', false)).label).toBe('Not fired');
    expect(ruleState(rule('insufficient data', false)).label).toBe('Insufficient data');
    expect(ruleState(rule('not configured', false)).label).toBe('Not configured');
  });
});

describe('failureText', () => {
  const failed = { ok: false, symbol: 'AAPL', source: 'yahoo', simulated: false } as const;
  const tokyo = timesIn('Asia/Tokyo');
  it("says a failure's kind in its sentence, whatever text the run stored with it", () => {
    expect(failureText({ ...failed, failure: 'rate-limited', error: 'Yahoo Finance is rate limiting requests (429, 3 retries)' }, tokyo)).toBe(
      'The data provider is limiting our requests. Later runs will try again.',
    );
    expect(failureText({ ...failed, failure: 'unknown-symbol', error: '' }, tokyo)).toBe('The data provider does not list this symbol.');
  });

  it('keeps the stored text of a run recorded before failures had kinds', () => {
    expect(failureText({ ...failed, error: 'Yahoo Finance did not answer in 10 s (3 retries)' }, tokyo)).toBe('Yahoo Finance did not answer in 10 s (3 retries)');
  });

  it("gives a stale market's latest candle in the reader's zone, named", () => {
    expect(failureText({ ...failed, failure: 'stale', error: '', candleTime: '2024-01-05T09:00:00.000Z' }, tokyo)).toBe(
      `${MARKET_FAILURES.stale} Latest candle: Jan 5, 2024 18:00 GMT+9.`,
    );
  });
});

describe('RunResult', () => {
  it('shows a result of another shape as formatted JSON', () => {
    const { container } = renderWithProviders(<RunResult result={null} unreadable={{ signals: 2 }} />);
    expect(container.querySelector('pre')?.textContent).toBe('{\n  "signals": 2\n}');
    expect(screen.queryByText('Show raw JSON')).not.toBeInTheDocument();
  });
});

describe('recentText', () => {
  it('puts the latest candle beside the averages of the candles before, as recorded (what a brief compares with)', () => {
    expect(recentText({ window: 20, changePercent: 0.6, averageAbsChangePercent: 0.0812, volume: 3125, averageVolume: 1000, rangePercent: 2.4851, averageRangePercent: 1 })).toBe(
      'Change +0.6% (average size 0.081%), volume 3.1K (average 1K), range 2.49% of the price (average 1%), against the 20 candles before.',
    );
    expect(recentText({ window: 20, changePercent: -1.5, averageAbsChangePercent: null, volume: 10, averageVolume: null, rangePercent: 1, averageRangePercent: null })).toBe(
      'Change -1.5% (average size —), volume 10 (average —), range 1% of the price (average —), against the 20 candles before.',
    );
  });
});
