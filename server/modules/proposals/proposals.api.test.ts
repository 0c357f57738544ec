import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig } from '../../../contracts/agents.ts';
import type { TProposal } from '../../../contracts/assistant-tools.ts';
import { ZBacktestResult } from '../../../contracts/backtest.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { chatCaller, sessionUser } from '../../test/tool-callers.ts';
import { until } from '../../test/until.ts';
import type { TLiveEvent } from '../../../contracts/events.ts';

const TEMPLATE = 'stock-market-scanner';
const config = (): TAgentConfig => defaultAgentConfig(findTemplate(TEMPLATE)!, 'Europe/Paris');

/** Proposals: made by the propose tools, decided by their owner through the API (issue 31). */
describe('proposals: propose, Create paused, Apply, Discard', () => {
  let t: TestApp;
  let owner: SessionUser;
  let ownerCookie: string;
  let otherCookie: string;

  const propose = async (tool: 'propose_agent' | 'propose_change', args: unknown, user: SessionUser = owner) => t.app.agentTools.run(chatCaller(user), tool, JSON.stringify(args));
  const api = (method: 'GET' | 'POST', url: string, cookie = ownerCookie) => t.request({ method, url, cookie });
  const newAgent = async (name: string): Promise<TAgent> => {
    const res = await t.request({ method: 'POST', url: '/api/agents', cookie: ownerCookie, payload: { templateId: TEMPLATE, name, config: config() } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as TAgent;
  };

  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: 'owner@example.com,other@example.com', MARKET_DATA: 'simulated', BACKTEST_RATE_LIMIT: '100' } });
    ownerCookie = await t.signIn('owner@example.com');
    otherCookie = await t.signIn('other@example.com');
    owner = await sessionUser(t, 'owner@example.com');
  });
  afterAll(async () => t?.close());

  it('propose_agent records a pending proposal tested on history; Create paused makes the agent, paused, with that configuration', async () => {
    const proposed = { ...config(), schedule: { ...config().schedule, frequency: 'hourly' as const } };
    const outcome = await propose('propose_agent', { templateId: TEMPLATE, name: 'Tech watch', config: proposed, reason: 'You asked for an hourly scan' });
    expect(outcome.status, outcome.summary).toBe('ok');
    expect(outcome.summary).toMatch(/^Proposed “Tech watch” \(Stock Market Scanner\); \d+ markets?, /);
    const forModel = JSON.parse(outcome.forModel) as { data: { proposalId: string; status: string; note: string } };
    expect(forModel.data).toMatchObject({ proposalId: outcome.proposalId, status: 'pending' });
    expect(forModel.data.note).toMatch(/Nothing was created/);
    // Nothing created yet.
    expect((await api('GET', '/api/agents')).json()).not.toContainEqual(expect.objectContaining({ name: 'Tech watch' }));

    const read = (await api('GET', `/api/agents/proposals/${outcome.proposalId}`)).json() as TProposal;
    expect(read).toMatchObject({ kind: 'create', status: 'pending', source: 'chat', sourceName: 'Claude', agentName: 'Tech watch', reason: 'You asked for an hourly scan', differences: [] });
    expect(read.configText).toContain('Template: Stock Market Scanner');
    expect(read.configText.some((line) => line.startsWith('Schedule: Hourly'))).toBe(true);
    expect(ZBacktestResult.safeParse(read.backtest).success).toBe(true);
    expect((await api('GET', '/api/agents/proposals?status=pending')).json()).toContainEqual(expect.objectContaining({ id: outcome.proposalId }));

    const applied = await api('POST', `/api/agents/proposals/${outcome.proposalId}/apply`);
    expect(applied.statusCode, applied.body).toBe(200);
    const decided = applied.json() as TProposal;
    expect(decided.status).toBe('applied');
    expect(decided.decidedAt).not.toBeNull();
    const agent = (await api('GET', `/api/agents/${decided.resultAgentId}`)).json() as TAgent;
    expect(agent).toMatchObject({ name: 'Tech watch', templateId: TEMPLATE, status: 'paused' });
    expect(agent.config.schedule.frequency).toBe('hourly');

    // Decided once.
    const again = await api('POST', `/api/agents/proposals/${outcome.proposalId}/apply`);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ message: 'This proposal was already applied.' });
    expect((await api('POST', `/api/agents/proposals/${outcome.proposalId}/discard`)).statusCode).toBe(409);
    expect((await api('GET', '/api/agents/proposals?status=pending')).json()).not.toContainEqual(expect.objectContaining({ id: outcome.proposalId }));
  });

  it('propose_change shows the differences; Apply changes the agent through its update', async () => {
    const agent = await newAgent('Scanner');
    const changed = { ...agent.config, schedule: { ...agent.config.schedule, frequency: 'daily' as const } };
    const outcome = await propose('propose_change', { agentId: agent.id, name: 'Daily scanner', config: changed, reason: 'Hourly is too noisy' });
    expect(outcome.status, outcome.summary).toBe('ok');
    const read = (await api('GET', `/api/agents/proposals/${outcome.proposalId}`)).json() as TProposal;
    expect(read.kind).toBe('change');
    expect(read.agentId).toBe(agent.id);
    expect(read.differences).toEqual(
      expect.arrayContaining([
        { field: 'Name', before: 'Scanner', after: 'Daily scanner' },
        expect.objectContaining({ field: 'Schedule', after: expect.stringMatching(/^Daily/) }),
      ]),
    );
    // Still as it was.
    expect(((await api('GET', `/api/agents/${agent.id}`)).json() as TAgent).name).toBe('Scanner');

    const applied = await api('POST', `/api/agents/proposals/${outcome.proposalId}/apply`);
    expect(applied.statusCode, applied.body).toBe(200);
    expect((applied.json() as TProposal).resultAgentId).toBe(agent.id);
    const after = (await api('GET', `/api/agents/${agent.id}`)).json() as TAgent;
    expect(after.name).toBe('Daily scanner');
    expect(after.config.schedule.frequency).toBe('daily');
  });

  it('Apply is refused (409) when the agent changed since the proposal, naming what changed, and the proposal stays pending', async () => {
    const agent = await newAgent('Moving target');
    const outcome = await propose('propose_change', { agentId: agent.id, name: 'Renamed by the assistant', reason: 'A clearer name' });
    expect(outcome.status).toBe('ok');
    const edited = await t.request({ method: 'PATCH', url: `/api/agents/${agent.id}`, cookie: ownerCookie, payload: { name: 'Renamed by the owner' } });
    expect(edited.statusCode).toBe(200);
    const refused = await api('POST', `/api/agents/proposals/${outcome.proposalId}/apply`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({
      message: 'This agent changed since the proposal: read it again and propose anew, or discard this one.',
      details: [{ path: 'Name', message: 'Moving target → Renamed by the owner' }],
    });
    expect(((await api('GET', `/api/agents/proposals/${outcome.proposalId}`)).json() as TProposal).status).toBe('pending');
    expect(((await api('GET', `/api/agents/${agent.id}`)).json() as TAgent).name).toBe('Renamed by the owner');
    const discarded = await api('POST', `/api/agents/proposals/${outcome.proposalId}/discard`);
    expect(discarded.statusCode).toBe(200);
    expect((discarded.json() as TProposal).status).toBe('discarded');
  });

  it('owner only: another admin’s reads and decisions answer 404, as a missing proposal', async () => {
    const outcome = await propose('propose_agent', { templateId: TEMPLATE, name: 'Mine only', config: config(), reason: 'Mine' });
    for (const [method, url] of [
      ['GET', `/api/agents/proposals/${outcome.proposalId}`],
      ['POST', `/api/agents/proposals/${outcome.proposalId}/apply`],
      ['POST', `/api/agents/proposals/${outcome.proposalId}/discard`],
    ] as const) {
      const res = await api(method, url, otherCookie);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ message: 'Proposal not found' });
    }
    expect((await api('GET', '/api/agents/proposals', otherCookie)).json()).toEqual([]);
    expect(((await api('GET', `/api/agents/proposals/${outcome.proposalId}`)).json() as TProposal).status).toBe('pending');
    expect((await api('GET', '/api/agents/proposals/not-a-uuid')).statusCode).toBe(400);
    expect((await api('GET', '/api/agents/proposals?status=maybe')).statusCode).toBe(400);
  });

  it('an invalid proposal is refused with the wizard’s field and rule, and nothing is recorded', async () => {
    const before = ((await api('GET', '/api/agents/proposals')).json() as TProposal[]).length;
    const bad = { ...config(), schedule: { ...config().schedule, activeHours: { start: '17:00', end: '09:00' } } };
    const outcome = await propose('propose_agent', { templateId: TEMPLATE, name: 'Backwards', config: bad, reason: 'Bad hours' });
    expect(outcome.status).toBe('invalid');
    expect(JSON.parse(outcome.forModel)).toEqual({ error: 'The arguments were refused: config.schedule.activeHours: The start of the active hours must be before their end.' });
    const unknownTemplate = await propose('propose_agent', { templateId: 'nope', name: 'Nope', config: config(), reason: 'x' });
    expect(unknownTemplate.status).toBe('invalid');
    expect(JSON.parse(unknownTemplate.forModel).error).toMatch(/^The arguments were refused: templateId: Template 'nope' does not exist/);
    const noChange = await propose('propose_change', { agentId: crypto.randomUUID(), reason: 'Nothing' });
    expect(noChange.status).toBe('invalid');
    expect(JSON.parse(noChange.forModel).error).toContain('config: Propose a new name or a new configuration');
    expect(((await api('GET', '/api/agents/proposals')).json() as TProposal[]).length).toBe(before);
  });

  it('the owner’s open consoles hear of a proposal made and decided (live events), nobody else does', async () => {
    const other = await sessionUser(t, 'other@example.com');
    const heard: TLiveEvent[] = [];
    const overheard: TLiveEvent[] = [];
    const stop = [t.app.events.subscribe(owner.id, (_id, event) => heard.push(event), () => {}), t.app.events.subscribe(other.id, (_id, event) => overheard.push(event), () => {})];
    try {
      const outcome = await propose('propose_agent', { templateId: TEMPLATE, name: 'Heard of', config: config(), reason: 'Live' });
      await until(async () => heard.filter((e) => e.type === 'proposal'), (events) => events.length === 1);
      expect((await api('POST', `/api/agents/proposals/${outcome.proposalId}/discard`)).statusCode).toBe(200);
      const events = await until(async () => heard.filter((e) => e.type === 'proposal'), (list) => list.length === 2);
      expect(events).toEqual([
        { type: 'proposal', action: 'created', proposalId: outcome.proposalId },
        { type: 'proposal', action: 'decided', proposalId: outcome.proposalId },
      ]);
      expect(overheard.filter((e) => e.type === 'proposal')).toEqual([]);
    } finally {
      for (const unsubscribe of stop) unsubscribe();
    }
  });

  it('propose_change on another user’s agent answers not-found, as a missing one, and records nothing', async () => {
    const res = await t.request({ method: 'POST', url: '/api/agents', cookie: otherCookie, payload: { templateId: TEMPLATE, name: 'Other’s', config: config() } });
    const theirs = res.json() as TAgent;
    const outcome = await propose('propose_change', { agentId: theirs.id, name: 'Hijacked', reason: 'x' });
    const missing = await propose('propose_change', { agentId: crypto.randomUUID(), name: 'Hijacked', reason: 'x' });
    expect(outcome.status).toBe('not-found');
    expect(outcome.forModel).toBe(missing.forModel);
    expect((await t.request({ url: '/api/agents/proposals', cookie: otherCookie })).json()).toEqual([]);
  });
});
