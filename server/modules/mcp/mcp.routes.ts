import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createRateWindow } from '../../lib/rate-window.ts';
import { clientGone } from '../../lib/http/stream.ts';
import { TOKEN_REFUSALS, type AccessTokensService } from '../auth/access-tokens.service.ts';
import type { AgentTools } from '../agent-tools/types.ts';

/** The MCP SDK (and ajv, its validator), loaded at the first MCP request rather than when the
 * server starts: a sixth of a CPU-second of every start (decision 0105). */
const importSdk = () => Promise.all([import('./mcp-server.ts'), import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js')]);
let sdk: ReturnType<typeof importSdk> | undefined;
const loadSdk = () => (sdk ??= importSdk());

export type McpDeps = {
  accessTokens: AccessTokensService;
  agentTools: AgentTools;
  /** Our own origin: a browser page of any other is refused (DNS rebinding, MCP's transport rules). */
  publicOrigin: string;
  /** Requests per token per minute at the door (its tool calls have their own, lower limit in AgentTools.run). */
  requestsPerMinute: number;
  now: () => Date;
};

/** JSON-RPC's "server error" range: a refusal before any MCP message is read. */
const REFUSED = -32000;
/** What the MCP request headers this transport reads are called; nothing else is passed on. */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version'] as const;

/**
 * The MCP server (issue 31, docs/decisions/0078): `POST /mcp`, the official SDK's Streamable HTTP
 * transport in stateless mode with JSON answers: a new server and transport for every request,
 * so any process answers any request and nothing pins a client to one. Each request is
 * authenticated by a personal access token (`Authorization: Bearer agt_…`), looked up in the
 * database every time, so a revoked token and a demoted admin's tools end at once everywhere.
 * GET (a stream of the server's own messages) and DELETE (ending a session) have nothing to do
 * without sessions: 405, as the SDK's stateless examples answer.
 */
export async function mcpRoutes(app: FastifyInstance, { accessTokens, agentTools, publicOrigin, requestsPerMinute, now }: McpDeps): Promise<void> {
  const door = createRateWindow(requestsPerMinute);
  const config = { bearerAuth: true } as const;

  app.addHook('onRequest', async (request, reply) => {
    reply.header('cache-control', 'no-store');
    // MCP's transport rules: an Origin that is present and not ours is refused (a page elsewhere
    // whose name was rebound to this server's address). Outside clients send none.
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== publicOrigin) return refuse(reply, 403, 'Cross-origin request refused');
  });

  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', 'POST');
    return refuse(reply, 405, 'Method not allowed: this server is stateless; send each message with POST.');
  };
  app.get('/mcp', { config }, notAllowed);
  app.delete('/mcp', { config }, notAllowed);

  app.post('/mcp', { config }, async (request, reply) => {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
    if (!bearer) {
      reply.header('www-authenticate', 'Bearer realm="mcp"');
      return refuse(reply, 401, 'Send a personal access token: Authorization: Bearer agt_… (create one at Settings → Access tokens).');
    }
    const checked = await accessTokens.authenticate(bearer);
    if (!checked.ok) {
      reply.header('www-authenticate', `Bearer realm="mcp", error="invalid_token", error_description="${checked.refusal}"`);
      return refuse(reply, 401, TOKEN_REFUSALS[checked.refusal]);
    }
    const { holder } = checked;
    // The request's log line names the user, as a signed-in request's does.
    request.user = holder.user;
    const slot = door.take(holder.token.id, now().getTime());
    if (!slot.ok) {
      reply.header('retry-after', String(slot.retryAfterSeconds));
      return refuse(reply, 429, `This token may make ${requestsPerMinute} requests a minute. Try again in ${slot.retryAfterSeconds} s.`);
    }

    const log = request.log.child({ tokenId: holder.token.id });
    const [{ mcpServerFor }, { WebStandardStreamableHTTPServerTransport }] = await loadSdk();
    const server = mcpServerFor({ holder, agentTools, log, signal: clientGone(reply) });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    transport.onerror = (err) => log.info({ err }, 'MCP request refused by the transport');
    try {
      await server.connect(transport);
      const answer = await transport.handleRequest(webRequest(request, publicOrigin), { parsedBody: request.body });
      reply.status(answer.status);
      answer.headers.forEach((value, name) => void reply.header(name, value));
      return reply.send(answer.body ? await answer.text() : undefined);
    } finally {
      await server.close();
    }
  });
}

/** The request as the SDK's web-standard transport reads it: its method, URL and MCP headers
 * (the body, already parsed by Fastify within the app's body limit, is passed beside it). */
function webRequest(request: FastifyRequest, publicOrigin: string): Request {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = request.headers[name];
    if (typeof value === 'string') headers.set(name, value);
  }
  return new Request(new URL(request.url, publicOrigin), { method: request.method, headers });
}

function refuse(reply: FastifyReply, status: number, message: string): FastifyReply {
  return reply.status(status).send({ jsonrpc: '2.0', error: { code: REFUSED, message }, id: null });
}
