/**
 * SMTP catcher for tests: a real SMTP server on 127.0.0.1 (node:net) that speaks just enough
 * of the protocol for nodemailer (greeting, EHLO/HELO, AUTH PLAIN/LOGIN accepting anything,
 * MAIL FROM, RCPT TO, DATA with dot-unstuffing, RSET, NOOP, QUIT) and keeps every message.
 *
 * Modes, set at runtime: 'accept' (default) stores messages; 'refuse' answers MAIL FROM with
 * 421 (a transient failure: the server is unavailable, try later); 'reject' answers it with 554
 * (a permanent one: this sender is refused); 'hang' accepts connections and never says a
 * word, so the client's greeting timeout is what ends the attempt.
 *
 * Standalone (for Playwright): `node tests/fakes/smtp-catcher.ts` prints `SMTP_URL=...`.
 * SMTP_CATCHER_PORT picks the SMTP port (default random); SMTP_CATCHER_CONTROL_PORT, when set,
 * also serves a small HTTP control API on 127.0.0.1 for a separate test process:
 * GET /messages, POST /mode {mode}, POST /reset.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { pathToFileURL } from 'node:url';

export const SMTP_CATCHER_MODES = ['accept', 'refuse', 'reject', 'hang'] as const;
export type SmtpCatcherMode = (typeof SMTP_CATCHER_MODES)[number];

export type CaughtMessage = {
  /** The envelope sender (MAIL FROM). */
  from: string;
  /** The envelope recipients (RCPT TO). */
  to: string[];
  /** The message as sent (headers and body), dot-unstuffed, CRLF line ends. */
  data: string;
  /** The Subject header, unfolded and with encoded words decoded. */
  subject: string;
  /** The first text/plain body, its transfer encoding (quoted-printable, base64) undone, with
   * \n line ends. */
  text: string;
  /** The user name the client authenticated as, or null when it did not. */
  authUser: string | null;
};

export type SmtpCatcher = {
  /** smtp://127.0.0.1:PORT, for SMTP_URL. */
  url: string;
  port: number;
  /** The HTTP control API's origin when started with a control port. */
  controlUrl: string | null;
  messages(): CaughtMessage[];
  /** Resolves with the messages once there are at least n; rejects after timeoutMs. */
  waitForMessages(n: number, timeoutMs?: number): Promise<CaughtMessage[]>;
  setMode(mode: SmtpCatcherMode): void;
  /** Forgets the messages and goes back to 'accept'. */
  reset(): void;
  close(): Promise<void>;
};

const HOSTNAME = 'smtp-catcher.test';

export async function startSmtpCatcher(options: { port?: number; controlPort?: number; mode?: SmtpCatcherMode } = {}): Promise<SmtpCatcher> {
  let mode: SmtpCatcherMode = options.mode ?? 'accept';
  const messages: CaughtMessage[] = [];
  const waiters = new Set<() => void>();
  const sockets = new Set<Socket>();

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    // 'hang': connected, silent; the client's own timeout must end it.
    if (mode === 'hang') return;
    serveSession(socket, {
      mode: () => mode,
      onMessage: (message) => {
        messages.push(message);
        for (const wake of [...waiters]) wake();
      },
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  const catcher: SmtpCatcher = {
    url: `smtp://127.0.0.1:${port}`,
    port,
    controlUrl: null,
    messages: () => [...messages],
    waitForMessages(n, timeoutMs = 5_000) {
      if (messages.length >= n) return Promise.resolve([...messages]);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`SMTP catcher: ${messages.length} of ${n} messages after ${timeoutMs} ms`));
        }, timeoutMs);
        function check() {
          if (messages.length < n) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve([...messages]);
        }
        waiters.add(check);
      });
    },
    setMode(next) {
      mode = next;
    },
    reset() {
      messages.length = 0;
      mode = 'accept';
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await control?.close();
    },
  };

  let control: { close(): Promise<void> } | undefined;
  if (options.controlPort !== undefined) {
    const started = await startControl(catcher, options.controlPort);
    control = started;
    catcher.controlUrl = started.url;
  }
  return catcher;
}

type SessionHooks = { mode(): SmtpCatcherMode; onMessage(message: CaughtMessage): void };

