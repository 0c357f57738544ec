/**
 * A small Server-Sent Events parser (the WHATWG event-stream format) for responses read with
 * `fetch` (EventSource cannot POST). Feed it text as it arrives, in chunks split anywhere: lines
 * end with \n, \r\n or \r; a line starting with ':' is a comment; `data:` lines accumulate,
 * joined with \n; a blank line dispatches the event (`event` defaults to 'message'). An event
 * without data is not dispatched (as in browsers).
 */
export type SseEvent = { event: string; data: string; id?: string };

export type SseParser = {
  /** Parses another chunk of text, calling onEvent for each complete event. */
  feed(chunk: string): void;
  /** The stream ended: a last event without its blank line is dropped (the spec's rule). */
  end(): void;
};

export function createSseParser(onEvent: (event: SseEvent) => void): SseParser {
  let buffer = '';
  let pendingCr = false;
  let eventName = '';
  let data: string[] = [];
  let lastId: string | undefined;

  const dispatch = () => {
    if (data.length > 0) onEvent({ event: eventName || 'message', data: data.join('\n'), ...(lastId !== undefined ? { id: lastId } : {}) });
    eventName = '';
    data = [];
  };

  const line = (text: string) => {
    if (text === '') return dispatch();
    if (text.startsWith(':')) return;
    const colon = text.indexOf(':');
    const field = colon === -1 ? text : text.slice(0, colon);
    let value = colon === -1 ? '' : text.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') eventName = value;
    else if (field === 'data') data.push(value);
    else if (field === 'id' && !value.includes('\0')) lastId = value;
    // 'retry' and unknown fields are ignored: we never reconnect.
  };

  return {
    feed(chunk) {
      let text = chunk;
      // A \r ended the previous chunk: a \n starting this one belongs to the same line break.
      if (pendingCr && text.startsWith('\n')) text = text.slice(1);
      pendingCr = false;
      buffer += text;
      let start = 0;
      for (let i = 0; i < buffer.length; i++) {
        const ch = buffer[i];
        if (ch !== '\n' && ch !== '\r') continue;
        line(buffer.slice(start, i));
        if (ch === '\r') {
          if (i + 1 < buffer.length) {
            if (buffer[i + 1] === '\n') i++;
          } else {
            pendingCr = true;
          }
        }
        start = i + 1;
      }
      buffer = buffer.slice(start);
    },
    end() {
      buffer = '';
      eventName = '';
      data = [];
    },
  };
}

/**
 * The events of a response body, as they arrive. Cancelling (the signal aborts, or the loop is
 * left early) cancels the body, which closes the connection.
 */
export async function* readSse(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<SseEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const queue: SseEvent[] = [];
  const parser = createSseParser((event) => queue.push(event));
  let finished = false;
  const onAbort = () => void reader.cancel().catch(() => {});
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new DOMException('Aborted', 'AbortError');
      const { done, value } = await reader.read();
      if (signal?.aborted) throw signal.reason ?? new DOMException('Aborted', 'AbortError');
      if (done) {
        finished = true;
        parser.feed(decoder.decode());
        parser.end();
        yield* queue.splice(0);
        return;
      }
      parser.feed(decoder.decode(value, { stream: true }));
      yield* queue.splice(0);
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    if (!finished) void reader.cancel().catch(() => {});
  }
}
