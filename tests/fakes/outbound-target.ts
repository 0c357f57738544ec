import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { selfSignedCert } from '../support/self-signed-cert.ts';

/**
 * A receiver of user-supplied URLs (a webhook endpoint) on 127.0.0.1, over http or over https
 * with a certificate made at start for `names`. It records what arrived, including the TLS
 * server name (SNI) the client asked for, and answers as `respond` says.
 */
export type ReceivedRequest = { method: string; path: string; headers: IncomingMessage['headers']; body: string; servername: string | null };

export type OutboundTarget = {
  port: number;
  /** The certificate to trust (https only). */
  cert: string | null;
  received: ReceivedRequest[];
  /** TCP connections accepted, including those that never sent a request. */
  connections: number;
  close(): Promise<void>;
};

export async function startOutboundTarget(options: {
  tls?: { names: string[] };
  respond?: (req: IncomingMessage, res: ServerResponse) => void;
}): Promise<OutboundTarget> {
  const received: ReceivedRequest[] = [];
  const respond = options.respond ?? ((_req, res) => res.writeHead(204).end());
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const servername = 'encrypted' in req.socket ? (((req.socket as TLSSocket).servername as string | false) || null) : null;
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), servername });
      respond(req, res);
    });
  };
  const tls = options.tls ? selfSignedCert(options.tls.names) : null;
  const server: Server = tls ? createHttpsServer({ key: tls.key, cert: tls.cert }, handle) : createHttpServer(handle);
  const sockets = new Set<Socket>();
  const target = { port: 0, cert: tls?.cert ?? null, received, connections: 0, close };
  server.on('connection', (socket: Socket) => {
    target.connections += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  target.port = (server.address() as AddressInfo).port;
  function close() {
    return new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  }
  return target;
}
