import { setImmediate as nextTurn } from 'node:timers/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { capYoungGeneration, collectGarbageAndShrink, v8FlagsFor } from './v8-memory.ts';

const newSpaceBytes = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!.space_size;

describe('V8 memory settings for the embedded database (docs/decisions/0054)', () => {
  it('sets flags only with PGlite', () => {
    expect(v8FlagsFor('postgres')).toEqual([]);
    expect(v8FlagsFor('pglite')).toEqual(expect.arrayContaining(['--liftoff-only', '--no-wasm-tier-up', '--heap-growing-percent=100']));
  });

  it('returns a grown young generation to the system', () => {
    // Objects that survive a few young collections make V8 grow the young generation.
    const ring: Array<{ n: number; text: string }> = new Array(200_000);
    for (let i = 0; i < 3_000_000; i++) ring[i % ring.length] = { n: i, text: `item ${i}` };
    const grown = newSpaceBytes();
    collectGarbageAndShrink();
    expect(newSpaceBytes()).toBeLessThan(grown);
    expect(ring.length).toBe(200_000);
  });

  it('keeps the young generation at its cap while the process runs, and lets it grow once released', async () => {
    /** Allocation that grows the young generation, in turns (the cap is applied between them). */
    const churn = async (perTurn: number) => {
      const ring: Array<{ n: number; text: string }> = new Array(200_000);
      for (let turn = 0; turn < 60; turn++) {
        for (let i = 0; i < perTurn; i++) ring[i % ring.length] = { n: i, text: `item ${turn} ${i}` };
        await nextTurn();
      }
      return ring.length;
    };
    collectGarbageAndShrink();
    const cap = 4 * 1024 * 1024;
    const release = capYoungGeneration(cap);
    try {
      // Little allocation a turn, as a server's requests: several doublings fit in one big turn.
      await churn(10_000);
      // One doubling past the cap at most.
      expect(newSpaceBytes()).toBeLessThanOrEqual(2 * cap);
    } finally {
      release();
    }
    await churn(50_000);
    expect(newSpaceBytes()).toBeGreaterThan(2 * cap);
  });
});

