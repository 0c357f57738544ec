/** One event of a server-sent event stream: its id, its name ('message' unless named) and its data as JSON. */
export type SseEvent = { id: string | null; event: string; data: unknown };

/**
 * A server-sent event stream read as it arrives, as a browser's EventSource reads it: `push` each
 * chunk of text; every complete event that carries data goes to `onEvent`, in order.
 */
export function sseParser(onEvent: (event: SseEvent) => void): { push(chunk: string): void } {
  let buffer = '';
  return {
    push(chunk) {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        let id: string | null = null;
        let event = 'message';
        const data: string[] = [];
        for (const line of block.split('\n')) {
          if (line.startsWith('id: ')) id = line.slice(4);
          else if (line.startsWith('event: ')) event = line.slice(7);
          else if (line.startsWith('data: ')) data.push(line.slice(6));
        }
        if (data.length > 0) onEvent({ id, event, data: JSON.parse(data.join('\n')) as unknown });
      }
    },
  };
}

/**
 * The events of a stream so far, and a wait for one of them: `next(match)` resolves with the
 * first event (seen already or to come) that `match` accepts, and fails after `timeoutMs`, or as
 * soon as `ended()` says no more will come. Call `changed()` after events arrive or the stream ends.
 */
export function eventWaiter<E>(events: E[], ended: () => boolean = () => false) {
  const waiters = new Set<() => void>();
  return {
    changed() {
      for (const wake of waiters) wake();
    },
    next(match: (e: E) => boolean, timeoutMs: number): Promise<E> {
      return new Promise((found, fail) => {
        const look = () => {
          const hit = events.find(match);
          if (!hit && !ended()) return;
          waiters.delete(look);
          clearTimeout(timer);
          if (hit) found(hit);
          else fail(new Error(`the stream ended without a matching event; got ${JSON.stringify(events)}`));
        };
        const timer = setTimeout(() => {
          waiters.delete(look);
          fail(new Error(`no matching event within ${timeoutMs} ms; got ${JSON.stringify(events)}`));
        }, timeoutMs);
        waiters.add(look);
        look();
      });
    },
  };
}
