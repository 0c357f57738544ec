import { describe, expect, it } from 'vitest';
import { createSseParser, readSse, type SseEvent } from './sse.ts';

function parseAll(chunks: string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
  return events;
}

const STREAM = 'event: delta\ndata: {"text":"Hel"}\n\nevent: delta\ndata: {"text":"lo"}\n\nevent: done\ndata: {"model":"gpt-4o"}\n\n';
const EXPECTED = [
  { event: 'delta', data: '{"text":"Hel"}' },
  { event: 'delta', data: '{"text":"lo"}' },
  { event: 'done', data: '{"model":"gpt-4o"}' },
];

function streamOf(chunks: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === 'string' ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

describe('createSseParser', () => {
  it('parses named events', () => {
    expect(parseAll([STREAM])).toEqual(EXPECTED);
  });

  it('gives the same events however the text is split, down to single characters', () => {
    expect(parseAll(STREAM.split(''))).toEqual(EXPECTED);
    for (let cut = 1; cut < STREAM.length; cut++) {
      expect(parseAll([STREAM.slice(0, cut), STREAM.slice(cut)]), `split at ${cut}`).toEqual(EXPECTED);
    }
  });

  it('joins multi-line data with newlines and strips one leading space', () => {
    expect(parseAll(['data: first\ndata:second\ndata:  third\n\n'])).toEqual([{ event: 'message', data: 'first\nsecond\n third' }]);
  });

  it('ignores comments, unknown fields and retry; an event without data is not dispatched', () => {
    expect(parseAll([': keep-alive\n\nretry: 100\nfoo: bar\nevent: ping\n\n:comment\ndata: x\n\n'])).toEqual([{ event: 'message', data: 'x' }]);
  });

  it('accepts \\r\\n and \\r line endings, also when \\r\\n is split across chunks', () => {
    expect(parseAll(['event: delta\r\ndata: a\r', '\n\r', '\nevent: done\rdata: b\r\r'])).toEqual([
      { event: 'delta', data: 'a' },
      { event: 'done', data: 'b' },
    ]);
  });

  it('keeps the last id and a field line without a colon', () => {
    expect(parseAll(['id: 7\ndata\n\n'])).toEqual([{ event: 'message', data: '', id: '7' }]);
  });

  it('drops a last event that never got its blank line', () => {
    expect(parseAll(['data: complete\n\ndata: cut off'])).toEqual([{ event: 'message', data: 'complete' }]);
  });
});

describe('readSse', () => {
  it('decodes bytes split inside a multi-byte character', async () => {
    const bytes = new TextEncoder().encode('data: héllo ✓\n\n');
    const events: SseEvent[] = [];
    for await (const event of readSse(streamOf([bytes.slice(0, 8), bytes.slice(8, 15), bytes.slice(15)]))) events.push(event);
    expect(events).toEqual([{ event: 'message', data: 'héllo ✓' }]);
  });

  it('stops with the abort reason when the signal aborts, cancelling the body', async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: one\n\n'));
      },
      cancel() {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const seen: string[] = [];
    const run = (async () => {
      for await (const event of readSse(body, controller.signal)) {
        seen.push(event.data);
        controller.abort(new DOMException('Stopped', 'AbortError'));
      }
    })();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toEqual(['one']);
    expect(cancelled).toBe(true);
  });
});
