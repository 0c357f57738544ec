import { vi } from 'vitest';

export type StubRequest = { method: string; url: string; body: unknown };
type Reply = Response | { status?: number; body?: unknown } | ((request: StubRequest) => Response | Promise<Response>);

export function jsonResponse(body: unknown, status = 200): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** A pending response: for asserting loading states. */
export const never = (): Promise<Response> => new Promise<Response>(() => {});

/**
 * Replaces the browser's fetch with routes keyed 'METHOD /path?query'. A reply is a Response,
 * a {status, body} (JSON), or a function of the request. Unknown requests answer 404 so a test
 * notices them (or `fallback` answers them: a small fake server). Returns the mock and the
 * requests it received, bodies parsed.
 */
export function stubFetch(routes: Record<string, Reply>, fallback?: (request: StubRequest) => Response | Promise<Response> | undefined) {
  const requests: StubRequest[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.pathname + input.search : input.url;
    const method = (init.method ?? 'GET').toUpperCase();
    const request = { method, url, body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined };
    requests.push(request);
    const reply = routes[`${method} ${url}`];
    if (reply === undefined) return (await fallback?.(request)) ?? jsonResponse({ error: 'Not Found', message: `No stub for ${method} ${url}` }, 404);
    if (typeof reply === 'function') return reply(request);
    if (reply instanceof Response) return reply;
    return jsonResponse(reply.body, reply.status ?? 200);
  });
  vi.stubGlobal('fetch', fetchMock);
  return { fetchMock, requests };
}

/** An event-stream response whose events the test sends one by one; `state.cancelled` once the
 * reader gives up on it. */
export function sseStream() {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const state = { cancelled: false };
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return {
    state,
    response: new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
    send: (event: string, data: unknown) => controller.enqueue(encoder.encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`)),
    close: () => controller.close(),
  };
}
