import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpFetch } from './http-fetch.ts';

let server: Server;
let base: string;
const held: ServerResponse[] = [];
let lastRequest: { method?: string; headers: Record<string, unknown>; body: string } | null = null;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      lastRequest = { method: req.method, headers: req.headers, body };
      if (req.url === '/json') {
        res.writeHead(201, { 'content-type': 'application/json', 'x-request-id': 'abc' });
        res.end(JSON.stringify({ echo: body }));
      } else if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: one\n\n');
        setTimeout(() => res.end('data: two\n\n'), 20);
      } else if (req.url === '/hang-body') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: first\n\n');
        held.push(res);
      } else if (req.url === '/hang') {
        held.push(res);
      } else {
        res.writeHead(204).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const res of held) res.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('httpFetch', () => {
  it('sends method, headers and a string body, and returns status, headers and body', async () => {
    const res = await httpFetch(`${base}/json`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer k' }, body: '{"a":1}' });
    expect(res.status).toBe(201);
    expect(res.ok).toBe(true);
    expect(res.headers.get('x-request-id')).toBe('abc');
    expect(await res.json()).toEqual({ echo: '{"a":1}' });
    expect(lastRequest).toMatchObject({ method: 'POST', body: '{"a":1}', headers: { authorization: 'Bearer k', 'content-length': '7' } });
  });

  it('sends headers given as a plain object (any case, undefined left out), a Headers or pairs alike', async () => {
    const plain = { 'X-Api-Key': 'k1', 'Content-Type': 'application/json', 'x-skipped': undefined } as unknown as Record<string, string>;
    for (const headers of [plain, new Headers({ 'X-Api-Key': 'k1', 'Content-Type': 'application/json' }), [['X-Api-Key', 'k1'], ['Content-Type', 'application/json']] as [string, string][]]) {
      await httpFetch(`${base}/json`, { method: 'POST', headers, body: '{}' });
      expect(lastRequest!.headers).toMatchObject({ 'x-api-key': 'k1', 'content-type': 'application/json', 'content-length': '2' });
      expect(lastRequest!.headers).not.toHaveProperty('x-skipped');
    }
  });

  it('streams the body as it arrives', async () => {
    const res = await httpFetch(`${base}/stream`, { method: 'POST', body: '' });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toBe('data: one\n\n');
    let rest = '';
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += new TextDecoder().decode(chunk.value);
    expect(rest).toBe('data: two\n\n');
  });

  it('gives a null body for 204', async () => {
    const res = await httpFetch(`${base}/empty`);
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
  });

  it('rejects with the signal reason when aborted before the answer', async () => {
    const controller = new AbortController();
    const pending = httpFetch(`${base}/hang`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('client went away')), 20);
    await expect(pending).rejects.toThrow('client went away');
  });

  it('rejects at once with an AbortError for an already aborted signal', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(httpFetch(`${base}/json`, { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });

  it('errors the body stream when aborted mid-answer', async () => {
    const controller = new AbortController();
    const res = await httpFetch(`${base}/hang-body`, { signal: controller.signal });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort(new Error('timeout'));
    await expect(reader.read()).rejects.toThrow('timeout');
  });

  it('rejects with TypeError fetch failed, the socket error as cause, when nothing listens', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const err = await httpFetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TypeError);
    expect((err as TypeError).message).toBe('fetch failed');
    expect(((err as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNREFUSED');
  });

  it('refuses protocols other than http and https', async () => {
    await expect(httpFetch('file:///etc/passwd')).rejects.toThrow('unsupported protocol');
  });
});
