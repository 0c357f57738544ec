import type { z } from 'zod';
import { AppError } from './errors.ts';

/** Parses request input with its contract; bad input becomes 400 with each field and rule. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new AppError(
    'BAD_REQUEST',
    'Invalid request',
    result.error.issues.map((issue) => ({
      path: issue.path.map(String).join('.') || '(root)',
      message: issue.message,
    })),
  );
}
