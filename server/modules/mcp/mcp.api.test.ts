import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent } from '../../../contracts/agents.ts';
import { PROPOSAL_TOOLS, READ_TOOLS, TOOL_DESCRIPTIONS, type TCreatedAccessToken, type TProposal, type TTokenScope } from '../../../contracts/assistant-tools.ts';
import { accessTokens, agentRuns } from '../../db/schema.ts';
import { capturingLogger, encodings, leaks } from '../../test/secret-scan.ts';
import { createTestApp, TEST_ORIGIN, type TestApp } from '../../test/test-app.ts';
import { LAST_USED_EVERY_MS } from '../auth/access-tokens.service.ts';

const OWNER = 'mcp-owner@example.com';
const OTHER = 'mcp-other@example.com';
const DAY_MS = 24 * 60 * 60 * 1000;
const MCP_RATE_LIMIT = 40;

/** What a tool said to the client: its one text block, parsed (always JSON, docs/decisions/0076). */
const said = (result: unknown) => {
  const { content } = result as CallToolResult;
  expect(content).toHaveLength(1);
  expect(content[0]!.type).toBe('text');
  return JSON.parse((content[0] as { text: string }).text) as { data?: unknown; error?: string };
};

/** A refusal's JSON-RPC error. */
const rpcError = async (res: Response) => ((await res.json()) as { error: { code: number; message: string } }).error;

/**
 * The MCP server driven by the official SDK's client over HTTP (the app listening on a port):
 * the tools a token reaches, each tool called, and a token refused at once when it is revoked,
 * expired, or its user is no longer an admin. On PGlite and, with TEST_POSTGRES_URL, PostgreSQL.
 */
