import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent } from '../../contracts/agents.ts';
import { AGENT_TOOLS, READ_TOOLS, type TCreatedAccessToken, type TProposal, type TTokenScope } from '../../contracts/assistant-tools.ts';
import { until } from '../../server/test/until.ts';
import { freePort, startServer, waitForHealth } from './server-process.ts';

/** The tool's one text block, parsed: `{data}` or `{error}`. */
const said = (result: unknown) => JSON.parse(((result as CallToolResult).content[0] as { text: string }).text) as { data?: unknown; error?: string };

/**
 * The MCP server as an outside client meets it: the server process started as `npm start` starts
 * it (local sign-in, the embedded database, simulated market data), and the official SDK's
 * Client over its Streamable HTTP transport with a personal access token made at Settings.
 */
describe('MCP server in the server process, driven by the official SDK client', () => {
  let base: string;
  let server: ReturnType<typeof startServer>;
  let owner: string;
  const clients: Client[] = [];

  const api = async <T>(method: string, path: string, cookie: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { origin: base, cookie, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return (res.status === 204 ? undefined : await res.json()) as T;
  };
  const signIn = async (email: string): Promise<string> => {
    const res = await fetch(`${base}/api/auth/local/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin: base }, body: JSON.stringify({ email, name: email.split('@')[0] }) });
    expect(res.status).toBe(200);
    return res.headers.getSetCookie()[0]!.split(';')[0]!;
  };
  const newToken = (cookie: string, scope: TTokenScope) => api<TCreatedAccessToken>('POST', '/api/settings/access-tokens', cookie, { name: `Desktop ${scope}`, scope, expiresInDays: 30 });
  const connect = async (token: string): Promise<Client> => {
    const client = new Client({ name: 'process-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  };
  const toolNames = async (client: Client) => (await client.listTools()).tools.map((t) => t.name);

  beforeAll(async () => {
    const port = await freePort();
    base = `http://localhost:${port}`;
    server = startServer({ PORT: String(port), MARKET_DATA: 'simulated' });
    await waitForHealth(`${base}/api/health`);
    owner = await signIn('first@example.com'); // the first account of a local install is its admin
  }, 90_000);
  afterAll(async () => {
    await Promise.allSettled(clients.map((c) => c.close()));
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
  });

  it('lists the tools each token reaches, calls each of them, and a proposal waits as pending in the owner’s console', async () => {
    const template = findTemplate('stock-market-scanner')!;
    const agent = await api<TAgent>('POST', '/api/agents', owner, { templateId: template.id, name: 'Scanner', config: defaultAgentConfig(template) });
    await api('POST', `/api/agents/${agent.id}/run`, owner);

    expect(await toolNames(await connect((await newToken(owner, 'read')).token))).toEqual([...READ_TOOLS]);
    const token = await newToken(owner, 'propose');
    const client = await connect(token.token);
    expect(await toolNames(client)).toEqual([...AGENT_TOOLS]);

    // The run asked for above, recorded by the process's own workers.
    const listRuns = async () => said(await client.callTool({ name: 'list_runs', arguments: { agentId: agent.id, status: 'success' } })).data as { runs: Array<{ id: number }> };
    const [run] = (await until(listRuns, (data) => data.runs.length > 0, 30_000)).runs;
    const calls: Array<[string, Record<string, unknown>]> = [
      ['list_agents', {}],
      ['get_agent', { agentId: agent.id }],
      ['list_runs', { agentId: agent.id }],
      ['get_run', { agentId: agent.id, runId: run!.id }],
      ['get_market', { market: { kind: 'crypto', symbol: 'BTC/USDT', exchange: 'binance' }, timeframe: '1h', candles: 10 }],
      ['test_on_history', { agentId: agent.id, candles: 100 }],
      ['list_notifications', {}],
      ['propose_agent', { templateId: template.id, name: 'From my desktop', config: defaultAgentConfig(template), reason: 'A second scanner for the evening.' }],
      ['propose_change', { agentId: agent.id, name: 'Scanner (renamed)', reason: 'A clearer name.' }],
    ];
    const proposalIds: string[] = [];
    for (const [name, args] of calls) {
      const result = await client.callTool({ name, arguments: args });
      expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
      const { data } = said(result);
      expect(data, name).toBeDefined();
      if (name.startsWith('propose_')) proposalIds.push((data as { proposalId: string }).proposalId);
    }
    const pending = await api<TProposal[]>('GET', '/api/agents/proposals?status=pending', owner);
    expect(pending.filter((p) => proposalIds.includes(p.id)).map((p) => [p.kind, p.source, p.sourceName])).toEqual(
      expect.arrayContaining([
        ['create', 'mcp', token.name],
        ['change', 'mcp', token.name],
      ]),
    );
    // Proposed, not done: the agent keeps its name until its owner applies the change.
    expect((await api<TAgent>('GET', `/api/agents/${agent.id}`, owner)).name).toBe('Scanner');
  });

  it('refuses a revoked token on its next request', async () => {
    const token = await newToken(owner, 'read');
    const client = await connect(token.token);
    expect(await toolNames(client)).toHaveLength(READ_TOOLS.length);
    await api('DELETE', `/api/settings/access-tokens/${token.id}`, owner);
    const err = await client.listTools().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StreamableHTTPError);
    expect((err as StreamableHTTPError).code).toBe(401);
  });

  it('a user’s token reaches no tools; made an admin they reach them, and demoted again they lose them on the next request', async () => {
    const cookie = await signIn('second@example.com');
    const asGuest = await connect((await newToken(cookie, 'propose')).token);
    expect(await toolNames(asGuest)).toEqual([]);
    const users = await api<Array<{ id: string; email: string }>>('GET', '/api/users', owner);
    const id = users.find((u) => u.email === 'second@example.com')!.id;
    await api('PATCH', `/api/users/${id}`, owner, { role: 'admin' });
    expect(await toolNames(asGuest)).toEqual([...AGENT_TOOLS]);
    const client = await connect((await newToken(cookie, 'propose')).token);
    expect(await toolNames(client)).toEqual([...AGENT_TOOLS]);
    await api('PATCH', `/api/users/${id}`, owner, { role: 'guest' });
    expect(await toolNames(client)).toEqual([]);
    const refused = await client.callTool({ name: 'list_agents', arguments: {} });
    expect(refused.isError).toBe(true);
  });
});
