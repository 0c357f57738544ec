import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

/** What the HTTP fakes in this folder share: JSON in and out, listening, running standalone. */

/** The request body as a JSON object ({} when empty, not JSON, or not an object). */
export async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export type FakeHttpServer = { server: Server; root: string; close(): Promise<void> };

/**
 * Listens on 127.0.0.1 (`port` 0: any free port). A handler that throws is logged under `name`
 * and answers 500 with `failureBody`, or cuts the connection when its answer had begun.
 */
export async function startFakeHttpServer(
  name: string,
  port: number,
  handle: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>,
  failureBody: unknown = { error: 'fake failed' },
): Promise<FakeHttpServer> {
  const server = createServer((req, res) => {
    Promise.resolve()
      .then(() => handle(req, res))
      .catch((err: unknown) => {
        console.error(`${name} failed`, err);
        if (!res.headersSent) sendJson(res, 500, failureBody);
        else res.destroy();
      });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    server,
    root: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * `node tests/fakes/<fake>.ts`: when the module is the process's entry point, starts the fake,
 * prints the environment that points a server at it, and stops on SIGINT or SIGTERM.
 */
export async function runStandalone(moduleUrl: string, start: () => Promise<{ env: Record<string, string>; close(): Promise<void> }>): Promise<void> {
  if (process.argv[1] === undefined || moduleUrl !== pathToFileURL(process.argv[1]).href) return;
  const fake = await start();
  for (const [key, value] of Object.entries(fake.env)) console.log(`${key}=${value}`);
  const stop = () => void fake.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
