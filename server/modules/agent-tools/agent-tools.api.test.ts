import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent } from '../../../contracts/agents.ts';
import { AGENT_TOOLS, READ_TOOLS, TOOL_LIMITS } from '../../../contracts/assistant-tools.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { chatCaller, sessionUser } from '../../test/tool-callers.ts';
import { setUserRole } from '../users/users.repo.ts';

/** The agent tools through the app's own `agentTools` (as the chat and /mcp reach them). */
describe('agent tools: owner scope, hostile input, rights, rate', () => {
  let t: TestApp;
  let owner: SessionUser;
  let guest: SessionUser;
  let ownersAgent: TAgent;
  let othersAgent: TAgent;

  const create = async (email: string, name: string) => {
    const cookie = await t.signIn(email);
    const res = await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: 'crypto-market-monitor', name, config: defaultAgentConfig(findTemplate('crypto-market-monitor')!, 'Europe/Paris') } });
    expect(res.statusCode).toBe(201);
    return res.json() as TAgent;
  };
  const run = (user: SessionUser, name: string, args: unknown, options: Parameters<typeof chatCaller>[1] = {}) =>
    t.app.agentTools.run(chatCaller(user, options), name, typeof args === 'string' ? args : JSON.stringify(args));
  const modelSees = (forModel: string) => JSON.parse(forModel) as { data?: unknown; error?: string };

  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: 'owner@example.com,other@example.com,demoted@example.com' } });
    owner = await sessionUser(t, 'owner@example.com');
    guest = await sessionUser(t, 'guest@example.com');
    ownersAgent = await create('owner@example.com', 'Owner’s BTC watch');
    othersAgent = await create('other@example.com', 'Other’s secret agent');
  });
  afterAll(async () => t?.close());

  it('specs: every tool for an admin with propose, the read tools for read, none for a user who is not an admin', () => {
    expect(t.app.agentTools.specs(owner, 'propose').map((s) => s.name)).toEqual([...AGENT_TOOLS]);
    expect(t.app.agentTools.specs(owner, 'read').map((s) => s.name)).toEqual([...READ_TOOLS]);
    expect(guest.role).not.toBe('admin');
    expect(t.app.agentTools.specs(guest, 'propose')).toEqual([]);
  });

  it('list_agents answers the caller’s agents only, as JSON data, with a summary in words', async () => {
    const outcome = await run(owner, 'list_agents', {});
    expect(outcome.status).toBe('ok');
    expect(outcome.argsText).toBe('All your agents');
    expect(outcome.summary).toBe('1 agent');
    const seen = modelSees(outcome.forModel) as { data: { agents: Array<{ id: string; name: string; schedule: string }>; templates: unknown[] } };
    expect(seen.data.agents.map((a) => a.name)).toEqual(['Owner’s BTC watch']);
    expect(seen.data.agents[0]!.schedule).toMatch(/^Real-time|Every|Hourly|Daily|Weekly/);
    expect(seen.data.templates.length).toBeGreaterThan(0);
    expect(outcome.forModel).not.toContain('Other’s secret agent');
  });

  it('get_agent answers its configuration in words and as JSON; another user’s agent answers as a missing one does', async () => {
    const mine = await run(owner, 'get_agent', { agentId: ownersAgent.id });
    expect(mine.status).toBe('ok');
    expect(mine.argsText).toBe('“Owner’s BTC watch”');
    const data = (modelSees(mine.forModel) as { data: { configuration: string[]; config: unknown } }).data;
    expect(data.configuration[0]).toBe('Template: Crypto Market Monitor');
    expect(data.configuration.some((line) => line.startsWith('Schedule: '))).toBe(true);
    expect(data.config).toEqual(ownersAgent.config);

    const others = await run(owner, 'get_agent', { agentId: othersAgent.id });
    const missing = await run(owner, 'get_agent', { agentId: '00000000-0000-4000-8000-000000000000' });
    expect(others.status).toBe('not-found');
    expect(missing.status).toBe('not-found');
    expect(others.summary).toBe(missing.summary);
    expect(others.forModel).toBe(missing.forModel);
    expect(others.forModel).toBe(JSON.stringify({ error: 'Agent not found' }));
  });

  it('hostile input: not JSON, wrong types, unknown fields, huge strings and unknown tools are refused with the field and the rule', async () => {
    const notJson = await run(owner, 'get_agent', '{"agentId": "abc"');
    expect(notJson.status).toBe('invalid');
    expect(notJson.args).toBe('{"agentId": "abc"');
    // The person sees what the model sent.
    expect(notJson.argsText).toBe('{"agentId": "abc"');
    expect(modelSees(notJson.forModel).error).toMatch(/not JSON/);

    const wrongType = await run(owner, 'get_agent', { agentId: 42 });
    expect(wrongType.status).toBe('invalid');
    expect(modelSees(wrongType.forModel).error).toContain('agentId: Agent id must be a UUID');

    const extra = await run(owner, 'list_agents', { everything: true });
    expect(extra.status).toBe('invalid');
    expect(modelSees(extra.forModel).error).toMatch(/everything/);

    const huge = await run(owner, 'get_agent', { agentId: 'x'.repeat(1_000_000) });
    expect(huge.status).toBe('invalid');
    expect(huge.forModel.length).toBeLessThan(2_000);
    expect(huge.argsText.length).toBeLessThanOrEqual(301);

    const unknown = await run(owner, 'drop_database', {});
    expect(unknown.status).toBe('invalid');
    expect(modelSees(unknown.forModel).error).toBe('There is no tool named "drop_database".');

    const array = await run(owner, 'get_agent', '[1,2,3]');
    expect(array.status).toBe('invalid');
  });

  it('a user who is not an admin is refused; an admin demoted since is refused on the next call', async () => {
    const user = await run(guest, 'list_agents', {});
    expect(user.status).toBe('refused');
    expect(user.forModel).not.toContain('Owner’s');

    const demoted = await sessionUser(t, 'demoted@example.com');
    expect((await run(demoted, 'list_agents', {})).status).toBe('ok');
    await setUserRole(t.database.db, demoted.id, 'guest');
    // The session user the caller holds still says admin: the role is read again on the call.
    const after = await run(demoted, 'list_agents', {});
    expect(after.status).toBe('refused');
    expect(modelSees(after.forModel).error).toMatch(/admin/);
  });

  it('a read-only scope is refused the proposal tools', async () => {
    const outcome = await run(owner, 'propose_change', { agentId: ownersAgent.id, name: 'x', reason: 'y' }, { scope: 'read' });
    expect(outcome.status).toBe('refused');
    expect(modelSees(outcome.forModel).error).toMatch(/Read \+ propose/);
  });

  it(`rate limit: ${TOOL_LIMITS.callsPerMinute} calls a minute per caller key, then rate-limited, other keys unaffected`, async () => {
    const key = `token:${crypto.randomUUID()}`;
    for (let i = 0; i < TOOL_LIMITS.callsPerMinute; i++) expect((await run(owner, 'list_agents', {}, { rateKey: key })).status).toBe('ok');
    const limited = await run(owner, 'list_agents', {}, { rateKey: key });
    expect(limited.status).toBe('rate-limited');
    expect(modelSees(limited.forModel).error).toMatch(/60 times a minute/);
    expect((await run(owner, 'list_agents', {}, { rateKey: `token:${crypto.randomUUID()}` })).status).toBe('ok');
  });

  it('Stop before the call: stopped, nothing read', async () => {
    const stop = new AbortController();
    stop.abort();
    const outcome = await run(owner, 'list_agents', {}, { signal: stop.signal });
    expect(outcome.status).toBe('stopped');
  });
});
