import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { drainConnectionsOnClose } from './drain.ts';

describe('drainConnectionsOnClose', () => {
  it('close() lets the request in flight finish, then drops a connection that never sent a request', async () => {
    const app = Fastify();
    drainConnectionsOnClose(app);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const inHandler = new Promise<void>((resolve) => (arrived = resolve));
    app.get('/slow', async () => {
      arrived();
      await released;
      return { done: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;

    const slow = fetch(`http://127.0.0.1:${port}/slow`).then(async (res) => ({ status: res.status, body: await res.json() }));
    await inHandler;
    // Connected, never asks anything: without the drain, close() would wait on it for good.
    const silent = connect(port, '127.0.0.1');
    await new Promise((resolve) => silent.once('connect', resolve));
    const silentClosed = new Promise<void>((resolve) => silent.once('close', () => resolve()));
    silent.on('error', () => {});

    let closed = false;
    const closing = app.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(closed).toBe(false); // still answering /slow

    release();
    expect(await slow).toEqual({ status: 200, body: { done: true } });
    await closing;
    await silentClosed;
  });

  it('close() at once closes kept-alive connections waiting for their next request, while one in flight finishes', async () => {
    const app = Fastify();
    drainConnectionsOnClose(app);
    // Another plugin's close work: Fastify answers 503 from the start of close() until it stops
    // listening after these hooks, so an idle connection left open meanwhile would bring a 503.
    let finishClosing!: () => void;
    const otherPreClose = new Promise<void>((resolve) => (finishClosing = resolve));
    app.addHook('preClose', async () => otherPreClose);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const inHandler = new Promise<void>((resolve) => (arrived = resolve));
    app.get('/slow', async () => {
      arrived();
      await released;
      return { done: true };
    });
    app.get('/quick', async () => ({ quick: true }));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;

    // A proxy's kept-alive connection: one request answered, the connection left open for the next.
    const idle = connect(port, '127.0.0.1');
    idle.on('error', () => {});
    let answered = '';
    idle.on('data', (d: Buffer) => (answered += d.toString()));
    idle.write('GET /quick HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await until(() => answered.includes('{"quick":true}'));
    const idleClosed = new Promise<void>((resolve) => idle.once('close', () => resolve()));

    const slow = fetch(`http://127.0.0.1:${port}/slow`).then(async (res) => ({ status: res.status, body: await res.json() }));
    await inHandler;
    const closing = app.close();
    await idleClosed; // closed while the other hook still works and /slow is still being answered
    finishClosing();
    release();
    expect(await slow).toEqual({ status: 200, body: { done: true } });
    await closing;
  });
});

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((r) => setTimeout(r, 10));
}
