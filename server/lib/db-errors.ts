import { AppError } from './errors.ts';

/** Node socket errors and PostgreSQL SQLSTATE classes that mean "cannot reach the database". */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);
const UNAVAILABLE_SQLSTATE = /^(08|57P0[1-3]|53300)/; // connection exception, shutdown, too many connections

export function isDatabaseUnavailable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (
      typeof message === 'string' &&
      /Connection terminated|timeout exceeded when trying to connect|PGlite is closed|Client has encountered a connection error|Cannot use a pool after calling end/i.test(message)
    ) {
      return true;
    }
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

export const FOREIGN_KEY_VIOLATION = '23503';

/** The SQLSTATE of a driver error, which drizzle wraps as the cause of its own. */
export function sqlState(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** PostgreSQL aborted the transaction to break a deadlock: it changed nothing, and may be run again. */
export const DEADLOCK_DETECTED = '40P01';

/**
 * Runs `work` (a whole transaction) again when PostgreSQL aborts it to break a deadlock, up to
 * `attempts` times in all. Statements that lock many rows take them in one order
 * (docs/decisions/0063), so this is a second line: a cycle nobody foresaw costs a retry, not a
 * 500 or a lost batch.
 */
export async function retryOnDeadlock<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (err) {
      if (sqlState(err) !== DEADLOCK_DETECTED || attempt >= attempts) throw err;
    }
  }
}

export const UNIQUE_VIOLATION = '23505';

/**
 * The refusal of a name a user already gave to another of their `things` (a project, a preset),
 * and a wrapper for the write: the service checks first for the plain answer, and the unique
 * index refuses the second of two saves of one name at once, which answers the same.
 */
export function uniqueNameRule(thing: string) {
  const nameTaken = (name: string) => new AppError('CONFLICT', 'Invalid request', [{ path: 'name', message: `You already have a ${thing} named ${name}` }]);
  const orNameTaken = async <T>(name: string | undefined, write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } catch (err) {
      if (name !== undefined && sqlState(err) === UNIQUE_VIOLATION) throw nameTaken(name);
      throw err;
    }
  };
  return { nameTaken, orNameTaken };
}
