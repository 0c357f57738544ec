import { describe, expect, it, vi } from 'vitest';
import { BACKTEST_CONTENT_TYPE } from '../../../../contracts/backtest.ts';
import { ApiError } from '../../../lib/api-client.ts';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { backtestResult, ndjson } from '../lib/agents-test-data.ts';
import { fieldErrors } from '../lib/field-errors.ts';
import { BacktestError, backtestAgent, backtestDraft, readLines } from './agents-api.ts';

/** A body that delivers `bytes` in pieces cut at `cuts` (byte offsets), as a network might. */
function chunked(bytes: Uint8Array, cuts: readonly number[]): ReadableStream<Uint8Array> {
  const edges = [0, ...cuts, bytes.length];
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i + 1 >= edges.length) return controller.close();
      controller.enqueue(bytes.slice(edges[i], edges[i + 1]));
      i++;
    },
  });
}

const streamed = (text: string, cuts: readonly number[] = []) =>
  new Response(chunked(new TextEncoder().encode(text), cuts), { status: 200, headers: { 'content-type': BACKTEST_CONTENT_TYPE } });

const collect = async (lines: AsyncIterable<string>) => {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
};

describe('readLines', () => {
  it('gives whole lines whatever the chunks: inside a line, inside a multi-byte character, at the newline, with a last line unterminated', async () => {
    const text = '{"a":"€uro"}\n\n{"b":2}\n{"c":"ß"}';
    const bytes = new TextEncoder().encode(text);
    const euro = text.indexOf('€');
    // Every cut: the 3-byte € split in two places, the newline alone, byte by byte at the end.
    const cuts = [3, euro + 1, euro + 2, 14, 15, 16, ...Array.from({ length: 6 }, (_, k) => bytes.length - 6 + k)].filter((c) => c > 0 && c < bytes.length);
    expect(await collect(readLines(chunked(bytes, [...new Set(cuts)].sort((a, b) => a - b))))).toEqual(['{"a":"€uro"}', '{"b":2}', '{"c":"ß"}']);
  });

  it('stops and cancels the body when the signal aborts', async () => {
    const cancel = vi.fn();
    let push!: (chunk: string) => void;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        push = (chunk) => controller.enqueue(new TextEncoder().encode(chunk));
      },
      cancel,
    });
    const controller = new AbortController();
    const lines = readLines(body, controller.signal);
    push('one\n');
    expect((await lines.next()).value).toBe('one');
    const next = lines.next();
    controller.abort();
    await expect(next).rejects.toThrow();
    expect(cancel).toHaveBeenCalled();
  });
});

describe('backtestDraft and backtestAgent', () => {
  const result = backtestResult();
  const text = ndjson([
    { type: 'progress', market: 'AAPL', loaded: 0, total: 150 },
    { type: 'progress', market: 'AAPL', loaded: 150, total: 150 },
    { type: 'result', result },
  ]);

  it('POSTs the draft, reports progress and resolves with the result, the stream split mid-line', async () => {
    const { requests } = stubFetch({ 'POST /api/agents/backtest': () => streamed(text, [5, 40, 41, text.length - 3]) });
    const onProgress = vi.fn();
    const body = { templateId: 'stock-market-scanner', config: { schedule: {}, notifications: {}, parameters: {} }, candles: 500 } as never;
    await expect(backtestDraft(body, { signal: new AbortController().signal, onProgress })).resolves.toEqual(result);
    expect(requests[0]!.body).toEqual(body);
    expect(onProgress.mock.calls).toEqual([[{ market: 'AAPL', loaded: 0, total: 150 }], [{ market: 'AAPL', loaded: 150, total: 150 }]]);
  });

  it("POSTs an agent's test with its config and candles", async () => {
    const { requests } = stubFetch({ 'POST /api/agents/a1/backtest': () => streamed(text) });
    await backtestAgent('a1', { candles: 50 }, { signal: new AbortController().signal });
    expect(requests[0]!.body).toEqual({ candles: 50 });
  });

  it('rejects with the sentence of an error event, and when the stream ends without a result', async () => {
    stubFetch({ 'POST /api/agents/a1/backtest': () => streamed(ndjson([{ type: 'progress', market: 'AAPL', loaded: 1, total: 2 }, { type: 'error', error: 'The test could not finish.' }])) });
    const failed = backtestAgent('a1', { candles: 50 }, { signal: new AbortController().signal });
    await expect(failed).rejects.toBeInstanceOf(BacktestError);
    await expect(failed).rejects.toThrow('The test could not finish.');

    stubFetch({ 'POST /api/agents/a1/backtest': () => streamed(ndjson([{ type: 'progress', market: 'AAPL', loaded: 1, total: 2 }])) });
    await expect(backtestAgent('a1', { candles: 50 }, { signal: new AbortController().signal })).rejects.toThrow('stopped before its result');
  });

  it('rejects with an ApiError for a refusal before the stream, its field details readable by fieldErrors', async () => {
    stubFetch({
      'POST /api/agents/backtest': () =>
        jsonResponse({ error: 'Invalid request', details: [{ path: 'config.parameters.rsiThreshold', message: 'RSI threshold must be between 0 and 100' }, { path: 'candles', message: 'Candles per market must be at most 5,000' }] }, 400),
      'POST /api/agents/a1/backtest': () => jsonResponse({ error: 'Too many tests: try again in a minute.' }, 429),
    });
    const refused = await backtestDraft({} as never, { signal: new AbortController().signal }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ApiError);
    expect(fieldErrors(refused)).toEqual({ 'parameters.rsiThreshold': 'RSI threshold must be between 0 and 100', candles: 'Candles per market must be at most 5,000' });
    const limited = await backtestAgent('a1', { candles: 50 }, { signal: new AbortController().signal }).catch((err: unknown) => err);
    expect(limited).toMatchObject({ status: 429, body: { error: 'Too many tests: try again in a minute.' } });
  });

  it('rejects an event of another shape instead of showing it', async () => {
    stubFetch({ 'POST /api/agents/a1/backtest': () => streamed('{"type":"result","result":{"templateId":1}}\n') });
    await expect(backtestAgent('a1', { candles: 50 }, { signal: new AbortController().signal })).rejects.toThrow();
  });
});