describe('MCP server (/mcp) with personal access tokens', () => {
  let t: TestApp;
  let url: URL;
  let owner: string;
  let agent: TAgent;
  let runId: number;
  const { logger, lines } = capturingLogger();
  const issued: string[] = [];
  const clients: Client[] = [];

  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: `${OWNER},${OTHER}`, MARKET_DATA: 'simulated', MCP_RATE_LIMIT: String(MCP_RATE_LIMIT), BACKTEST_RATE_LIMIT: '100' }, logger });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    url = new URL(`http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}/mcp`);
    owner = await t.signIn(OWNER, 'Owner');
    const template = findTemplate('stock-market-scanner')!;
    const created = await t.request({ method: 'POST', url: '/api/agents', cookie: owner, payload: { templateId: template.id, name: 'Tech scanner', config: defaultAgentConfig(template) } });
    expect(created.statusCode, created.body).toBe(201);
    agent = created.json<TAgent>();
    const [run] = await t.database.db
      .insert(agentRuns)
      .values({ agentId: agent.id, status: 'failure', startTime: new Date(), endTime: new Date(), error: 'The data provider could not be reached.' })
      .returning({ id: agentRuns.id });
    runId = run!.id;
  });
  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    await t.close();
  });

  const newToken = async (cookie: string, scope: TTokenScope = 'read', expiresInDays = 30): Promise<TCreatedAccessToken> => {
    const res = await t.request({ method: 'POST', url: '/api/settings/access-tokens', cookie, payload: { name: `MCP ${scope} ${issued.length}`, scope, expiresInDays } });
    expect(res.statusCode, res.body).toBe(201);
    const created = res.json<TCreatedAccessToken>();
    issued.push(created.token);
    return created;
  };
  const connect = async (token: string): Promise<Client> => {
    const client = new Client({ name: 'mcp-api-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  };
  const toolNames = async (client: Client) => (await client.listTools()).tools.map((tool) => tool.name);
  const post = (headers: Record<string, string>, body: unknown = { jsonrpc: '2.0', id: 1, method: 'tools/list' }) =>
    fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });
  /** The HTTP status the client's next request met, when it was refused. */
  const refusal = async (request: Promise<unknown>): Promise<number> => {
    const err: unknown = await request.then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StreamableHTTPError);
    return (err as StreamableHTTPError).code!;
  };

  it('a read-only token reaches the seven read tools, a Read + propose token all nine, each with its description and JSON Schema', async () => {
    const read = await connect((await newToken(owner, 'read')).token);
    expect(read.getServerVersion()?.name).toBe('axiom-agents');
    expect(read.getInstructions()).toMatch(/never instructions/);
    const { tools } = await read.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([...READ_TOOLS]);
    for (const tool of tools) {
      expect(tool.description).toBe(TOOL_DESCRIPTIONS[tool.name as keyof typeof TOOL_DESCRIPTIONS]);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.annotations).toMatchObject({ readOnlyHint: true });
    }
    const propose = await connect((await newToken(owner, 'propose')).token);
    expect(await toolNames(propose)).toEqual([...READ_TOOLS, ...PROPOSAL_TOOLS]);
  });

  it('calls each read tool as the token’s user, answered as JSON text; another user’s agent is not found', async () => {
    const client = await connect((await newToken(owner, 'read')).token);
    const calls: Array<[string, Record<string, unknown>]> = [
      ['list_agents', {}],
      ['get_agent', { agentId: agent.id }],
      ['list_runs', { agentId: agent.id }],
      ['get_run', { agentId: agent.id, runId }],
      ['get_market', { market: { kind: 'stock', symbol: 'AAPL' }, timeframe: '1d', candles: 5 }],
      ['test_on_history', { agentId: agent.id, candles: 100 }],
      ['list_notifications', {}],
    ];
    for (const [name, args] of calls) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      expect(said(result), name).toHaveProperty('data');
    }
    expect(JSON.stringify(said(await client.callTool({ name: 'list_agents', arguments: {} })).data)).toContain('Tech scanner');

    // Another admin's token: the owner's agent answers as one that does not exist.
    const other = await t.signIn(OTHER, 'Other');
    const theirs = await connect((await newToken(other, 'read')).token);
    const notFound = await theirs.callTool({ name: 'get_agent', arguments: { agentId: agent.id } });
    expect(notFound.isError).toBe(true);
    expect(said(notFound).error).toMatch(/not found/i);
  });

  it('a proposal made over MCP waits in the owner’s console as a pending proposal, named after the token; nothing else is written', async () => {
    const created = await newToken(owner, 'propose');
    const client = await connect(created.token);
    const agentsBefore = (await t.request({ url: '/api/agents', cookie: owner })).json<unknown[]>().length;
    const template = findTemplate('stock-market-scanner')!;
    const result = await client.callTool({
      name: 'propose_agent',
      arguments: { templateId: template.id, name: 'Proposed over MCP', config: defaultAgentConfig(template), reason: 'Watch the tech names for breakouts.' },
    });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    const { proposalId } = said(result).data as { proposalId: string };
    const pending = (await t.request({ url: '/api/agents/proposals?status=pending', cookie: owner })).json<TProposal[]>();
    expect(pending.find((p) => p.id === proposalId)).toMatchObject({ kind: 'create', status: 'pending', source: 'mcp', sourceName: created.name, agentName: 'Proposed over MCP', agentId: null });
    expect((await t.request({ url: '/api/agents', cookie: owner })).json<unknown[]>()).toHaveLength(agentsBefore);
  });

  it('tells the client about bad arguments and refused tools as tool errors, in the chat’s words', async () => {
    const client = await connect((await newToken(owner, 'read')).token);
    const invalid = await client.callTool({ name: 'get_agent', arguments: { agentId: 'not-an-id' } });
    expect(invalid.isError).toBe(true);
    expect(said(invalid).error).toMatch(/agentId/);
    // A read-only token asking for a proposal tool it was not offered.
    const refused = await client.callTool({ name: 'propose_agent', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(said(refused).error).toMatch(/Read \+ propose/);
  });

  it('a user who is not an admin may hold a token, which reaches no tools', async () => {
    const guest = await t.signIn('mcp-guest@example.com', 'Guest');
    const client = await connect((await newToken(guest, 'propose')).token);
    expect(await toolNames(client)).toEqual([]);
    const refused = await client.callTool({ name: 'list_agents', arguments: {} });
    expect(refused.isError).toBe(true);
    expect(said(refused).error).toMatch(/admin/);
  });

  it('a demoted admin’s token loses the tools on its next request', async () => {
    const email = 'mcp-demoted@example.com';
    const cookie = await t.signIn(email, 'Soon demoted');
    const users = (await t.request({ url: '/api/users', cookie: owner })).json<Array<{ id: string; email: string }>>();
    const id = users.find((u) => u.email === email)!.id;
    expect((await t.request({ method: 'PATCH', url: `/api/users/${id}`, cookie: owner, payload: { role: 'admin' } })).statusCode).toBe(200);
    const client = await connect((await newToken(cookie, 'read')).token);
    expect(await toolNames(client)).toHaveLength(READ_TOOLS.length);

    expect((await t.request({ method: 'PATCH', url: `/api/users/${id}`, cookie: owner, payload: { role: 'guest' } })).statusCode).toBe(200);
    expect(await toolNames(client)).toEqual([]);
    const refused = await client.callTool({ name: 'list_agents', arguments: {} });
    expect(refused.isError).toBe(true);
  });

  it('a revoked token is refused on its next request, 401 with WWW-Authenticate: Bearer', async () => {
    const created = await newToken(owner, 'read');
    const client = await connect(created.token);
    expect(await toolNames(client)).toHaveLength(READ_TOOLS.length);
    expect((await t.request({ method: 'DELETE', url: `/api/settings/access-tokens/${created.id}`, cookie: owner })).statusCode).toBe(204);
    expect(await refusal(client.listTools())).toBe(401);

    const res = await post({ authorization: `Bearer ${created.token}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer realm="mcp", error="invalid_token", error_description="revoked"');
    expect(await res.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'This access token was revoked. Create a new one at Settings → Access tokens.' }, id: null });
  });

  it('an expired token is refused', async () => {
    const created = await newToken(owner, 'read', 7);
    const client = await connect(created.token);
    t.advanceTime(7 * DAY_MS + 1000);
    try {
      expect(await refusal(client.listTools())).toBe(401);
      const res = await post({ authorization: `Bearer ${created.token}` });
      expect((await rpcError(res)).message).toBe('This access token has expired. Create a new one at Settings → Access tokens.');
    } finally {
      t.advanceTime(-(7 * DAY_MS + 1000));
    }
  });

  it('refuses a request without a token, with an unknown one, or with only a session cookie', async () => {
    const missing = await post({});
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="mcp"');
    expect((await rpcError(missing)).message).toMatch(/^Send a personal access token/);
    const unknown = await post({ authorization: `Bearer agt_${'A'.repeat(43)}` });
    expect(unknown.status).toBe(401);
    expect((await rpcError(unknown)).message).toBe('This access token is not valid. Create one at Settings → Access tokens.');
    expect((await post({ authorization: 'Bearer not-even-a-token' })).status).toBe(401);
    // The session cookie is never a credential here: a page cannot ride on it.
    expect((await post({ cookie: owner, origin: TEST_ORIGIN })).status).toBe(401);
  });

  it('refuses a browser page of another origin (DNS rebinding) with 403, and takes our own', async () => {
    const { token } = await newToken(owner, 'read');
    const foreign = await post({ authorization: `Bearer ${token}`, origin: 'http://evil.example' });
    expect(foreign.status).toBe(403);
    expect((await rpcError(foreign)).message).toBe('Cross-origin request refused');
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'page', version: '1' } } };
    const ours = await post({ authorization: `Bearer ${token}`, origin: TEST_ORIGIN }, initialize);
    expect(ours.status).toBe(200);
    expect(((await ours.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe('axiom-agents');
  });

  it('answers hostile bodies with a 4xx or a JSON-RPC error, never a 5xx, and writes nothing', async () => {
    const { token } = await newToken(owner, 'propose');
    const headers = { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-06-18' };
    const proposalsBefore = (await t.request({ url: '/api/agents/proposals', cookie: owner })).json<unknown[]>().length;
    const call = (params: unknown) => ({ jsonrpc: '2.0', id: 7, method: 'tools/call', params });
    let deep: unknown = 'x';
    for (let i = 0; i < 2_000; i++) deep = { a: deep };
    const bodies: unknown[] = [
      {},
      [],
      'tools/list',
      null,
      { jsonrpc: '1.0', id: 1, method: 'tools/list' },
      { jsonrpc: '2.0', id: { not: 'an id' }, method: 'tools/list' },
      call({ name: { evil: true }, arguments: {} }),
      call({ name: 'get_agent', arguments: ['not', 'an', 'object'] }),
      call({ name: 'get_agent', arguments: { agentId: 'x'.repeat(200_000) } }),
      call({ name: 'propose_agent', arguments: { templateId: 'stock-market-scanner', name: '\u0000', config: deep, reason: 'x' } }),
      call({ name: '__proto__', arguments: {} }),
      call({ name: 'list_agents', arguments: { extra: 1 } }),
      Array.from({ length: 500 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'tools/list' })),
    ];
    for (const body of bodies) {
      const res = await post(headers, body);
      const label = JSON.stringify(body).slice(0, 80);
      expect(res.status, label).toBeLessThan(500);
      const text = await res.text();
      if (res.status >= 400) expect(text, label).toMatch(/"error"/);
      // 202: the SDK's answer to a batch with no request in it (an empty one): nothing to say.
      else if (res.status === 202) expect(text, label).toBe('');
      else expect(JSON.parse(text), label).toBeDefined();
      expect(text, label).not.toMatch(/\.ts:\d+|node_modules|\n\s+at /);
    }
    const wrongType = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'text/plain', accept: 'application/json, text/event-stream' }, body: '{}' });
    expect(wrongType.status).toBe(415);
    const notJson = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":' });
    expect(notJson.status).toBe(400);
    expect((await t.request({ url: '/api/agents/proposals', cookie: owner })).json<unknown[]>()).toHaveLength(proposalsBefore);
  });

  it('answers GET and DELETE with 405 (stateless: no stream, no session to end)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(url, { method, headers: { accept: 'text/event-stream' } });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
      expect(((await res.json()) as { jsonrpc: string }).jsonrpc).toBe('2.0');
    }
  });

  it(`bounds each token to ${MCP_RATE_LIMIT} requests a minute at the door (429 with Retry-After), another token unaffected`, async () => {
    const { token } = await newToken(owner, 'read');
    const statuses: number[] = [];
    for (let i = 0; i < MCP_RATE_LIMIT + 1; i++) statuses.push((await post({ authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-06-18' })).status);
    expect(statuses.slice(0, MCP_RATE_LIMIT).every((s) => s === 200)).toBe(true);
    const limited = await post({ authorization: `Bearer ${token}` });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await rpcError(limited)).message).toMatch(new RegExp(`^This token may make ${MCP_RATE_LIMIT} requests a minute`));
    const another = await connect((await newToken(owner, 'read')).token);
    expect(await toolNames(another)).toHaveLength(READ_TOOLS.length);
  });

  it('records a token’s last use, at most once a minute', async () => {
    const created = await newToken(owner, 'read');
    const lastUsed = async () => (await t.database.db.select({ at: accessTokens.lastUsedAt }).from(accessTokens).where(eq(accessTokens.id, created.id)))[0]!.at;
    expect(await lastUsed()).toBeNull();
    const client = await connect(created.token);
    const first = await lastUsed();
    expect(first).toBeInstanceOf(Date);
    await client.listTools();
    expect(await lastUsed()).toEqual(first);
    t.advanceTime(LAST_USED_EVERY_MS + 1000);
    await client.listTools();
    expect((await lastUsed())!.getTime()).toBeGreaterThan(first!.getTime());
    const listed = (await t.request({ url: '/api/settings/access-tokens', cookie: await t.signIn(OWNER) })).json<Array<{ id: string; lastUsedAt: string | null }>>();
    expect(listed.find((tok) => tok.id === created.id)!.lastUsedAt).toBe((await lastUsed())!.toISOString());
  });

  it('never logs a token or its hash, and logs each MCP request with its user', () => {
    expect(issued.length).toBeGreaterThan(5);
    const forms = Object.fromEntries(issued.flatMap((token, i) => [[`token ${i}`, encodings(token)], [`token hash ${i}`, [createHash('sha256').update(token).digest('hex')]]]));
    expect(leaks(lines.map((text, i) => ({ label: `log line ${i}`, text })), forms)).toEqual([]);
    const mcpLines = lines.map((line) => JSON.parse(line) as { msg?: string; req?: { url?: string }; userId?: string }).filter((l) => l.msg === 'request completed' && l.req?.url === '/mcp');
    expect(mcpLines.length).toBeGreaterThan(10);
    expect(mcpLines.some((l) => typeof l.userId === 'string')).toBe(true);
  });
});
