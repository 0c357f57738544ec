import { Agent, request as httpsRequest } from 'node:https';
import { connect as http2Connect } from 'node:http2';
import { eventWaiter, sseParser, type SseEvent } from '../../server/test/sse-reader.ts';

/**
 * A browser's view of the site through nginx: https to 127.0.0.1 with the server name in SNI and
 * Host, the test's own certificate authority trusted, and (for the per-address checks) a chosen
 * loopback source address, so nginx sees different clients.
 */
export type ProxyClient = ReturnType<typeof proxyClient>;

export type Answer = { status: number | 'no answer'; headers: Record<string, string | string[] | undefined>; body: string; raw: Buffer; error?: string };

/** One event of a server-sent event stream, and which read of the socket brought it. */
export type StreamEvent = SseEvent & { read: number };

export function proxyClient({ port, serverName, ca, origin }: { port: number; serverName: string; ca: string; origin: string }) {
  const agents = new Map<string, Agent>();
  const agentFor = (localAddress: string) => {
    let agent = agents.get(localAddress);
    if (!agent) agents.set(localAddress, (agent = new Agent({ keepAlive: true, ca, servername: serverName, localAddress })));
    return agent;
  };
  const options = (path: string, init: { method?: string; headers?: Record<string, string>; from?: string; body?: string }) => ({
    host: '127.0.0.1',
    port,
    path,
    method: init.method ?? 'GET',
    agent: agentFor(init.from ?? '127.0.0.1'),
    headers: {
      host: `${serverName}:${port}`,
      ...(init.body !== undefined ? { 'content-type': 'application/json', origin } : {}),
      ...init.headers,
    },
  });

  /** One request, never throwing: no connection or a reset becomes 'no answer'. */
  function ask(path: string, init: { method?: string; headers?: Record<string, string>; from?: string; body?: string; timeoutMs?: number } = {}): Promise<Answer> {
    return new Promise((resolve) => {
      const req = httpsRequest(options(path, init), (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const raw = Buffer.concat(chunks);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: raw.toString('utf8'), raw });
        });
        res.on('error', (err) => resolve({ status: 'no answer', headers: {}, body: '', raw: Buffer.alloc(0), error: err.message }));
      });
      req.setTimeout(init.timeoutMs ?? 8_000, () => req.destroy(new Error('hung')));
      req.on('error', (err) => resolve({ status: 'no answer', headers: {}, body: '', raw: Buffer.alloc(0), error: err.message }));
      req.end(init.body);
    });
  }

  /**
   * A server-sent event stream read as it arrives (the chat's answer, the live console). Each
   * event notes the socket read that delivered it, so a test can tell pieces that arrived apart
   * from pieces buffered into one.
   */
  function stream(path: string, init: { method?: string; headers?: Record<string, string>; from?: string; body?: string } = {}) {
    const events: StreamEvent[] = [];
    let status = 0;
    let ended = false;
    let reads = 0;
    const waiter = eventWaiter(events, () => ended);
    const parser = sseParser((event) => events.push({ ...event, read: reads }));
    let request!: ReturnType<typeof httpsRequest>;
    let opened!: (status: number) => void;
    const response = new Promise<number>((resolve) => (opened = resolve));
    const finished = new Promise<void>((resolve, reject) => {
      request = httpsRequest(options(path, { ...init, headers: { accept: 'text/event-stream', ...init.headers } }), (res) => {
        status = res.statusCode ?? 0;
        opened(status);
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          reads++;
          parser.push(chunk);
          waiter.changed();
        });
        res.on('end', () => {
          ended = true;
          waiter.changed();
          resolve();
        });
        res.on('error', reject);
      });
      request.on('error', reject);
      request.end(init.body);
    });
    finished.catch(() => opened(0)); // a test that cares awaits it
    return {
      events,
      /** The answer's status, once its headers arrived (0: no answer). */
      response,
      finished,
      get status() {
        return status;
      },
      get ended() {
        return ended;
      },
      close: () => request.destroy(),
      /** The first event (seen already or to come) that `match` accepts; fails after `timeoutMs`, or when the stream ends without one. */
      next: (match: (e: StreamEvent) => boolean, timeoutMs = 15_000): Promise<StreamEvent> => waiter.next(match, timeoutMs),
    };
  }

  /** The protocol TLS negotiated (ALPN) and the answer of one GET over HTTP/2, as a browser would. */
  function http2Get(path: string): Promise<{ alpn: string | false; status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const session = http2Connect(`https://127.0.0.1:${port}`, { ca, servername: serverName });
      session.on('error', reject);
      const req = session.request({ ':method': 'GET', ':path': path, ':authority': `${serverName}:${port}` });
      let status = 0;
      let body = '';
      req.setEncoding('utf8');
      req.on('response', (headers) => (status = Number(headers[':status'])));
      req.on('data', (chunk: string) => (body += chunk));
      req.on('end', () => {
        const alpn = session.alpnProtocol ?? false;
        session.close();
        resolve({ alpn, status, body });
      });
      req.on('error', reject);
      req.end();
    });
  }

  return {
    ask,
    stream,
    http2Get,
    close() {
      for (const agent of agents.values()) agent.destroy();
    },
  };
}

/** The session cookie's name=value from a sign-in answer, and the whole Set-Cookie line. */
export function sessionCookie(answer: Answer): { cookie: string; line: string } {
  const lines = ([] as string[]).concat(answer.headers['set-cookie'] ?? []);
  const line = lines.find((l) => l.startsWith('__Host-sid=') || l.startsWith('sid='));
  if (!line) throw new Error(`no session cookie in ${JSON.stringify(answer.headers)}`);
  return { cookie: line.split(';')[0]!, line };
}
