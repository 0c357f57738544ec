import { ADMIN_EMAIL } from '../e2e/support/constants.ts';

/** What the fault tests need to talk to a real server process over HTTP, as a browser would. */

/** Longest a request may take before a fault test calls it hung. */
export const HANG_LIMIT_MS = 8_000;

/** Signs in locally (ADMIN_EMAIL is the server's admin); returns the headers a signed-in call carries. */
export async function signIn(url: string, email = ADMIN_EMAIL): Promise<{ cookie: string; origin: string }> {
  const res = await fetch(`${url}/api/auth/local/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url },
    body: JSON.stringify({ email, name: 'Fault Test' }),
    signal: AbortSignal.timeout(HANG_LIMIT_MS),
  });
  if (res.status !== 200) throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  return { cookie: res.headers.getSetCookie()[0]!.split(';')[0]!, origin: url };
}

export type Answer = { path: string; sentAt: number; status: number | 'no answer'; body: string; error?: string };

/** One request, never throwing: a refused connection or a hang becomes `'no answer'`. */
export async function ask(url: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const sentAt = Date.now();
  try {
    const res = await fetch(`${url}${path}`, { ...init, signal: AbortSignal.timeout(HANG_LIMIT_MS) });
    return { path, sentAt, status: res.status, body: await res.text() };
  } catch (err) {
    return { path, sentAt, status: 'no answer', body: '', error: err instanceof Error ? `${err.message} ${String(err.cause ?? '')}` : String(err) };
  }
}

/**
 * `loops` clients each cycling through `paths` with the session's cookie until stopped, like
 * signed-in users reading the app; every answer is kept for the test to judge.
 */
export function signedInTraffic(url: string, headers: Record<string, string>, paths: readonly string[], loops = 10) {
  const answers: Answer[] = [];
  let running = true;
  const done = Promise.all(
    Array.from({ length: loops }, async (_, loop) => {
      for (let i = loop; running; i++) {
        answers.push(await ask(url, paths[i % paths.length]!, { headers }));
        await new Promise((r) => setTimeout(r, 20));
      }
    }),
  );
  return {
    answers,
    async stop(): Promise<Answer[]> {
      running = false;
      await done;
      return answers;
    },
  };
}
