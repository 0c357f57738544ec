import { describe, expect, it } from 'vitest';
import { asParty, createFairQueue, QueueFullError } from './fair-queue.ts';

/** Work that holds its slot until released by the test. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, work: () => opened };
}

describe('fair queue in front of PGlite (docs/decisions/0050)', () => {
  it('runs at most `concurrency` pieces of work at once', async () => {
    const q = createFairQueue({ concurrency: 2, maxWaitMs: 10_000 });
    let running = 0;
    let most = 0;
    const job = async () => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, 5));
      running--;
    };
    await Promise.all(Array.from({ length: 20 }, () => q.run(job)));
    expect(most).toBe(2);
    expect(q.stats()).toMatchObject({ active: 0, waiting: 0 });
  });

  it('serves the waiting parties in turn, each in its own order', async () => {
    const q = createFairQueue({ concurrency: 1, maxWaitMs: 10_000 });
    const first = gate();
    const order: string[] = [];
    const holding = asParty('x', () => q.run(first.work));
    const queued: Array<Promise<void>> = [];
    // One party floods the queue before another asks once.
    for (let i = 1; i <= 4; i++) queued.push(asParty('flood', () => q.run(async () => void order.push(`flood${i}`))));
    queued.push(asParty('quiet', () => q.run(async () => void order.push('quiet1'))));
    queued.push(q.run(async () => void order.push('background1')));
    first.open();
    await holding;
    await Promise.all(queued);
    expect(order).toEqual(['flood1', 'quiet1', 'background1', 'flood2', 'flood3', 'flood4']);
  });

  it('runs work back to back for its slice, then lets the event loop take in what has arrived', async () => {
    let clock = 0;
    const q = createFairQueue({ concurrency: 1, maxWaitMs: 10_000, sliceMs: 5, now: () => clock });
    const order: string[] = [];
    const held = gate();
    const holding = q.run(held.work);
    const work = (name: string) => async () => {
      order.push(name);
      clock += 3;
      // Stands for I/O that became ready while this piece ran (a request, a connection).
      if (name === 'first') setImmediate(() => order.push('arrived'));
    };
    const pieces = ['first', 'second', 'third'].map((name) => q.run(work(name)));
    held.open();
    await Promise.all([holding, ...pieces]);
    // 'second' still fits the slice that began at 0; after it (6 ms) the loop gets its turn.
    expect(order).toEqual(['first', 'second', 'arrived', 'third']);
  });

  it('refuses a request at once when the queue ahead would take longer than its bound, with the wait in seconds', async () => {
    let clock = 0;
    const q = createFairQueue({ concurrency: 1, maxWaitMs: 1_000, now: () => clock });
    // Teach it that work takes ~400 ms.
    for (let i = 0; i < 60; i++) {
      await q.run(async () => {
        clock += 400;
      });
    }
    const held = gate();
    const holding = asParty('a', () => q.run(held.work));
    const second = asParty('b', () => q.run(async () => 'b'));
    const third = asParty('c', () => q.run(async () => 'c'));
    const refused = await asParty('d', () => q.run(async () => 'd')).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(QueueFullError);
    expect((refused as QueueFullError).retryAfterSeconds).toBe(2);
    // Background work is never refused: it waits its turn.
    const background = q.run(async () => 'background');
    held.open();
    await holding;
    expect(await Promise.all([second, third, background])).toEqual(['b', 'c', 'background']);
  });

  it('refuses a request that has waited its bound, so nothing hangs, and forgets it', async () => {
    const q = createFairQueue({ concurrency: 1, maxWaitMs: 30 });
    const held = gate();
    const holding = q.run(held.work);
    const late = await asParty('a', () => q.run(async () => 'a')).catch((err: unknown) => err);
    expect(late).toBeInstanceOf(QueueFullError);
    expect(q.stats().waiting).toBe(0);
    held.open();
    await holding;
    expect(await asParty('a', () => q.run(async () => 'after'))).toBe('after');
  });

  it('leaves untimed work (a backup holding the database still) out of the average it predicts waits from', async () => {
    let clock = 0;
    const q = createFairQueue({ concurrency: 1, maxWaitMs: 1_000, now: () => clock });
    await q.run(async () => {
      clock += 1;
    });
    const before = q.stats().averageMs;
    await q.run(
      async () => {
        clock += 5_000;
      },
      { timed: false },
    );
    expect(q.stats().averageMs).toBe(before);
    // So requests after it are not refused for a wait it predicted from the hold.
    const held = gate();
    const holding = q.run(held.work);
    const waiting = Array.from({ length: 20 }, (_, i) => asParty(`p${i}`, () => q.run(async () => i)));
    held.open();
    await holding;
    expect(await Promise.all(waiting)).toHaveLength(20);
  });

  it('frees the slot of work that fails', async () => {
    const q = createFairQueue({ concurrency: 1, maxWaitMs: 1_000 });
    await expect(q.run(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await q.run(async () => 'ok')).toBe('ok');
  });
});
