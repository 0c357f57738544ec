import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import pino, { type Logger } from 'pino';
import { loggerOptions } from '../lib/logger.ts';
import type { TestApp } from './test-app.ts';

/** The app's own logger settings (redaction included) at the most verbose level, writing each
 * line to memory instead of stdout. */
export function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = pino(loggerOptions('trace'), { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

/** The forms a secret may take on its way out: as is, base64 (SMTP AUTH, Basic auth) and
 * URL-encoded. */
export function encodings(secret: string): string[] {
  return [...new Set([secret, Buffer.from(secret).toString('base64'), Buffer.from(secret).toString('base64url'), encodeURIComponent(secret)])];
}

/** Each haystack that contains any form of a secret, named `label: secret name`. */
export function leaks(haystacks: Array<{ label: string; text: string }>, secrets: Record<string, string[]>): string[] {
  const found: string[] = [];
  for (const { label, text } of haystacks) {
    for (const [name, forms] of Object.entries(secrets)) {
      if (forms.some((form) => text.includes(form))) found.push(`${label}: ${name}`);
    }
  }
  return found;
}

export type Recorded = { label: string; response: LightMyRequestResponse };

/** `t.request`, keeping every response for the scan. */
export function recordingClient(t: TestApp, recorded: Recorded[]) {
  return async (options: InjectOptions & { cookie?: string }): Promise<LightMyRequestResponse> => {
    const response = await t.request(options);
    recorded.push({ label: `${options.method ?? 'GET'} ${String(options.url)} -> ${response.statusCode}`, response });
    return response;
  };
}

/** What a response shows: every header but Set-Cookie (which carries a session to its owner
 * and is checked on its own), and the body. */
export function visibleText({ response }: Recorded): string {
  const headers = Object.entries(response.headers).filter(([name]) => name !== 'set-cookie');
  return `${JSON.stringify(headers)}\n${response.body}`;
}

export function setCookies({ response }: Recorded): string {
  const header = response.headers['set-cookie'];
  return header === undefined ? '' : [header].flat().join('\n');
}

/** The session tokens the responses handed out (a cleared cookie has an empty value). */
export function sessionTokens(recorded: Recorded[]): string[] {
  return recorded.flatMap(({ response }) => response.cookies.filter((c) => (c.name === 'sid' || c.name === '__Host-sid') && c.value !== '').map((c) => c.value));
}
