import { AsyncLocalStorage } from 'node:async_hooks';

/** Who a piece of database work is for (a session or an address), set per request; work with
 * none (jobs, timers) queues as one more party. */
const parties = new AsyncLocalStorage<string>();
const BACKGROUND = '';

/** Runs `fn` (and everything it starts) on behalf of `party`. */
export function asParty<T>(party: string, fn: () => T): T {
  return parties.run(party, fn);
}

/** A request's work refused because its wait would be too long: answered 503 with Retry-After. */
export class QueueFullError extends Error {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number) {
    super('The database is busy');
    this.retryAfterSeconds = retryAfterSeconds;
    this.name = 'QueueFullError';
  }
}

type Waiter = { start: () => void; fail: (err: Error) => void; timer?: NodeJS.Timeout };

export type FairQueue = {
  /** Runs `fn` once a slot is free, in turn among the parties waiting; a request's work that
   * would wait (or has waited) longer than maxWaitMs is refused with QueueFullError. `timed:
   * false`: work of no usual length (the database held still for a backup), left out of the
   * average the queue predicts waits from. */
  run<T>(fn: () => Promise<T>, options?: { timed?: boolean }): Promise<T>;
  stats(): { active: number; waiting: number; averageMs: number };
};

/**
 * At most `concurrency` pieces of work at once; the rest wait in one queue per party, served in
 * turn (round robin), so one busy client cannot make everyone else wait behind all of its work.
 * Background work (no party) waits as long as it takes; a request's work never waits more than
 * maxWaitMs: refused at once when the queue ahead of it would take longer (from the average time
 * a piece of work holds its slot), or when it has waited that long.
 */
export function createFairQueue({
  concurrency,
  maxWaitMs,
  sliceMs = 5,
  now = () => performance.now(),
}: {
  concurrency: number;
  maxWaitMs: number;
  /** How long work may run back to back before the event loop gets a turn. */
  sliceMs?: number;
  now?: () => number;
}): FairQueue {
  const SLICE_MS = sliceMs;
  let active = 0;
  let waiting = 0;
  let averageMs = 1;
  let nextScheduled = false;
  let sliceStart = now();
  const queues = new Map<string, Waiter[]>();
  /** Parties with work waiting, in the order they are served next. */
  const turn: string[] = [];

  const retryAfter = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

  function next(): void {
    while (active < concurrency && turn.length > 0) {
      const party = turn.shift()!;
      const queue = queues.get(party)!;
      const waiter = queue.shift()!;
      if (queue.length > 0) turn.push(party);
      else queues.delete(party);
      waiting--;
      clearTimeout(waiter.timer);
      active++; // taken now on the waiter's behalf, before it resumes
      waiter.start();
    }
  }

  /**
   * PGlite's work runs synchronously: starting each waiter as the one before it finished ran the
   * whole queue in one go, and meanwhile the process read no request and accepted no connection
   * (under load, connections waited seconds to be accepted, and their requests timed out unseen).
   * So work runs back to back for at most SLICE_MS, then the event loop takes in what has arrived
   * (which joins the queue in turn) before the next waiter starts.
   */
  function startNextSoon(): void {
    if (waiting === 0) return;
    if (now() - sliceStart < SLICE_MS) return next();
    if (nextScheduled) return;
    nextScheduled = true;
    setImmediate(() => {
      nextScheduled = false;
      sliceStart = now();
      next();
    });
  }

  function remove(party: string, waiter: Waiter): void {
    const queue = queues.get(party);
    const at = queue?.indexOf(waiter) ?? -1;
    if (!queue || at < 0) return;
    queue.splice(at, 1);
    waiting--;
    if (queue.length === 0) {
      queues.delete(party);
      turn.splice(turn.indexOf(party), 1);
    }
  }

  async function run<T>(fn: () => Promise<T>, { timed = true }: { timed?: boolean } = {}): Promise<T> {
    const party = parties.getStore() ?? BACKGROUND;
    const fromRequest = party !== BACKGROUND;
    if (active >= concurrency || waiting > 0) {
      const expectedMs = ((waiting + 1) * averageMs) / concurrency;
      if (fromRequest && expectedMs > maxWaitMs) throw new QueueFullError(retryAfter(expectedMs));
      await new Promise<void>((resolve, reject) => {
        const waiter: Waiter = { start: resolve, fail: reject };
        if (fromRequest) {
          waiter.timer = setTimeout(() => {
            remove(party, waiter);
            reject(new QueueFullError(retryAfter(((waiting + 1) * averageMs) / concurrency)));
          }, maxWaitMs);
        }
        let queue = queues.get(party);
        if (!queue) {
          queues.set(party, (queue = []));
          turn.push(party);
        }
        queue.push(waiter);
        waiting++;
      });
    } else {
      active++;
    }
    const started = now();
    try {
      return await fn();
    } finally {
      if (timed) averageMs = averageMs * 0.9 + (now() - started) * 0.1;
      active--;
      startNextSoon();
    }
  }

  return { run, stats: () => ({ active, waiting, averageMs }) };
}
