import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from './errors.ts';
import { parseInput } from './validate.ts';

const schema = z.object({ title: z.string(), tags: z.array(z.string()), extra: z.record(z.string(), z.unknown()).optional() });
const refusal = (value: unknown) => {
  try {
    parseInput(schema, value);
  } catch (err) {
    if (err instanceof AppError) return { status: err.status, details: err.details };
    throw err;
  }
  return null;
};
const RULE = 'must not contain NUL characters or unpaired surrogates';

describe('parseInput', () => {
  it('reports each field the contract refuses, with its rule', () => {
    expect(refusal({ title: 1, tags: [] })).toEqual({ status: 400, details: [{ path: 'title', message: 'Invalid input: expected string, received number' }] });
  });

  it('refuses text PostgreSQL cannot store (NUL, unpaired surrogates) in values and keys, naming each place', () => {
    expect(refusal({ title: 'a\u0000b', tags: ['ok', 'x\uD800'], extra: { '\uDC00': 1, fine: 'y\uDFFF' } })).toEqual({
      status: 400,
      details: expect.arrayContaining([
        { path: 'title', message: RULE },
        { path: 'tags.1', message: RULE },
        { path: 'extra.\uDC00', message: `key ${RULE}` },
        { path: 'extra.fine', message: RULE },
      ]),
    });
  });

  it('accepts well-formed text of any script, emoji included', () => {
    expect(refusal({ title: 'Ünïcødé 😀 👩‍👩‍👧 \u202Eltr', tags: ['𝕏', 'e\u0301'] })).toBeNull();
  });

  it('walks a deeply nested value without overflowing the stack', () => {
    let deep: unknown = 'bottom\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(refusal({ title: 't', tags: [], extra: { deep } })?.details?.[0]).toEqual({ path: `extra.deep.${Array(100_000).fill('0').join('.')}`, message: RULE });
  });
});
