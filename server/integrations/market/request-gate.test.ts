import { describe, expect, it } from 'vitest';
import { RequestGate } from './request-gate.ts';

/** A promise settled from outside. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
const tick = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('RequestGate', () => {
  it('starts no history page while a live request is waiting or running', async () => {
    const gate = new RequestGate(0);
    const order: string[] = [];
    const live = deferred();
    const running = gate.runLive(async () => {
      order.push('live started');
      await live.promise;
      order.push('live done');
    });
    const paging = gate.runHistory(new AbortController().signal, async (page) => {
      await page(async () => order.push('page 1'));
    });
    await tick();
    expect(order).toEqual(['live started']);
    live.resolve();
    await Promise.all([running, paging]);
    expect(order).toEqual(['live started', 'live done', 'page 1']);
  });

  it('runs one paging at a time: a second one starts when the first is over', async () => {
    const gate = new RequestGate(0);
    const order: string[] = [];
    const first = deferred();
    const signal = new AbortController().signal;
    const a = gate.runHistory(signal, async (page) => {
      await page(async () => order.push('a1'));
      await first.promise;
      await page(async () => order.push('a2'));
    });
    const b = gate.runHistory(signal, async (page) => {
      await page(async () => order.push('b1'));
    });
    await tick();
    expect(order).toEqual(['a1']);
    first.resolve();
    await Promise.all([a, b]);
    expect(order).toEqual(['a1', 'a2', 'b1']);
  });

  it('lets a live request through at once while a paging rests between its pages', async () => {
    const gate = new RequestGate(60_000); // a long rest: the second page would wait a minute
    const controller = new AbortController();
    const order: string[] = [];
    const paging = gate.runHistory(controller.signal, async (page) => {
      await page(async () => order.push('page 1'));
      await page(async () => order.push('page 2'));
    });
    await tick();
    await gate.runLive(async () => order.push('live'));
    expect(order).toEqual(['page 1', 'live']);
    controller.abort(new Error('stop'));
    await expect(paging).rejects.toThrow('stop');
    expect(order).toEqual(['page 1', 'live']);
  });
});
