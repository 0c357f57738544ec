import { AGENT_TEMPLATES, defaultAgentConfig } from '../contracts/agents.ts';
import type { TCandle } from '../contracts/market.ts';
import { historyNeeded, runBacktest, type BacktestMarketInput } from '../server/modules/backtest/backtest-engine.ts';
import { evaluateMarket } from '../server/modules/runtime/evaluate.ts';
import { planRun } from '../server/modules/runtime/run-plan.ts';
import { mulberry32 } from '../tests/support/seeded-random.ts';
import type { Benchmark } from './types.ts';
import { timeRuns } from './lib.ts';

const SYMBOLS = ['AAPL', 'MSFT', 'NVDA', 'AMZN', 'GOOGL'];
const CANDLES = 5000;
/** With --quick the reference evaluates every 10th candle only, and its time is scaled up by 10. */
const QUICK_STEP = 10;
const TARGET_MS = 50;
const TARGET_RATIO = 50;
const DAY = 86_400_000;

/** The Stock Market Scanner with every indicator, every signal and every alert type on. */
function fullPlan() {
  const template = AGENT_TEMPLATES.find((t) => t.id === 'stock-market-scanner')!;
  const defaults = defaultAgentConfig(template);
  return planRun(template.id, {
    ...defaults,
    notifications: {
      ...defaults.notifications,
      thresholds: [
        { type: 'priceChange', value: 3, message: 'Moved' },
        { type: 'volumeSpike', value: 200, message: 'Spike' },
        { type: 'volatilityAlert', value: 4, message: 'Wide' },
        { type: 'volumeAlert', value: 150, message: 'Busy' },
      ],
    },
    parameters: {
      ...defaults.parameters,
      symbols: SYMBOLS.join(', '),
      indicators: ['SMA', 'EMA', 'RSI', 'MACD', 'Bollinger Bands', 'Stochastic Oscillator'],
      includeVolume: true,
    },
  });
}

/** A seeded daily series like a stock's: about 1.5% a day, a jump now and then, volume around 1M with bursts. */
function dailySeries(length: number, seed: number): TCandle[] {
  const rand = mulberry32(seed);
  const start = Date.UTC(2000, 0, 3, 14, 30);
  const out: TCandle[] = [];
  let close = 50 + rand() * 200;
  for (let i = 0; i < length; i++) {
    const open = close;
    close = Math.max(1, open * (1 + (rand() - 0.5) * (rand() < 0.03 ? 0.16 : 0.03)));
    const high = Math.max(open, close) * (1 + rand() * 0.01);
    const low = Math.min(open, close) * (1 - rand() * 0.01);
    const volume = Math.round(1_000_000 * (0.5 + rand()) * (rand() < 0.05 ? 3 : 1));
    out.push({ time: start + i * DAY, open, high, low, close, volume });
  }
  return out;
}

/**
 * Test on history (issue 16 item 5): 5 stock symbols x 5,000 daily candles already in memory, the
 * scanner with all six indicators, every signal and all four alert types. Ours is runBacktest
 * (indicators once per series, every candle evaluated from them, the whole result built);
 * the reference is the naive way, the live evaluation (evaluateMarket) called once per candle on
 * the series cut at that candle, with none of the result's bookkeeping.
 */
const benchmark: Benchmark = {
  name: 'backtest',
  description: `Test on history: ${SYMBOLS.length} stocks x ${CANDLES.toLocaleString('en')} candles, all indicators, signals and alert types: runBacktest vs evaluateMarket once per candle on the cut series (every ${QUICK_STEP}th with --quick)`,
  async run({ quick, log }) {
    const evaluated = CANDLES;
    const step = quick ? QUICK_STEP : 1;
    const plan = fullPlan();
    const length = historyNeeded(plan, evaluated);
    const markets: BacktestMarketInput[] = SYMBOLS.map((symbol, s) => {
      const candles = dailySeries(length, 1000 + s);
      return { label: symbol, symbol, source: 'yahoo', timeframe: '1d', simulated: false, candles, history: { requested: length, received: length, cached: 0, short: null } };
    });
    const input = { templateId: 'stock-market-scanner', plan, candles: evaluated, timeZone: 'America/New_York', channels: { email: true, inApp: true }, markets };

    const ours = timeRuns(() => runBacktest(input), 5, quick ? 10 : 30);
    const result = ours.result;
    const fired = result.summary.map((r) => `${r.label} ${r.fired}${r.notifications === null ? '' : ` (${r.notifications} notified)`}`).join(', ');
    log(`  ours: median ${ours.median.toFixed(2)} ms, best ${ours.best.toFixed(2)} ms for ${(SYMBOLS.length * evaluated).toLocaleString('en')} candles (${length.toLocaleString('en')} per market with the warm-up)`);
    log(`  fired: ${fired}; ${result.notifications.total} notifications`);

    // The naive way, once (it is slow): every evaluated candle as its own live run on the cut
    // series. A cut's cost grows with its length, so every 10th candle, times 10, estimates all.
    const naive = timeRuns(
      () => {
        let firedNaive = 0;
        for (const m of markets) {
          for (let i = length - evaluated; i < length; i += step) {
            const evaluation = evaluateMarket({ plan, market: m.label, candles: m.candles.slice(0, i + 1), onChain: { configured: false } });
            for (const rule of evaluation.rules) if (rule.fired) firedNaive++;
            for (const t of evaluation.thresholds) if (t.firing) firedNaive++;
          }
        }
        return firedNaive;
      },
      0,
      1,
    );
    const referenceMs = naive.median * step;
    const firedOurs = quick ? naive.result : result.summary.reduce((sum, r) => sum + r.fired, 0);
    log(
      quick
        ? `  reference: ${naive.median.toFixed(0)} ms for every ${step}th candle, ${referenceMs.toFixed(0)} ms estimated for all`
        : `  reference: ${referenceMs.toFixed(0)} ms; firings counted the naive way ${naive.result}, by runBacktest ${firedOurs}`,
    );

    const candles = SYMBOLS.length * evaluated;
    const oursRate = candles / (ours.median / 1000);
    const naiveRate = candles / (referenceMs / 1000);
    const ratio = oursRate / naiveRate;
    const agree = naive.result === firedOurs ? {} : { note: `firings differ: ${naive.result} the naive way` };
    return [
      { name: `backtest ${SYMBOLS.length}x${evaluated} time`, unit: 'ms', ours: ours.median, reference: null, ratio: null, target: `< ${TARGET_MS} ms`, met: ours.median < TARGET_MS, ...agree },
      {
        name: 'backtest candles per second',
        unit: 'candles/s',
        ours: oursRate,
        reference: naiveRate,
        ratio,
        target: `ratio >= ${TARGET_RATIO}`,
        met: ratio >= TARGET_RATIO,
        ...(quick ? { note: `reference estimated from every ${step}th candle` } : agree),
      },
    ];
  },
};

export default benchmark;
