import { describe, expect, it } from 'vitest';
import { failureReason } from './agent-health.ts';

describe('failureReason', () => {
  it('keeps a short error as it is, on one line', () => {
    expect(failureReason('BTC/USD (kraken): The data provider is having trouble on its side.')).toBe('BTC/USD (kraken): The data provider is having trouble on its side.');
    expect(failureReason('\n  first   line \nsecond line')).toBe('first line');
  });

  it('cuts a long one at a word, with an ellipsis', () => {
    const reason = failureReason(`${'BTC/USD (kraken): The data provider did not answer in time. '.repeat(4)}`);
    expect(reason.length).toBeLessThanOrEqual(141);
    expect(reason).toMatch(/^BTC\/USD \(kraken\): The data provider did not answer in time\. .*\S…$/);
  });

  it('says something when there is no error text', () => {
    expect(failureReason(null)).toBe('the run failed without a reason');
    expect(failureReason('  ')).toBe('the run failed without a reason');
  });
});
