import { describe, expect, it } from 'vitest';
import type { InvalidationTopic, Invalidations } from './invalidations.ts';
import { createOwnerCache } from './owner-cache.ts';

/** Invalidations in the test's hands: `change(owner)` is the database's notice of a commit. */
function fakeInvalidations({ announced = true } = {}) {
  const handlers = new Map<InvalidationTopic, Array<(key: string) => void>>();
  const resets: Array<() => void> = [];
  const state = { announced, reliable: true };
  const invalidations: Invalidations = {
    notify: async () => ({ delivered: async () => {} }),
    on: (topic, handler) => void handlers.set(topic, [...(handlers.get(topic) ?? []), handler]),
    reliable: () => state.reliable,
    onReset: (handler) => void resets.push(handler),
    announced: () => state.announced,
  };
  return {
    invalidations,
    state,
    change: (owner: string, topic: InvalidationTopic = 'agents') => handlers.get(topic)?.forEach((handler) => handler(owner)),
    reset: () => resets.forEach((handler) => handler()),
  };
}

/** A load that counts its calls and answers what `value` holds when it is called. */
function counter(initial = 'v1') {
  const c = { calls: 0, value: initial, load: async () => (c.calls++, c.value) };
  return c;
}

/** A load the test settles by hand. */
function deferred() {
  let settle!: { resolve: (text: string) => void; reject: (err: Error) => void };
  const text = new Promise<string>((resolve, reject) => (settle = { resolve, reject }));
  return { load: () => text, ...settle };
}

describe('owner cache (docs/decisions/0059)', () => {
  it('reads once, serves the kept answer until its owner changes, then reads again', async () => {
    const fake = fakeInvalidations();
    const cache = createOwnerCache({ invalidations: fake.invalidations, topic: 'agents', maxChars: 1_000 });
    const db = counter('[1]');
    expect(await cache.get('ann', 'all', db.load)).toBe('[1]');
    expect(await cache.get('ann', 'all', db.load)).toBe('[1]');
    expect(db.calls).toBe(1);
    db.value = '[1,2]';
    fake.change('ann');
    expect(await cache.get('ann', 'all', db.load)).toBe('[1,2]');
    expect(db.calls).toBe(2);
  });

  it('keeps owners and variants apart; a change drops only its owner, and "*" drops every owner', async () => {
    const fake = fakeInvalidations();
    const cache = createOwnerCache({ invalidations: fake.invalidations, topic: 'notifications', maxChars: 1_000 });
    const ann = counter('ann');
    const bob = counter('bob');
    await cache.get('ann', '20', ann.load);
    await cache.get('ann', '5', ann.load);
    await cache.get('bob', '20', bob.load);
    expect([ann.calls, bob.calls]).toEqual([2, 1]);
    fake.change('ann', 'agents'); // another topic: not this cache's
    fake.change('ann', 'notifications');
    await cache.get('ann', '20', ann.load);
    await cache.get('bob', '20', bob.load);
    expect([ann.calls, bob.calls]).toEqual([3, 1]);
    fake.change('*', 'notifications');
    await cache.get('bob', '20', bob.load);
    expect(bob.calls).toBe(2);
  });

  it('concurrent requests share one read', async () => {
    const fake = fakeInvalidations();
    const cache = createOwnerCache({ invalidations: fake.invalidations, topic: 'agents', maxChars: 1_000 });
    const db = counter();
    const answers = await Promise.all(Array.from({ length: 50 }, () => cache.get('ann', 'all', db.load)));
    expect(new Set(answers)).toEqual(new Set(['v1']));
    expect(db.calls).toBe(1);
  });

  it('a change while a read is on its way: requests from then on do not get that read', async () => {
    const fake = fakeInvalidations();
    const cache = createOwnerCache({ invalidations: fake.invalidations, topic: 'agents', maxChars: 1_000 });
    const slow = deferred();
    const before = cache.get('ann', 'all', slow.load);
    fake.change('ann'); // committed while the read was queued or running
    const after = counter('new');
    const next = cache.get('ann', 'all', after.load);
    slow.resolve('old');
    expect(await before).toBe('old'); // began before the change: either answer is right for it
    expect(await next).toBe('new');
    expect(await cache.get('ann', 'all', after.load)).toBe('new');
    expect(after.calls).toBe(1);
    expect(cache.stats()).toEqual({ owners: 1, chars: 3 }); // the old read, settled late, is not counted
  });

  it('a failed read is not kept', async () => {
    const fake = fakeInvalidations();
    const cache = createOwnerCache({ invalidations: fake.invalidations, topic: 'agents', maxChars: 1_000 });
    const failing = deferred();
    const first = cache.get('ann', 'all', failing.load);
    failing.reject(new Error('database unavailable'));
    await expect(first).rejects.toThrow('database unavailable');
    const db = counter();
    expect(await cache.get('ann', 'all', db.load)).toBe('v1');
    expect(db.calls).toBe(1);
    expect(cache.stats().owners).toBe(1);
  });

  it('keeps nothing where changes are not announced (PostgreSQL) or could be missed', async () => {
    const fake = fakeInvalidations({ announced: false });
    const cache = createOwnerCache({ invalidations: fake.invalidations, topic: 'agents', maxChars: 1_000 });
    const db = counter();
    await cache.get('ann', 'all', db.load);
    await cache.get('ann', 'all', db.load);
    expect(db.calls).toBe(2);
    fake.state.announced = true;
    fake.state.reliable = false;
    await cache.get('ann', 'all', db.load);
    expect(db.calls).toBe(3);
    expect(cache.stats().owners).toBe(0);
    fake.state.reliable = true;
    await cache.get('ann', 'all', db.load);
    fake.reset(); // reliability lost: everything goes
    expect(cache.stats()).toEqual({ owners: 0, chars: 0 });
  });

  it('is bounded: beyond its characters or owners, the least recently used owners go', async () => {
    const fake = fakeInvalidations();
    const cache = createOwnerCache({ invalidations: fake.invalidations, topic: 'agents', maxChars: 25, maxOwners: 3 });
    const tenChars = async () => '0123456789';
    await cache.get('a', 'all', tenChars);
    await cache.get('b', 'all', tenChars);
    await cache.get('a', 'all', tenChars); // a used again: b is now the least recent
    await cache.get('c', 'all', tenChars);
    await Promise.resolve();
    expect(cache.stats()).toEqual({ owners: 2, chars: 20 });
    const b = counter();
    await cache.get('b', 'all', b.load);
    expect(b.calls).toBe(1); // b was the one dropped
    for (const owner of ['d', 'e', 'f']) await cache.get(owner, 'all', async () => 'x');
    expect(cache.stats().owners).toBe(3);
  });
});
