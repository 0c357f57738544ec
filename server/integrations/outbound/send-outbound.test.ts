import { createServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryLogger } from '../../test/memory-logger.ts';
import { until } from '../../test/until.ts';
import { startOutboundTarget, type OutboundTarget } from '../../../tests/fakes/outbound-target.ts';
import type { OutboundLookup } from './check-outbound-url.ts';
import { OutboundError } from './outbound-error.ts';
import { sendOutbound, type OutboundOptions } from './send-outbound.ts';

const targets: OutboundTarget[] = [];
afterEach(async () => {
  await Promise.all(targets.splice(0).map((t) => t.close()));
});

async function target(options: Parameters<typeof startOutboundTarget>[0] = {}) {
  const started = await startOutboundTarget(options);
  targets.push(started);
  return started;
}

/** A name that resolves to this machine once, and to a private address on every later lookup. */
function rebindingLookup(hostname: string) {
  const asked: string[] = [];
  const lookup: OutboundLookup = async (name) => {
    asked.push(name);
    if (name !== hostname) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return [{ address: asked.length === 1 ? '127.0.0.1' : '10.0.0.9', family: 4 }];
  };
  return { lookup, asked };
}

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OutboundError);
  return err as OutboundError;
}

const loopback: OutboundOptions = { allowLoopback: true };

