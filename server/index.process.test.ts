import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { Agent, get as httpGet } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const entry = path.resolve(import.meta.dirname, 'index.ts');

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function start(env: Record<string, string>) {
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env.PATH, LOG_LEVEL: 'info', DATA_DIR: mkdtempSync(path.join(tmpdir(), 'srv-')), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

async function waitForHealth(url: string, deadline = Date.now() + 60_000): Promise<void> {
  while (Date.now() < deadline) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`no answer from ${url}`);
}

/** A GET over `agent`: its status, whether it reused a kept-alive connection, and the
 * server's Connection header. */
function getOver(agent: Agent, url: string): Promise<{ status: number; reusedSocket: boolean; connection: string | undefined }> {
  return new Promise((resolve, reject) => {
    const request = httpGet(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, reusedSocket: request.reusedSocket, connection: res.headers.connection }));
    });
    request.on('error', reject);
  });
}

describe('server process', () => {
  it('stops at start with a message naming a bad variable', async () => {
    const server = start({ PORT: 'eighty' });
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/Invalid configuration:\s+PORT:/);
  });

  it('serves on PGlite, then on SIGTERM stops accepting, closes the database and exits 0 within 10 s', async () => {
    const port = await freePort();
    const server = start({ PORT: String(port) });
    await waitForHealth(`http://127.0.0.1:${port}/api/health`);
    const keepAlive = await fetch(`http://127.0.0.1:${port}/api/articles`);
    expect(await keepAlive.json()).toEqual([]);
    // HTTP keep-alive: a second request goes over the first one's connection.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const first = await getOver(agent, `http://127.0.0.1:${port}/api/health`);
    const second = await getOver(agent, `http://127.0.0.1:${port}/api/articles`);
    agent.destroy();
    expect(first).toMatchObject({ status: 200, reusedSocket: false, connection: 'keep-alive' });
    expect(second).toMatchObject({ status: 200, reusedSocket: true, connection: 'keep-alive' });

    const signalledAt = Date.now();
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(10_000);
    expect(server.output()).toContain('shut down cleanly');
    await expect(fetch(`http://127.0.0.1:${port}/api/health`)).rejects.toThrow();
  }, 90_000);
});