/** One SMTP conversation: reads CRLF-terminated lines and answers each in turn. */
function serveSession(socket: Socket, hooks: SessionHooks): void {
  let state: 'command' | 'data' | 'auth-plain' | 'auth-login-user' | 'auth-login-pass' = 'command';
  let from: string | null = null;
  let to: string[] = [];
  let dataLines: string[] = [];
  let authUser: string | null = null;
  let pending = Buffer.alloc(0);

  const reply = (text: string) => {
    if (!socket.destroyed) socket.write(`${text}\r\n`);
  };
  const resetTransaction = () => {
    from = null;
    to = [];
    dataLines = [];
  };

  reply(`220 ${HOSTNAME} ESMTP smtp-catcher ready`);

  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (let end = pending.indexOf('\r\n'); end !== -1; end = pending.indexOf('\r\n')) {
      // Lines are split as bytes, then decoded: a UTF-8 character may span two chunks.
      const line = pending.subarray(0, end).toString('utf8');
      pending = pending.subarray(end + 2);
      handleLine(line);
    }
  });

  function handleLine(line: string): void {
    if (state === 'data') {
      if (line === '.') {
        const data = dataLines.join('\r\n') + '\r\n';
        const text = parseText(data).replace(/\r\n/g, '\n');
        hooks.onMessage({ from: from ?? '', to, data, subject: parseSubject(data), text, authUser });
        resetTransaction();
        state = 'command';
        reply('250 2.0.0 OK: queued');
        return;
      }
      dataLines.push(line.startsWith('.') ? line.slice(1) : line);
      return;
    }
    if (state === 'auth-plain') {
      authUser = plainUser(line);
      state = 'command';
      reply('235 2.7.0 Authentication successful');
      return;
    }
    if (state === 'auth-login-user') {
      authUser = Buffer.from(line, 'base64').toString('utf8');
      state = 'auth-login-pass';
      reply('334 UGFzc3dvcmQ6'); // "Password:"
      return;
    }
    if (state === 'auth-login-pass') {
      state = 'command';
      reply('235 2.7.0 Authentication successful');
      return;
    }

    const [verb = '', ...rest] = line.split(' ');
    const argument = rest.join(' ');
    switch (verb.toUpperCase()) {
      case 'EHLO':
        resetTransaction();
        reply(`250-${HOSTNAME} greets ${argument || 'you'}`);
        reply('250-8BITMIME');
        reply('250-SMTPUTF8');
        reply('250-AUTH PLAIN LOGIN');
        reply('250 SIZE 10485760');
        return;
      case 'HELO':
        resetTransaction();
        reply(`250 ${HOSTNAME}`);
        return;
      case 'AUTH': {
        const [mechanism = '', initial] = argument.split(' ');
        if (mechanism.toUpperCase() === 'PLAIN') {
          if (initial) {
            authUser = plainUser(initial);
            reply('235 2.7.0 Authentication successful');
          } else {
            state = 'auth-plain';
            reply('334 ');
          }
        } else if (mechanism.toUpperCase() === 'LOGIN') {
          if (initial) {
            authUser = Buffer.from(initial, 'base64').toString('utf8');
            state = 'auth-login-pass';
            reply('334 UGFzc3dvcmQ6');
          } else {
            state = 'auth-login-user';
            reply('334 VXNlcm5hbWU6'); // "Username:"
          }
        } else {
          reply('504 5.5.4 Unrecognized authentication type');
        }
        return;
      }
      case 'MAIL': {
        if (hooks.mode() === 'refuse') {
          // 421 also closes the channel (RFC 5321 section 3.8).
          reply('421 4.3.2 Service not available, try again later');
          socket.end();
          return;
        }
        if (hooks.mode() === 'reject') {
          reply('554 5.7.1 Sender refused by the SMTP catcher');
          return;
        }
        const address = envelopeAddress(argument, 'FROM');
        if (address === null) {
          reply('501 5.5.4 Syntax: MAIL FROM:<address>');
          return;
        }
        resetTransaction();
        from = address;
        reply('250 2.1.0 OK');
        return;
      }
      case 'RCPT': {
        if (from === null) {
          reply('503 5.5.1 MAIL first');
          return;
        }
        const address = envelopeAddress(argument, 'TO');
        if (!address) {
          reply('501 5.5.4 Syntax: RCPT TO:<address>');
          return;
        }
        to.push(address);
        reply('250 2.1.5 OK');
        return;
      }
      case 'DATA':
        if (to.length === 0) {
          reply('503 5.5.1 RCPT first');
          return;
        }
        state = 'data';
        reply('354 End data with <CR><LF>.<CR><LF>');
        return;
      case 'RSET':
        resetTransaction();
        reply('250 2.0.0 OK');
        return;
      case 'NOOP':
        reply('250 2.0.0 OK');
        return;
      case 'QUIT':
        reply('221 2.0.0 Bye');
        socket.end();
        return;
      default:
        reply('502 5.5.2 Command not recognized');
    }
  }
}

