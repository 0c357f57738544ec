import type { z } from 'zod';
import { AppError, type ErrorDetail } from './errors.ts';

/** Request input parsed with its contract: the value, or every field it refuses with its rule. */
export type TCheckedInput<T> = { ok: true; data: T } | { ok: false; problems: ErrorDetail[] };

/** Checks request input with its contract without throwing: every refused field, or the value. */
export function checkInput<S extends z.ZodType>(schema: S, value: unknown): TCheckedInput<z.output<S>> {
  const result = schema.safeParse(value);
  if (!result.success) {
    return {
      ok: false,
      problems: result.error.issues.map((issue) => ({
        path: issue.path.map(String).join('.') || '(root)',
        message: issue.message,
      })),
    };
  }
  const unstorable = unstorableText(result.data);
  return unstorable.length > 0 ? { ok: false, problems: unstorable } : { ok: true, data: result.data };
}

/** Parses request input with its contract; bad input becomes 400 with each field and rule. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const checked = checkInput(schema, value);
  if (!checked.ok) throw new AppError('BAD_REQUEST', 'Invalid request', checked.problems);
  return checked.data;
}

const UNSTORABLE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired surrogates';
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const isUnstorable = (text: string) => text.includes('\u0000') || UNPAIRED_SURROGATE.test(text);

/**
 * Every string (and object key) in parsed input that PostgreSQL cannot take: text columns
 * refuse NUL and jsonb refuses an unpaired surrogate, each as a database error (a 500), and
 * text columns quietly turn a lone surrogate into U+FFFD. One rule for every field, here,
 * so a new field cannot forget it. Walks without recursion, and builds a path only for what
 * it reports: the shape is the contract's, but a value it passes through may be deep.
 */
function unstorableText(value: unknown): ErrorDetail[] {
  type Step = { key: string; parent: Step | null } | null;
  const pathOf = (step: Step): string => {
    const keys: string[] = [];
    for (let s = step; s; s = s.parent) keys.push(s.key);
    return keys.reverse().join('.') || '(root)';
  };
  const found: ErrorDetail[] = [];
  const pending: Array<{ value: unknown; step: Step }> = [{ value, step: null }];
  while (pending.length > 0) {
    const { value: item, step } = pending.pop()!;
    if (typeof item === 'string') {
      if (isUnstorable(item)) found.push({ path: pathOf(step), message: UNSTORABLE_TEXT_MESSAGE });
    } else if (item !== null && typeof item === 'object') {
      for (const [key, child] of Object.entries(item)) {
        const childStep = { key, parent: step };
        if (isUnstorable(key)) found.push({ path: pathOf(childStep), message: `key ${UNSTORABLE_TEXT_MESSAGE}` });
        pending.push({ value: child, step: childStep });
      }
    }
  }
  return found;
}
