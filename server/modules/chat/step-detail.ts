/**
 * What an answer's tool step keeps of a tool's whole result for the person (issue 31,
 * docs/decisions/0079). A test on history's result carries each market's chart (every evaluated
 * candle with its overlays: ~60 KB a market at 500 candles), which the step's table does not
 * draw and which would be streamed, stored with the answer, saved by the browser and exported
 * with every step: the charts are left out, empty, and the result stays a TBacktestResult
 * (Test on history's own panel draws them).
 */
export function keptDetail(detail: unknown): unknown {
  if (!isRecord(detail) || !Array.isArray(detail.markets)) return detail;
  return {
    ...detail,
    markets: detail.markets.map((market: unknown) => (isRecord(market) && isRecord(market.chart) ? { ...market, chart: { candles: [], overlays: {}, markers: [] } } : market)),
  };
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