/** `FROM:<a@b> SIZE=10` -> 'a@b'; '' for the null sender `<>`; null when malformed. */
function envelopeAddress(argument: string, keyword: 'FROM' | 'TO'): string | null {
  const match = new RegExp(`^${keyword}:\\s*<([^>]*)>`, 'i').exec(argument.trim());
  return match ? match[1]! : null;
}

/** AUTH PLAIN's base64 "authzid\0user\0password": only the user is kept. */
function plainUser(base64: string): string {
  return Buffer.from(base64, 'base64').toString('utf8').split('\0')[1] ?? '';
}

function splitMessage(data: string): { headers: string; body: string } {
  const end = data.indexOf('\r\n\r\n');
  return end === -1 ? { headers: data, body: '' } : { headers: data.slice(0, end), body: data.slice(end + 4) };
}

/** A header's value, unfolded; undefined when absent. */
function header(headers: string, name: string): string | undefined {
  const unfolded = headers.replace(/\r\n[ \t]+/g, ' ');
  const match = new RegExp(`^${name}:[ \\t]*(.*)$`, 'im').exec(unfolded);
  return match?.[1];
}

export function parseSubject(data: string): string {
  return decodeEncodedWords(header(splitMessage(data).headers, 'Subject') ?? '');
}

/** RFC 2047 encoded words (`=?UTF-8?Q?...?=`, `=?UTF-8?B?...?=`); the space between two of
 * them is not part of the text. */
function decodeEncodedWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?[^?]+\?[BbQq]\?[^?]*\?=)/g, '$1')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_all, _charset: string, encoding: string, text: string) =>
      encoding.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeQuotedPrintableBytes(text.replace(/_/g, ' ')).toString('utf8'),
    );
}

function decodeQuotedPrintableBytes(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text.slice(i + 1, i + 3);
    if (text[i] === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(text[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes);
}

function decodeBody(body: string, transferEncoding: string | undefined): string {
  const encoding = (transferEncoding ?? '7bit').trim().toLowerCase();
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return decodeQuotedPrintableBytes(body.replace(/=\r\n/g, '')).toString('utf8');
  return body;
}

/** The first text/plain part of the message, decoded (a single-part message is its own part). */
export function parseText(data: string): string {
  const { headers, body } = splitMessage(data);
  const type = header(headers, 'Content-Type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    for (const part of body.split(`--${boundary}`).slice(1)) {
      if (part.startsWith('--')) break;
      const text = parseText(part.replace(/^\r\n/, ''));
      if (text) return text;
    }
    return '';
  }
  if (!/^text\/plain/i.test(type)) return '';
  return decodeBody(body, header(headers, 'Content-Transfer-Encoding')).replace(/\r\n$/, '');
}

/** The HTTP control API a Playwright run uses to read what the server sent. */
async function startControl(catcher: SmtpCatcher, port: number): Promise<{ url: string; close(): Promise<void> }> {
  const server: HttpServer = createHttpServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    void (async () => {
      if (req.method === 'GET' && req.url === '/messages') return send(200, catcher.messages());
      if (req.method === 'POST' && req.url === '/reset') {
        catcher.reset();
        return send(200, { ok: true });
      }
      if (req.method === 'POST' && req.url === '/mode') {
        const { mode } = await readJson(req);
        if (!SMTP_CATCHER_MODES.includes(mode as SmtpCatcherMode)) return send(400, { error: `mode must be one of ${SMTP_CATCHER_MODES.join(', ')}` });
        catcher.setMode(mode as SmtpCatcherMode);
        return send(200, { mode });
      }
      send(404, { error: 'unknown control' });
    })().catch((err: unknown) => send(500, { error: String(err) }));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const runDirectly = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (runDirectly) {
  const controlPort = process.env.SMTP_CATCHER_CONTROL_PORT;
  const catcher = await startSmtpCatcher({
    port: Number(process.env.SMTP_CATCHER_PORT ?? 0),
    ...(controlPort ? { controlPort: Number(controlPort) } : {}),
  });
  console.log(`SMTP_URL=${catcher.url}`);
  if (catcher.controlUrl) console.log(`SMTP_CATCHER_CONTROL_URL=${catcher.controlUrl}`);
  const stop = () => void catcher.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
