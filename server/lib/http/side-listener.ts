import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type SideListener = { url: string; close(): Promise<void> };

/**
 * Starts a small plain-HTTP listener beside the product's own (the worker's health port, the
 * metrics port): its whole request, headers and kept-alive silence limited to `timeoutMs`, its
 * address as a URL, and a close that does not wait for a scraper's kept-alive connection.
 */
export async function listenBeside(server: Server, { host, port, timeoutMs }: { host: string; port: number; timeoutMs: number }): Promise<SideListener> {
  server.requestTimeout = timeoutMs;
  server.headersTimeout = timeoutMs;
  server.keepAliveTimeout = timeoutMs;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
