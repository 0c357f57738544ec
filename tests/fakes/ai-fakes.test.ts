import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_AI_KEYS } from './ai-providers.ts';

// The journeys steer the fake AI providers as a separate process; these pin down its structured
// answers (docs/decisions/0075) and the control that sets them, and that it refuses what the
// real APIs refuse.

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});

async function standalone(): Promise<Record<string, string>> {
  const child = spawn(process.execPath, [fileURLToPath(new URL('./ai-providers.ts', import.meta.url))], { env: { ...process.env, FAKE_AI_PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  const env: Record<string, string> = {};
  for await (const line of createInterface({ input: child.stdout! })) {
    const [key, ...value] = line.split('=');
    env[key!] = value.join('=');
    if (Object.keys(env).length === 11) break;
  }
  return env;
}

const STRICT = { type: 'object', properties: { a: { type: 'number' } }, required: ['a'], additionalProperties: false };

describe('fake AI providers: structured output', () => {
  it('answers a structured request as set over HTTP, in the API’s own shape, and refuses what the real APIs refuse', async () => {
    const env = await standalone();
    const root = env.OPENAI_BASE_URL!.replace(/\/openai\/v1$/, '');
    const control = (body: unknown) => fetch(`${root}/__control/structured`, { method: 'POST', body: JSON.stringify(body) });
    const openai = (format: unknown) =>
      fetch(`${env.OPENAI_BASE_URL}/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${FAKE_AI_KEYS.openai}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', input: [{ role: 'user', content: [{ type: 'input_text', text: 'a number' }] }], text: { format } }),
      });

    expect((await control({ provider: 'openai', reply: { kind: 'json', value: { a: 1 } } })).status).toBe(200);
    const answered = await openai({ type: 'json_schema', name: 'n', strict: true, schema: STRICT });
    expect(answered.status).toBe(200);
    const body = (await answered.json()) as { status: string; output: Array<{ content: Array<{ type: string; text: string }> }>; usage: { output_tokens: number } };
    expect(body.status).toBe('completed');
    expect(body.output[0]!.content[0]).toMatchObject({ type: 'output_text', text: '{"a":1}' });
    expect(body.usage.output_tokens).toBe(2);

    // OpenAI's strict mode: every property required.
    const loose = await openai({ type: 'json_schema', name: 'n', strict: true, schema: { ...STRICT, properties: { a: { type: 'number' }, b: { type: 'string' } } } });
    expect(loose.status).toBe(400);
    expect(await loose.json()).toMatchObject({ error: { code: 'invalid_json_schema', message: expect.stringContaining("Missing 'b'") } });

    // OpenAI's refusal: its own content part.
    await control({ provider: 'openai', reply: { kind: 'refusal' } });
    const refused = (await (await openai({ type: 'json_schema', name: 'n', strict: true, schema: STRICT })).json()) as { output: Array<{ content: Array<{ type: string }> }> };
    expect(refused.output[0]!.content[0]!.type).toBe('refusal');

    // DeepSeek's JSON mode needs the word "json" in the prompt.
    const deepseek = await fetch(`${env.DEEPSEEK_BASE_URL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FAKE_AI_KEYS.deepseek}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'deepseek-chat', messages: [{ role: 'user', content: 'a number' }], response_format: { type: 'json_object' } }),
    });
    expect(deepseek.status).toBe(400);
    expect(await deepseek.json()).toMatchObject({ error: { message: expect.stringContaining("must contain the word 'json'") } });

    expect((await control({ provider: 'openai', reply: { kind: 'poem' } })).status).toBe(400);
    const { requests } = (await (await fetch(`${root}/__control/requests`)).json()) as { requests: Array<{ structured?: { format: string } }> };
    expect(requests.map((r) => r.structured?.format)).toEqual(['json_schema', 'json_schema', 'json_schema', 'json_object']);
  });
});
