import { describe, expect, it } from 'vitest';
import type { TMarketResult, TRunAlert } from '../../../contracts/market.ts';
import { BRIEF_MAX_CHARS } from '../../../contracts/notifications.ts';
import { BRIEF_MAX_ALERTS, BRIEF_MAX_MARKETS, BRIEF_SYSTEM_PROMPT, briefFacts, briefPrompt, cleanBriefText } from './alert-brief.ts';

const market = (label: string, overrides: Partial<Extract<TMarketResult, { ok: true }>> = {}): { market: string; result: TMarketResult } => ({
  market: label,
  result: {
    ok: true,
    symbol: label.split(' ')[0]!,
    source: 'binance',
    simulated: false,
    timeframe: '15m',
    price: 64250.5,
    candleTime: '2026-11-27T10:00:00.000Z',
    indicators: { 'RSI 14': 71.2345, 'SMA 20': 63990.1 },
    rules: [{ name: 'Volume surge', status: 'evaluated', fired: true, values: { volume: 3125, averageVolume: 1000, factor: 1.5 }, detail: 'volume 3.1K > 1.5 x average 1K' }],
    chart: { candles: [{ time: 1, open: 1, high: 1, low: 1, close: 1, volume: 1 }], overlays: { 'SMA 20': [1] }, markers: [] },
    recent: { window: 20, changePercent: 0.59, averageAbsChangePercent: 0.0812, volume: 3125, averageVolume: 1000, rangePercent: 2.4851, averageRangePercent: 1 },
    ...overrides,
  },
});
const alert = (label: string, value = 0.59): TRunAlert => ({ market: label, threshold: 'priceChange', value, limit: 0.1, message: `Price change above 0.1% (${label}: ${value}% > 0.1%)` });

describe('the facts a brief is written from', () => {
  it('are the alerts and each alerted market as the run recorded them, without the chart', () => {
    const facts = briefFacts('Coins', [alert('BTC/USDT on binance')], [market('BTC/USDT on binance'), market('ETH/USDT on binance')]);
    expect(facts).toEqual({
      agentName: 'Coins',
      alerts: [{ ...alert('BTC/USDT on binance'), unit: '%', measures: 'How far the close moved over the last candle, up or down, as a % of the close before it.' }],
      alertsLeftOut: 0,
      markets: [
        {
          market: 'BTC/USDT on binance',
          simulated: false,
          timeframe: '15m',
          candleTime: '2026-11-27T10:00:00.000Z',
          price: 64250.5,
          recent: { window: 20, changePercent: 0.59, averageAbsChangePercent: 0.0812, volume: 3125, averageVolume: 1000, rangePercent: 2.4851, averageRangePercent: 1 },
          indicators: { 'RSI 14': 71.2345, 'SMA 20': 63990.1 },
          signals: [{ name: 'Volume surge', status: 'evaluated', fired: true, values: { volume: 3125, averageVolume: 1000, factor: 1.5 }, detail: 'volume 3.1K > 1.5 x average 1K' }],
        },
      ],
      marketsLeftOut: 0,
    });
  });

  it('leave out what the run did not record: a failed market, or averages a run from before did not keep', () => {
    const failed: TMarketResult = { ok: false, symbol: 'X', source: 'kraken', simulated: false, failure: 'timeout', error: 'The data provider did not answer in time.' };
    const old = market('AAPL', { recent: undefined });
    const facts = briefFacts('Mixed', [alert('AAPL'), alert('X on kraken')], [old, { market: 'X on kraken', result: failed }]);
    expect(facts.markets.map((m) => [m.market, m.recent])).toEqual([['AAPL', null]]);
    expect(facts.alerts).toHaveLength(2);
  });

  it("carry the owner's conditions in plain words, and the markets they were met on (issue 30)", () => {
    const met = { conditionId: 'c1', market: 'ETH/USDT on binance', title: 'RSI (14) crosses below 30', text: 'ETH/USDT on binance: RSI (14) on 15 minutes crossed below 30 (29.4, before 31.2)' };
    const facts = briefFacts('Coins', [], [market('BTC/USDT on binance'), market('ETH/USDT on binance')], [met]);
    expect(facts.alerts).toEqual([]);
    expect(facts.markets.map((m) => m.market)).toEqual(['ETH/USDT on binance']);
    expect(facts.conditions).toEqual([{ market: met.market, title: met.title, text: met.text }]);
    // Without conditions, the facts are as they were.
    expect(briefFacts('Coins', [alert('BTC/USDT on binance')], [market('BTC/USDT on binance')])).not.toHaveProperty('conditions');
  });

  it('are bounded: at most 20 alerts and 5 markets, and say how many were left out', () => {
    const labels = Array.from({ length: 8 }, (_, i) => `M${i}`);
    const alerts = labels.flatMap((label) => [alert(label, 1), alert(label, 2), alert(label, 3)]);
    const facts = briefFacts('Storm', alerts, labels.map((label) => market(label)));
    expect(facts.alerts).toHaveLength(BRIEF_MAX_ALERTS);
    expect(facts.alertsLeftOut).toBe(24 - BRIEF_MAX_ALERTS);
    expect(facts.markets).toHaveLength(BRIEF_MAX_MARKETS);
    expect(facts.marketsLeftOut).toBe(8 - BRIEF_MAX_MARKETS);
  });
});

describe('the prompt', () => {
  it('tells the assistant to use only the numbers given, in two or three plain sentences', () => {
    expect(BRIEF_SYSTEM_PROMPT).toMatch(/two or three sentences in plain words/);
    expect(BRIEF_SYSTEM_PROMPT).toMatch(/Use only the numbers in the message, exactly as given/);
    expect(BRIEF_SYSTEM_PROMPT).toMatch(/Do not invent, estimate or look up/);
    expect(BRIEF_SYSTEM_PROMPT).toMatch(/what moved and by how much, how unusual that is against the recent average/);
    expect(BRIEF_SYSTEM_PROMPT).toMatch(/which of the agent's signals agreed/);
  });

  it('carries the facts verbatim, as JSON on its last line', () => {
    const facts = briefFacts('Coins', [alert('BTC/USDT on binance')], [market('BTC/USDT on binance')]);
    const { system, prompt } = briefPrompt(facts);
    expect(system).toBe(BRIEF_SYSTEM_PROMPT);
    expect(JSON.parse(prompt.split('\n').at(-1)!)).toEqual(facts);
    expect(prompt).toContain('"RSI 14":71.2345');
    expect(prompt).toContain('"averageAbsChangePercent":0.0812');
  });
});

describe('the text kept as a brief', () => {
  it('is one trimmed paragraph without invisible or direction-changing characters', () => {
    expect(cleanBriefText('  BTC rose 0.59%.\n\nThat is  7 times\tits usual move.\u202e  ')).toBe('BTC rose 0.59%. That is 7 times its usual move.');
    expect(cleanBriefText('a\u0000b\u200bc\u0007')).toBe('abc');
    expect(cleanBriefText(' \n\t ')).toBe('');
  });

  it('is cut at a whole character with an ellipsis when longer than the most kept', () => {
    const long = `${'x'.repeat(BRIEF_MAX_CHARS - 2)}😀😀😀`;
    const cut = cleanBriefText(long);
    expect(Array.from(cut)).toHaveLength(BRIEF_MAX_CHARS);
    expect(cut.endsWith('😀…')).toBe(true);
    expect(cleanBriefText('y'.repeat(BRIEF_MAX_CHARS))).toHaveLength(BRIEF_MAX_CHARS);
  });
});
