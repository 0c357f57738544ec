import { describe, expect, it } from 'vitest';
import { buildQuantizedIndex, bytesToVector, dot, vectorToBytes } from './vector-index.ts';
import { createVectorCache } from './vector-cache.ts';
import { fuseByRank } from './fusion.ts';

/** A deterministic unit vector (a seeded generator), so the exact ranking can be computed by hand. */
function unitVector(seed: number, dims: number): Float32Array {
  let s = seed * 2654435761;
  const v = new Float32Array(dims);
  for (let i = 0; i < dims; i++) {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    v[i] = s / 2 ** 32 - 0.5;
  }
  const norm = Math.sqrt(dot(v, v));
  return v.map((x) => x / norm);
}

describe('the int8 vector index', () => {
  const dims = 64;
  const rows = Array.from({ length: 300 }, (_, i) => ({ passageId: `p${i}`, documentId: `d${i % 3}`, vector: unitVector(i + 1, dims) }));
  const index = buildQuantizedIndex(rows, dims);

  it('finds the exact best rows among its candidates (quantization moves scores, not the winners)', () => {
    const query = unitVector(1000, dims);
    const exact = rows
      .map((row) => ({ id: row.passageId, score: dot(row.vector, query) }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 5)
      .map((r) => r.id);
    const found = index.search(query, new Set(['d0', 'd1', 'd2']), 50).map((r) => r.passageId);
    expect(found).toHaveLength(50);
    for (const id of exact) expect(found).toContain(id);
    // The top one survives quantization as the top one or very near it.
    expect(found.slice(0, 3)).toContain(exact[0]);
  });

  it('ranks a row identical to the question first, with a score near 1', () => {
    const [best] = index.search(rows[42]!.vector, new Set(['d0', 'd1', 'd2']), 3);
    expect(best!.passageId).toBe('p42');
    expect(best!.score).toBeCloseTo(1, 1);
  });

  it('searches only the documents in scope', () => {
    const found = index.search(rows[42]!.vector, new Set(['d1']), 500);
    expect(found).toHaveLength(100);
    expect(found.every((r) => Number(r.passageId.slice(1)) % 3 === 1)).toBe(true);
    expect(found.map((r) => r.passageId)).not.toContain('p42');
    expect(index.search(rows[0]!.vector, new Set(['elsewhere']), 10)).toEqual([]);
  });

  it('returns its candidates best first', () => {
    const scores = index.search(unitVector(7, dims), new Set(['d0', 'd1', 'd2']), 20).map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('keeps a quarter of float32 for the vectors', () => {
    expect(index.bytes).toBeLessThan(300 * dims * 4);
  });

  it('refuses a question of other dimensions', () => {
    expect(() => index.search(new Float32Array(32), new Set(['d0']), 5)).toThrow(/32 dimensions/);
  });

  it('stores vectors as little-endian float32 bytes and reads them back', () => {
    const v = unitVector(3, dims);
    const bytes = vectorToBytes(v);
    expect(bytes.byteLength).toBe(dims * 4);
    expect(Array.from(bytesToVector(bytes))).toEqual(Array.from(v));
    // A view into a larger buffer (as a driver may give a bytea) reads the same.
    const padded = new Uint8Array(bytes.byteLength + 8);
    padded.set(bytes, 3);
    expect(Array.from(bytesToVector(padded.subarray(3, 3 + bytes.byteLength)))).toEqual(Array.from(v));
  });
});

describe('reciprocal rank fusion', () => {
  it('puts an item both lists found above items only one found, and keeps items only one list has', () => {
    const fused = fuseByRank(
      [
        ['a', 'b', 'c'],
        ['x', 'b', 'y'],
      ],
      10,
    ).map((r) => r.id);
    expect(fused[0]).toBe('b');
    expect(fused).toEqual(expect.arrayContaining(['a', 'c', 'x', 'y']));
    expect(fused).toHaveLength(5);
  });

  it('scores 1 / (60 + rank) per list', () => {
    const [top] = fuseByRank([['a'], ['a']], 1);
    expect(top!.score).toBeCloseTo(2 / 61, 10);
  });

  it('cuts to the limit, ties to the earlier-seen item', () => {
    expect(fuseByRank([['a', 'b'], ['c', 'd']], 2).map((r) => r.id)).toEqual(['a', 'c']);
  });
});

describe('the vector cache', () => {
  const indexOf = (bytes: number) => ({ dims: 1, size: 1, bytes, row: () => null, search: () => [] });

  it('serves an entry for its version and model only', () => {
    const cache = createVectorCache(1000);
    cache.set('u1', { version: 3, model: 'm', index: indexOf(100) });
    expect(cache.get('u1', 3, 'm')).not.toBeNull();
    expect(cache.get('u1', 3, 'other')).toBeNull();
    expect(cache.get('u1', 4, 'm')).toBeNull();
    // A stale entry is kept for its rows until the next version replaces it.
    expect(cache.stale('u1', 'm')).not.toBeNull();
    expect(cache.stale('u1', 'other')).toBeNull();
  });

  it('drops the least recently used entries past its bound, and keeps none larger than it', () => {
    const cache = createVectorCache(250);
    cache.set('a', { version: 1, model: 'm', index: indexOf(100) });
    cache.set('b', { version: 1, model: 'm', index: indexOf(100) });
    cache.get('a', 1, 'm'); // a is now the most recent
    cache.set('c', { version: 1, model: 'm', index: indexOf(100) });
    expect(cache.get('b', 1, 'm')).toBeNull();
    expect(cache.get('a', 1, 'm')).not.toBeNull();
    expect(cache.get('c', 1, 'm')).not.toBeNull();
    expect(cache.bytes()).toBe(200);
    cache.set('huge', { version: 1, model: 'm', index: indexOf(300) });
    expect(cache.get('huge', 1, 'm')).toBeNull();
    expect(cache.bytes()).toBe(200);
  });
});

describe('the int8 vector index at dimensions not a multiple of four', () => {
  it('pads each row to whole words and still ranks an identical row first', () => {
    const dims = 66;
    const rows = Array.from({ length: 40 }, (_, i) => ({ passageId: `p${i}`, documentId: 'd', vector: unitVector(i + 11, dims) }));
    const index = buildQuantizedIndex(rows, dims);
    for (const probe of [0, 17, 39]) expect(index.search(rows[probe]!.vector, new Set(['d']), 1)[0]!.passageId).toBe(`p${probe}`);
  });
});

describe('an index built on the one before', () => {
  it('carries rows it already holds and quantizes only the new ones, ranking as a fresh build does', () => {
    const dims = 64;
    const rows = Array.from({ length: 50 }, (_, i) => ({ passageId: `p${i}`, documentId: 'd', vector: unitVector(i + 100, dims) }));
    const before = buildQuantizedIndex(rows.slice(0, 40), dims);
    const carried = rows.slice(5, 40).map((r) => ({ passageId: r.passageId, documentId: r.documentId, ...before.row(r.passageId)! }));
    const next = buildQuantizedIndex([...carried, ...rows.slice(40)], dims);
    const fresh = buildQuantizedIndex(rows.slice(5), dims);
    const query = unitVector(999, dims);
    expect(next.search(query, new Set(['d']), 10)).toEqual(fresh.search(query, new Set(['d']), 10));
    expect(next.row('p0')).toBeNull();
    expect(next.size).toBe(45);
  });
});