describe('sendOutbound', () => {
  it('connects over https to the address it checked, with SNI, certificate and Host for the name, looking the name up once', async () => {
    const fake = await target({ tls: { names: ['hooks.example.test'] }, respond: (_req, res) => res.writeHead(200, { 'x-answer': 'yes' }).end('{"ok":true}') });
    const dns = rebindingLookup('hooks.example.test');
    const response = await sendOutbound(
      {
        url: `https://hooks.example.test:${fake.port}/services/T1/B2/secret?x=1`,
        method: 'POST',
        headers: { 'content-type': 'application/json', host: 'elsewhere.example', 'X-Signature': 'abc' },
        body: '{"text":"RSI 78.2"}',
      },
      { ...loopback, lookup: dns.lookup, ca: fake.cert! },
    );
    expect(response).toMatchObject({ status: 200, body: '{"ok":true}', truncated: false, headers: { 'x-answer': 'yes' } });
    // A second lookup would have answered 10.0.0.9: the connection used the first, checked answer.
    expect(dns.asked).toEqual(['hooks.example.test']);
    expect(fake.received).toHaveLength(1);
    expect(fake.received[0]).toMatchObject({
      method: 'POST',
      path: '/services/T1/B2/secret?x=1',
      body: '{"text":"RSI 78.2"}',
      servername: 'hooks.example.test',
      headers: { host: `hooks.example.test:${fake.port}`, 'content-type': 'application/json', 'x-signature': 'abc', 'content-length': '19' },
    });
  });

  it("refuses a receiver whose certificate is not trusted or not for the name, as the receiver's secure connection", async () => {
    const fake = await target({ tls: { names: ['hooks.example.test'] } });
    const dns = rebindingLookup('hooks.example.test');
    const untrusted = await failure(sendOutbound({ url: `https://hooks.example.test:${fake.port}/` }, { ...loopback, lookup: dns.lookup }));
    expect(untrusted.kind).toBe('tls');
    const otherName = rebindingLookup('other.example.test');
    const wrongName = await failure(sendOutbound({ url: `https://other.example.test:${fake.port}/` }, { ...loopback, lookup: otherName.lookup, ca: fake.cert! }));
    expect(wrongName.kind).toBe('tls');
    expect(fake.received).toHaveLength(0);
  });

  it('sends plain http to loopback only when OUTBOUND_ALLOW_LOOPBACK is set', async () => {
    const fake = await target({ respond: (_req, res) => res.writeHead(202).end('queued') });
    const url = `http://127.0.0.1:${fake.port}/hook`;
    const refused = await failure(sendOutbound({ url, body: 'x' }, { allowLoopback: false }));
    expect(refused.kind).toBe('not-https');
    const literal = await failure(sendOutbound({ url: `https://127.0.0.1:${fake.port}/hook` }, { allowLoopback: false }));
    expect(literal).toMatchObject({ kind: 'forbidden-address', detail: { range: 'loopback' } });
    expect(fake.connections).toBe(0);

    await expect(sendOutbound({ url, body: 'x' }, loopback)).resolves.toMatchObject({ status: 202, body: 'queued' });
    expect(fake.received).toHaveLength(1);
  });

  it('does not follow a redirect: a 3xx is a refusal, and the place it points to is never asked', async () => {
    const fake = await target({ respond: (_req, res) => res.writeHead(302, { location: `http://127.0.0.1:${fake.port}/internal` }).end() });
    const err = await failure(sendOutbound({ url: `http://127.0.0.1:${fake.port}/hook`, body: '{}' }, loopback));
    expect(err.kind).toBe('redirect');
    expect(err.detail).toMatchObject({ status: 302 });
    expect(err.message).toBe('The receiver answered with a redirect, which is not followed; use the address it redirects to.');
    expect(fake.received.map((r) => r.path)).toEqual(['/hook']);
  });

  it("returns a redirect unread when the caller asks to follow it by hand, and still follows none itself", async () => {
    const fake = await target({ respond: (_req, res) => res.writeHead(301, { location: '/moved', 'content-type': 'text/html' }).end('<p>moved</p>') });
    const answer = await sendOutbound({ url: `http://127.0.0.1:${fake.port}/page`, method: 'GET', redirects: 'return' }, loopback);
    expect(answer).toMatchObject({ status: 301, body: '', truncated: false, headers: { location: '/moved' } });
    expect(fake.received.map((r) => r.path)).toEqual(['/page']);
  });

  it('gives up on a receiver that does not answer in time', async () => {
    const fake = await target({ respond: () => undefined });
    const err = await failure(sendOutbound({ url: `http://127.0.0.1:${fake.port}/slow`, timeoutMs: 300 }, loopback));
    expect(err.kind).toBe('timeout');
    expect(err.retryable).toBe(true);
  });

  it('gives up on a connection whose TLS handshake does not end within the connect timeout', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as AddressInfo).port;
      const err = await failure(sendOutbound({ url: `https://127.0.0.1:${port}/` }, { ...loopback, connectTimeoutMs: 200 }));
      expect(err).toMatchObject({ kind: 'timeout', detail: { code: 'CONNECT_TIMEOUT' } });
    } finally {
      silent.close();
      await new Promise((resolve) => setImmediate(resolve));
    }
  });

  it("ends with the caller's own reason when the caller aborts", async () => {
    const fake = await target({ respond: () => undefined });
    const controller = new AbortController();
    const sent = sendOutbound({ url: `http://127.0.0.1:${fake.port}/`, signal: controller.signal }, loopback);
    await until(async () => fake.received.length, (n) => n === 1);
    controller.abort(new Error('shutting down'));
    await expect(sent).rejects.toThrow('shutting down');
  });

  it('gives up on a resolver that does not answer in time', async () => {
    const hanging: OutboundLookup = () => new Promise(() => undefined);
    const err = await failure(sendOutbound({ url: 'https://slow-dns.example.com/', timeoutMs: 200 }, { allowLoopback: false, lookup: hanging }));
    expect(err.kind).toBe('timeout');
  });

  it('reads at most maxResponseBytes of an answer and drops the rest', async () => {
    const big = 'a'.repeat(1024 * 1024);
    const fake = await target({ respond: (_req, res) => res.writeHead(200).end(big) });
    const url = `http://127.0.0.1:${fake.port}/big`;
    const response = await sendOutbound({ url }, loopback);
    expect(response.body.length).toBe(64 * 1024);
    expect(response.truncated).toBe(true);
    const small = await sendOutbound({ url }, { ...loopback, maxResponseBytes: 10 });
    expect(small).toMatchObject({ body: 'a'.repeat(10), truncated: true });
  });

  it('says a closed port could not be reached', async () => {
    const fake = await target();
    const port = fake.port;
    await fake.close();
    const err = await failure(sendOutbound({ url: `http://127.0.0.1:${port}/` }, loopback));
    expect(err.kind).toBe('unreachable');
    expect(err.detail.code).toBe('ECONNREFUSED');
  });

  it('logs refusals with scheme and host only, never the path or query that hold the secret', async () => {
    const { logger, lines } = memoryLogger();
    const fake = await target({ respond: (_req, res) => res.writeHead(301, { location: '/elsewhere' }).end() });
    await failure(sendOutbound({ url: `http://127.0.0.1:${fake.port}/hooks/s3cret?token=s3cret` }, { ...loopback, logger }));
    await failure(sendOutbound({ url: 'https://10.1.2.3/hooks/s3cret?token=s3cret' }, { allowLoopback: false, logger }));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: 40, outbound: { kind: 'redirect', target: `http://127.0.0.1:${fake.port}`, status: 301 } });
    expect(lines[1]).toMatchObject({ outbound: { kind: 'forbidden-address', target: 'https://10.1.2.3', address: '10.1.2.3', range: 'private' } });
    expect(JSON.stringify(lines)).not.toContain('s3cret');
  });
});
