import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

/**
 * compose.yaml as the container test reads it, so that what it runs is what the file says: each
 * service's environment (with compose's ${...} interpolation) and its health check. Only what
 * the test uses is typed; the rest of the file is compose's business.
 */

export type ComposeHealthcheck = { test: string[] | string; interval?: string; timeout?: string; retries?: number; start_period?: string };
export type ComposeService = {
  image?: string;
  command?: string[];
  env_file?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  healthcheck?: ComposeHealthcheck;
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
};
export type ComposeFile = { services: Record<string, ComposeService>; volumes?: Record<string, unknown> };

export function readCompose(file: string): ComposeFile {
  // merge: compose.yaml shares the web's and the worker's wiring with `<<: *anchor`.
  return parse(readFileSync(file, 'utf8'), { merge: true }) as ComposeFile;
}

export function service(compose: ComposeFile, name: string): ComposeService {
  const found = compose.services[name];
  if (!found) throw new Error(`compose.yaml has no service ${name}`);
  return found;
}

/**
 * Compose's interpolation of one value: `$$` is a dollar, `${NAME}` and `$NAME` the variable (empty
 * when unset), `${NAME:-default}` / `${NAME-default}` a default when unset or empty / unset,
 * `${NAME:?message}` / `${NAME?message}` an error when unset or empty / unset.
 */
export function interpolate(value: string, variables: Record<string, string | undefined>): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (match, braced?: string, colon?: string, operator?: string, word?: string, bare?: string) => {
    if (match === '$$') return '$';
    const name = (braced ?? bare)!;
    const current = variables[name];
    const missing = current === undefined || (colon === ':' && current === '');
    if (operator === '-') return missing ? word! : current!;
    if (operator === '?' && missing) throw new Error(`compose.yaml: ${name}: ${word || 'required'}`);
    return current ?? '';
  });
}

/** A service's `environment:` as the container gets it, interpolated with `variables` (.env's). */
export function serviceEnvironment(compose: ComposeFile, name: string, variables: Record<string, string | undefined>): Record<string, string> {
  const environment = service(compose, name).environment ?? {};
  const entries = Array.isArray(environment)
    ? environment.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const)
    : Object.entries(environment).map(([key, value]) => [key, value === null ? '' : String(value)] as const);
  return Object.fromEntries(entries.map(([key, value]) => [key, interpolate(value, variables)]));
}

/**
 * A service's health check as `podman run --health-cmd` takes it: a JSON array for compose's
 * ["CMD", ...] (run as is), a string for ["CMD-SHELL", "..."] or a plain string (run by /bin/sh -c).
 */
export function healthCommand(check: ComposeHealthcheck, variables: Record<string, string | undefined>): string {
  if (typeof check.test === 'string') return interpolate(check.test, variables);
  const [kind, ...rest] = check.test;
  const words = rest.map((word) => interpolate(word, variables));
  if (kind === 'CMD') return JSON.stringify(words);
  if (kind === 'CMD-SHELL') return words.join(' ');
  throw new Error(`compose.yaml: a health check's test starts with CMD or CMD-SHELL, not ${kind}`);
}

/** An env file's KEY=value lines (compose's and podman's --env-file format, without quotes). */
export function readEnvFile(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((line) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}
