import { sampleImage } from '../../tests/fakes/sample-images.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { documentPassages } from '../db/schema.ts';
import { defaultAgentConfig, findTemplate } from '../../contracts/agents.ts';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS } from '../../contracts/chat.ts';
import { createTestApp, type TestApp } from './test-app.ts';
import { customMonitorConfig, inAppAlert, sampleCondition } from './agent-fixtures.ts';
import { conversationBody, imageBody, presetBody } from './chat-helpers.ts';
import { chatCaller, sessionUser } from './tool-callers.ts';

const ACTORS = ['signed out', 'guest', 'owner', 'another admin'] as const;
type Actor = (typeof ACTORS)[number];
/** `raw`: the payload is a file's bytes, sent as application/octet-stream (a document upload). */
type Call = { path: string; payload?: unknown; raw?: true };
/** One registered route: how to call it (objects made fresh for each call, owned by `owner`)
 * and the status each actor gets, in ACTORS order. */
type Row = { method: string; url: string; call: () => Promise<Call>; expected: [number, number, number, number]; freshSession?: boolean };

const OWNER = 'owner@example.com';
const OTHER = 'other@example.com';

/**
 * Every /api route the app registers, with the status each kind of caller gets: signed out, a
 * guest, the admin who owns the object, and another admin. Another user's agent or
 * notification answers 404, never 403, so ids do not leak. A route registered without a row
 * here fails the test, as does a row for a route that no longer exists.
 */
describe('permission matrix', () => {
  let t: TestApp;
  const cookies = {} as Record<Exclude<Actor, 'signed out'>, string>;
  let n = 0;

  beforeAll(async () => {
    // The live console's stream ends on its own soon, so inject() gets its whole answer.
    // Every row makes its objects as the owner: more writes a minute than the default limit (write-limit.api.test.ts checks that limit).
    t = await createTestApp({ env: { ADMIN_EMAILS: `${OWNER},${OTHER}`, CHAT_SHARE_ROLES: 'admin', MARKET_DATA: 'simulated', EVENT_STREAM_MAX_MS: '50', WRITE_RATE_LIMIT: '1000' } });
    cookies.owner = await t.signIn(OWNER, 'Owner');
    cookies['another admin'] = await t.signIn(OTHER, 'Other');
    cookies.guest = await t.signIn('guest@example.com', 'Guest');
  });
  afterAll(async () => t.close());

  const asOwner = async (method: string, path: string, payload?: unknown) => {
    const res = await t.request({ method: method as 'POST', url: path, cookie: cookies.owner, ...(payload === undefined ? {} : { payload: payload as object }) });
    if (res.statusCode >= 300) throw new Error(`${method} ${path} as owner: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const template = findTemplate('stock-market-scanner')!;
  const agentConfig = () => defaultAgentConfig(template);
  const newAgent = async (): Promise<{ id: string; name: string }> => asOwner('POST', '/api/agents', { templateId: template.id, name: `Matrix ${++n}`, config: agentConfig() });
  const ARTICLE_TEXT = { category: 'Operations', excerpt: 'How a small team took the busywork out of its week.', content: 'Automation pays when it removes a decision nobody needed to make. '.repeat(3) };
  const newArticle = async (): Promise<{ id: string; slug: string; tags: Array<{ slug: string }> }> =>
    asOwner('POST', '/api/articles', { title: `Matrix article ${++n}`, ...ARTICLE_TEXT, published: true });
  const newDraft = async (): Promise<{ id: string; slug: string }> => asOwner('POST', '/api/articles', { title: `Matrix draft ${++n}`, ...ARTICLE_TEXT });
  /** A preview link of a new draft (issue 34 item 2): its article's id, its id and its token. */
  const newPreviewLink = async (): Promise<{ articleId: string; id: string; token: string }> => {
    const { id: articleId } = await newDraft();
    const link = await asOwner('POST', `/api/admin/articles/${articleId}/preview-links`);
    return { articleId, id: link.id, token: link.url.split('/preview/')[1] };
  };
  /** The first revision of a new article, by path under /api/admin/articles. */
  const firstRevisionPath = async (): Promise<string> => {
    const { id } = await newArticle();
    const { revisions } = await asOwner('GET', `/api/admin/articles/${id}/revisions`);
    return `/api/admin/articles/${id}/revisions/${revisions[0].id}`;
  };
  /** A Custom Monitor with a condition (issue 30): the agent's id and the condition's. */
  const newConditionAgent = async (): Promise<{ agentId: string; conditionId: string }> => {
    const condition = sampleCondition();
    const agent = await asOwner('POST', '/api/agents', { templateId: 'custom-monitor', name: `Matrix monitor ${++n}`, config: customMonitorConfig([condition]) });
    return { agentId: agent.id, conditionId: condition.id };
  };
  const conditionPath = async (action: string): Promise<string> => {
    const { agentId, conditionId } = await newConditionAgent();
    return `/api/agents/${agentId}/conditions/${conditionId}/${action}`;
  };
  const ownerId = async (): Promise<string> => (await asOwner('GET', '/api/auth/me')).user.id;
  const newNotification = async (): Promise<string> => {
    const agent = await newAgent();
    const { runId } = await asOwner('POST', `/api/agents/${agent.id}/run`);
    return inAppAlert(t, { userId: await ownerId(), agentId: agent.id, agentName: agent.name, runId });
  };
  const newUserId = async (): Promise<string> => {
    const email = `someone-${++n}@example.com`;
    await t.signIn(email, 'Someone');
    return ((await asOwner('GET', '/api/users')) as Array<{ id: string; email: string }>).find((u) => u.email === email)!.id;
  };
  const newChannel = async (): Promise<string> => (await asOwner('POST', '/api/channels', { kind: 'telegram', name: 'Desk', botToken: '123456789:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', chatId: '42' })).id;
  const at = (path: string, payload?: unknown) => async (): Promise<Call> => ({ path, payload });
  /** A pending proposal of the owner's, made as an assistant makes one (issue 31). */
  const newProposal = async (): Promise<string> => {
    const outcome = await t.app.agentTools.run(chatCaller(await sessionUser(t, OWNER)), 'propose_agent', JSON.stringify({ templateId: template.id, name: `Proposed ${++n}`, config: agentConfig(), reason: 'A test' }));
    if (!outcome.proposalId) throw new Error(`propose_agent: ${outcome.status} ${outcome.summary}`);
    return outcome.proposalId;
  };
  const newConversation = async (): Promise<string> => (await asOwner('POST', '/api/chat/conversations', conversationBody())).conversation.id;
  const newAccessToken = async (): Promise<string> => (await asOwner('POST', '/api/settings/access-tokens', { name: `Matrix token ${++n}`, scope: 'read', expiresInDays: 7 })).id;
  const newPreset = async (): Promise<string> => (await asOwner('POST', '/api/chat/presets', presetBody())).id;
  const newShareLink = async (): Promise<string> => (await asOwner('POST', `/api/chat/conversations/${await newConversation()}/shares`, {})).id;
  const newImage = async (): Promise<string> => (await asOwner('POST', '/api/chat/images', imageBody())).id;
  const newDocument = async (): Promise<string> => {
    const res = await t.request({ method: 'POST', url: `/api/documents?name=matrix-${++n}.txt`, cookie: cookies.owner, headers: { 'content-type': 'application/octet-stream' }, payload: Buffer.from('Matrix words.') });
    if (res.statusCode !== 201) throw new Error(`POST /api/documents: ${res.statusCode} ${res.body}`);
    return res.json<{ id: string }>().id;
  };
  const newPassage = async (): Promise<string> => {
    const documentId = await newDocument();
    const [row] = await t.database.db.select({ id: documentPassages.id }).from(documentPassages).where(eq(documentPassages.documentId, documentId));
    return row!.id;
  };
  const newProject = async (): Promise<string> => (await asOwner('POST', '/api/projects', { name: `Matrix project ${++n}` })).id;

  const chatRows: Row[] = CHAT_PROVIDERS.map((provider) => ({
    method: 'POST',
    url: CHAT_PROVIDER_INFO[provider].endpoint,
    call: at(CHAT_PROVIDER_INFO[provider].endpoint, { model: provider === 'llama' ? 'llama3.1' : CHAT_PROVIDER_INFO[provider].defaultModel, messages: [{ role: 'user', content: 'Hello' }] }),
    // No keys and no Ollama here: allowed callers get 200 with SPEC's error body.
    expected: CHAT_PROVIDER_INFO[provider].defaultAccess === 'admin' ? [401, 403, 200, 200] : [401, 200, 200, 200],
  }));

  const rows: Row[] = [
    { method: 'GET', url: '/api/health', call: at('/api/health'), expected: [200, 200, 200, 200] },
    { method: 'GET', url: '/api/health/live', call: at('/api/health/live'), expected: [200, 200, 200, 200] },
    { method: 'GET', url: '/api/health/ready', call: at('/api/health/ready'), expected: [200, 200, 200, 200] },
    { method: 'POST', url: '/api/auth/local/login', call: async () => ({ path: '/api/auth/local/login', payload: { email: `signin-${++n}@example.com`, name: 'New' } }), expected: [200, 200, 200, 200], freshSession: true },
    { method: 'POST', url: '/api/auth/user', call: at('/api/auth/user', {}), expected: [401, 200, 200, 200] },
    { method: 'GET', url: '/api/auth/me', call: at('/api/auth/me'), expected: [200, 200, 200, 200] },
    { method: 'POST', url: '/api/auth/logout', call: at('/api/auth/logout'), expected: [204, 204, 204, 204], freshSession: true },
    { method: 'GET', url: '/api/users', call: at('/api/users'), expected: [401, 403, 200, 200] },
    // Passkey accounts (docs/decisions/0092). Every actor here signs in locally: adding or removing a passkey is 409 for them.
    { method: 'POST', url: '/api/invites', call: async () => ({ path: '/api/invites', payload: { email: `invited-${++n}@example.com`, role: 'guest' } }), expected: [401, 403, 201, 201] },
    { method: 'POST', url: '/api/auth/invite/options', call: async () => ({ path: '/api/auth/invite/options', payload: { token: 'x'.repeat(43) } }), expected: [404, 404, 404, 404] },
    { method: 'POST', url: '/api/auth/invite/verify', call: async () => ({ path: '/api/auth/invite/verify', payload: { token: 'x'.repeat(43), name: 'Key', credential: {} } }), expected: [400, 400, 400, 400] },
    { method: 'POST', url: '/api/auth/passkey/options', call: async () => ({ path: '/api/auth/passkey/options', payload: {} }), expected: [200, 200, 200, 200] },
    { method: 'POST', url: '/api/auth/passkey/verify', call: async () => ({ path: '/api/auth/passkey/verify', payload: { credential: {} } }), expected: [400, 400, 400, 400] },
    { method: 'GET', url: '/api/passkeys', call: at('/api/passkeys'), expected: [401, 200, 200, 200] },
    { method: 'POST', url: '/api/passkeys/options', call: async () => ({ path: '/api/passkeys/options', payload: {} }), expected: [401, 409, 409, 409] },
    { method: 'POST', url: '/api/passkeys', call: async () => ({ path: '/api/passkeys', payload: { name: 'Key', credential: {} } }), expected: [401, 400, 400, 400] },
    { method: 'DELETE', url: '/api/passkeys/:id', call: async () => ({ path: '/api/passkeys/00000000-0000-4000-8000-000000000000' }), expected: [401, 409, 409, 409] },
    { method: 'PATCH', url: '/api/users/:id', call: async () => ({ path: `/api/users/${await newUserId()}`, payload: { role: 'guest' } }), expected: [401, 403, 200, 200] },
    { method: 'GET', url: '/api/agent-templates', call: at('/api/agent-templates'), expected: [401, 200, 200, 200] },
    { method: 'GET', url: '/api/agents', call: at('/api/agents'), expected: [401, 403, 200, 200] },
    { method: 'POST', url: '/api/agents', call: async () => ({ path: '/api/agents', payload: { templateId: template.id, name: `Posted ${++n}`, config: agentConfig() } }), expected: [401, 403, 201, 201] },
    { method: 'GET', url: '/api/agents/:id', call: async () => ({ path: `/api/agents/${(await newAgent()).id}` }), expected: [401, 403, 200, 404] },
    // Describe it: no keys here, so an allowed caller gets the missing key's 400 (and nothing is called).
    {
      method: 'POST',
      url: '/api/agents/conditions/draft',
      call: at('/api/agents/conditions/draft', { text: 'close crosses above 100', provider: 'openai', model: 'gpt-4o', agentTimeframe: '1h', templateId: template.id }),
      expected: [401, 403, 400, 400],
    },
    { method: 'POST', url: '/api/agents/backtest', call: at('/api/agents/backtest', { templateId: template.id, config: agentConfig(), candles: 50 }), expected: [401, 403, 200, 200] },
    { method: 'POST', url: '/api/agents/:id/backtest', call: async () => ({ path: `/api/agents/${(await newAgent()).id}/backtest`, payload: { candles: 50 } }), expected: [401, 403, 200, 404] },
    { method: 'GET', url: '/api/agents/:id/runs', call: async () => ({ path: `/api/agents/${(await newAgent()).id}/runs` }), expected: [401, 403, 200, 404] },
    { method: 'PATCH', url: '/api/agents/:id', call: async () => ({ path: `/api/agents/${(await newAgent()).id}`, payload: { name: 'Renamed' } }), expected: [401, 403, 200, 404] },
    { method: 'DELETE', url: '/api/agents/:id', call: async () => ({ path: `/api/agents/${(await newAgent()).id}` }), expected: [401, 403, 204, 404] },
    { method: 'POST', url: '/api/agents/:id/run', call: async () => ({ path: `/api/agents/${(await newAgent()).id}/run` }), expected: [401, 403, 202, 404] },
    // Conditions of the owner's own (issue 30): a guest cannot set them, nor another admin snooze or re-arm them.
    { method: 'POST', url: '/api/agents', call: async () => ({ path: '/api/agents', payload: { templateId: 'custom-monitor', name: `Monitor ${++n}`, config: customMonitorConfig() } }), expected: [401, 403, 201, 201] },
    { method: 'GET', url: '/api/agents/:id/conditions/state', call: async () => ({ path: `/api/agents/${(await newConditionAgent()).agentId}/conditions/state` }), expected: [401, 403, 200, 404] },
    { method: 'POST', url: '/api/agents/:id/conditions/:conditionId/snooze', call: async () => ({ path: await conditionPath('snooze'), payload: { preset: '4h' } }), expected: [401, 403, 200, 404] },
    { method: 'DELETE', url: '/api/agents/:id/conditions/:conditionId/snooze', call: async () => ({ path: await conditionPath('snooze') }), expected: [401, 403, 200, 404] },
    { method: 'POST', url: '/api/agents/:id/conditions/:conditionId/rearm', call: async () => ({ path: await conditionPath('rearm') }), expected: [401, 403, 200, 404] },
    // Proposals are their owner's (issue 31): another admin's is 404, as a missing one.
    { method: 'GET', url: '/api/agents/proposals', call: at('/api/agents/proposals?status=pending'), expected: [401, 403, 200, 200] },
    { method: 'GET', url: '/api/agents/proposals/:id', call: async () => ({ path: `/api/agents/proposals/${await newProposal()}` }), expected: [401, 403, 200, 404] },
    { method: 'POST', url: '/api/agents/proposals/:id/apply', call: async () => ({ path: `/api/agents/proposals/${await newProposal()}/apply` }), expected: [401, 403, 200, 404] },
    { method: 'POST', url: '/api/agents/proposals/:id/discard', call: async () => ({ path: `/api/agents/proposals/${await newProposal()}/discard` }), expected: [401, 403, 200, 404] },
    { method: 'GET', url: '/api/articles', call: at('/api/articles'), expected: [200, 200, 200, 200] },
    { method: 'GET', url: '/api/articles/:slug', call: async () => ({ path: `/api/articles/${(await newArticle()).slug}` }), expected: [200, 200, 200, 200] },
    // A tag's page (decision 0100): public, as the articles' list.
    { method: 'GET', url: '/api/articles/tag/:slug', call: async () => ({ path: `/api/articles/tag/${(await newArticle()).tags[0]!.slug}` }), expected: [200, 200, 200, 200] },
    { method: 'POST', url: '/api/articles', call: async () => ({ path: '/api/articles', payload: { title: `Posted article ${++n}`, ...ARTICLE_TEXT } }), expected: [401, 403, 201, 201] },
    { method: 'POST', url: '/api/articles/images', call: async () => ({ path: '/api/articles/images?type=image/png', payload: sampleImage('png'), raw: true }), expected: [401, 403, 201, 201] },
    // Articles are the site's, not one admin's: any admin edits any article.
    { method: 'PATCH', url: '/api/articles/:id', call: async () => ({ path: `/api/articles/${(await newArticle()).id}`, payload: { title: `Edited ${++n}` } }), expected: [401, 403, 200, 200] },
    { method: 'DELETE', url: '/api/articles/:id', call: async () => ({ path: `/api/articles/${(await newArticle()).id}` }), expected: [401, 403, 204, 204] },
    { method: 'GET', url: '/api/admin/articles', call: at('/api/admin/articles'), expected: [401, 403, 200, 200] },
    { method: 'GET', url: '/api/admin/articles/:id', call: async () => ({ path: `/api/admin/articles/${(await newArticle()).id}` }), expected: [401, 403, 200, 200] },
    // Revisions (issue 34 item 6) follow their article: any admin's.
    { method: 'GET', url: '/api/admin/articles/:id/revisions', call: async () => ({ path: `/api/admin/articles/${(await newArticle()).id}/revisions` }), expected: [401, 403, 200, 200] },
    { method: 'GET', url: '/api/admin/articles/:id/revisions/:revisionId', call: async () => ({ path: await firstRevisionPath() }), expected: [401, 403, 200, 200] },
    { method: 'POST', url: '/api/articles/:id/revisions/:revisionId/restore', call: async () => ({ path: `${(await firstRevisionPath()).replace('/api/admin/articles/', '/api/articles/')}/restore` }), expected: [401, 403, 200, 200] },
    // Preview links (issue 34 item 2) follow their article: any admin's; reading one needs only the link.
    { method: 'GET', url: '/api/admin/articles/:id/preview-links', call: async () => ({ path: `/api/admin/articles/${(await newDraft()).id}/preview-links` }), expected: [401, 403, 200, 200] },
    { method: 'POST', url: '/api/admin/articles/:id/preview-links', call: async () => ({ path: `/api/admin/articles/${(await newDraft()).id}/preview-links` }), expected: [401, 403, 201, 201] },
    {
      method: 'DELETE',
      url: '/api/admin/articles/:id/preview-links/:linkId',
      call: async () => {
        const link = await newPreviewLink();
        return { path: `/api/admin/articles/${link.articleId}/preview-links/${link.id}` };
      },
      expected: [401, 403, 204, 204],
    },
    { method: 'GET', url: '/api/preview/:token', call: async () => ({ path: `/api/preview/${(await newPreviewLink()).token}` }), expected: [200, 200, 200, 200] },
    ...chatRows,
    { method: 'GET', url: '/api/chat/providers', call: at('/api/chat/providers'), expected: [401, 200, 200, 200] },
    { method: 'GET', url: '/api/admin/usage', call: at('/api/admin/usage'), expected: [401, 403, 200, 200] },
    // Chat history and presets are each user's own: another user's answers 404, so ids do not leak.
    { method: 'GET', url: '/api/chat/conversations', call: at('/api/chat/conversations?q=hello'), expected: [401, 200, 200, 200] },
    { method: 'POST', url: '/api/chat/conversations', call: async () => ({ path: '/api/chat/conversations', payload: conversationBody() }), expected: [401, 201, 201, 201] },
    { method: 'POST', url: '/api/chat/conversations/import', call: async () => ({ path: '/api/chat/conversations/import', payload: { conversations: [conversationBody()] } }), expected: [401, 200, 200, 200] },
    { method: 'GET', url: '/api/chat/conversations/:id', call: async () => ({ path: `/api/chat/conversations/${await newConversation()}` }), expected: [401, 404, 200, 404] },
    { method: 'PATCH', url: '/api/chat/conversations/:id', call: async () => ({ path: `/api/chat/conversations/${await newConversation()}`, payload: { customTitle: 'Renamed' } }), expected: [401, 404, 200, 404] },
    { method: 'DELETE', url: '/api/chat/conversations/:id', call: async () => ({ path: `/api/chat/conversations/${await newConversation()}` }), expected: [401, 404, 204, 404] },
    { method: 'GET', url: '/api/chat/conversations/:id/export', call: async () => ({ path: `/api/chat/conversations/${await newConversation()}/export?format=md` }), expected: [401, 404, 200, 404] },
    // An answer of the owner's chat (conversationBody's 'a1', ended): joined again and stopped by its owner alone.
    { method: 'GET', url: '/api/chat/conversations/:id/stream', call: async () => ({ path: `/api/chat/conversations/${await newConversation()}/stream?answer=a1` }), expected: [401, 404, 200, 404] },
    { method: 'POST', url: '/api/chat/conversations/:id/stop', call: async () => ({ path: `/api/chat/conversations/${await newConversation()}/stop`, payload: { answer: 'a1' } }), expected: [401, 404, 204, 404] },
    // Chat images are each user's own (docs/decisions/0055).
    // Share links (issue 32): sharing is for the roles CHAT_SHARE_ROLES names (admin here), so a guest hears 403.
    { method: 'POST', url: '/api/chat/conversations/:id/shares', call: async () => ({ path: `/api/chat/conversations/${await newConversation()}/shares`, payload: {} }), expected: [401, 403, 201, 404] },
    { method: 'GET', url: '/api/chat/shares', call: at('/api/chat/shares'), expected: [401, 200, 200, 200] },
    { method: 'DELETE', url: '/api/chat/shares/:id', call: async () => ({ path: `/api/chat/shares/${await newShareLink()}` }), expected: [401, 404, 204, 404] },
    { method: 'POST', url: '/api/chat/images', call: async () => ({ path: '/api/chat/images', payload: imageBody() }), expected: [401, 201, 201, 201] },
    { method: 'GET', url: '/api/chat/images/:id', call: async () => ({ path: `/api/chat/images/${await newImage()}` }), expected: [401, 404, 200, 404] },
    { method: 'DELETE', url: '/api/chat/images/:id', call: async () => ({ path: `/api/chat/images/${await newImage()}` }), expected: [401, 404, 204, 404] },
    // Documents are each signed-in user's own (issue 32, docs/decisions/0081).
    { method: 'POST', url: '/api/documents', call: async () => ({ path: `/api/documents?name=posted-${++n}.txt`, payload: Buffer.from('Posted words.'), raw: true }), expected: [401, 201, 201, 201] },
    { method: 'GET', url: '/api/documents', call: at('/api/documents'), expected: [401, 200, 200, 200] },
    { method: 'GET', url: '/api/documents/passages/:id', call: async () => ({ path: `/api/documents/passages/${await newPassage()}` }), expected: [401, 404, 200, 404] },
    { method: 'DELETE', url: '/api/documents/:id', call: async () => ({ path: `/api/documents/${await newDocument()}` }), expected: [401, 404, 204, 404] },
    { method: 'GET', url: '/api/chat/presets', call: at('/api/chat/presets'), expected: [401, 200, 200, 200] },
    { method: 'POST', url: '/api/chat/presets', call: async () => ({ path: '/api/chat/presets', payload: presetBody() }), expected: [401, 201, 201, 201] },
    { method: 'PATCH', url: '/api/chat/presets/:id', call: async () => ({ path: `/api/chat/presets/${await newPreset()}`, payload: { temperature: 1 } }), expected: [401, 404, 200, 404] },
    { method: 'DELETE', url: '/api/chat/presets/:id', call: async () => ({ path: `/api/chat/presets/${await newPreset()}` }), expected: [401, 404, 204, 404] },
    // Projects are each user's own (issue 32).
    { method: 'GET', url: '/api/projects', call: at('/api/projects'), expected: [401, 200, 200, 200] },
    { method: 'POST', url: '/api/projects', call: async () => ({ path: '/api/projects', payload: { name: `Matrix project ${++n}` } }), expected: [401, 201, 201, 201] },
    { method: 'GET', url: '/api/projects/:id', call: async () => ({ path: `/api/projects/${await newProject()}` }), expected: [401, 404, 200, 404] },
    { method: 'PATCH', url: '/api/projects/:id', call: async () => ({ path: `/api/projects/${await newProject()}`, payload: { instructions: 'Be brief.' } }), expected: [401, 404, 200, 404] },
    { method: 'DELETE', url: '/api/projects/:id', call: async () => ({ path: `/api/projects/${await newProject()}` }), expected: [401, 404, 204, 404] },
    { method: 'GET', url: '/api/notifications', call: at('/api/notifications'), expected: [401, 200, 200, 200] },
    { method: 'POST', url: '/api/notifications/read-all', call: at('/api/notifications/read-all'), expected: [401, 204, 204, 204] },
    { method: 'POST', url: '/api/notifications/:id/read', call: async () => ({ path: `/api/notifications/${await newNotification()}/read` }), expected: [401, 404, 200, 404] },
    { method: 'GET', url: '/api/events', call: at('/api/events'), expected: [401, 403, 200, 200] },
    { method: 'GET', url: '/api/settings', call: at('/api/settings'), expected: [401, 200, 200, 200] },
    // Channels are an agent owner's, like the agents that use them; another admin's is 404.
    { method: 'GET', url: '/api/channels', call: at('/api/channels'), expected: [401, 403, 200, 200] },
    { method: 'POST', url: '/api/channels', call: at('/api/channels', { kind: 'telegram', name: 'Desk', botToken: '123456789:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', chatId: '42' }), expected: [401, 403, 201, 201] },
    { method: 'DELETE', url: '/api/channels/:id', call: async () => ({ path: `/api/channels/${await newChannel()}` }), expected: [401, 403, 204, 404] },
    { method: 'POST', url: '/api/channels/:id/test', call: async () => ({ path: `/api/channels/${await newChannel()}/test` }), expected: [401, 403, 200, 404] },
    { method: 'PUT', url: '/api/settings', call: at('/api/settings', { alertEmail: null, timeZone: 'Europe/Paris' }), expected: [401, 200, 200, 200] },
    // Access tokens for the MCP server (docs/decisions/0078): any signed-in user's own; another's is 404.
    { method: 'GET', url: '/api/settings/access-tokens', call: at('/api/settings/access-tokens'), expected: [401, 200, 200, 200] },
    { method: 'POST', url: '/api/settings/access-tokens', call: async () => ({ path: '/api/settings/access-tokens', payload: { name: `Posted token ${++n}`, scope: 'propose', expiresInDays: 30 } }), expected: [401, 201, 201, 201] },
    { method: 'DELETE', url: '/api/settings/access-tokens/:id', call: async () => ({ path: `/api/settings/access-tokens/${await newAccessToken()}` }), expected: [401, 404, 204, 404] },
  ];

  it('has a row for every registered /api route, and no row for a route that is gone', () => {
    const key = (r: { method: string; url: string }) => `${r.method} ${r.url}`;
    // Fastify adds a HEAD route for each GET; it answers as the GET does.
    const registered = new Set(t.app.apiRoutes.filter((r) => r.method !== 'HEAD').map(key));
    const covered = new Set(rows.map(key));
    expect([...registered].filter((r) => !covered.has(r)), 'routes without a row').toEqual([]);
    expect([...covered].filter((r) => !registered.has(r)), 'rows without a route').toEqual([]);
  });

  it.each(rows.map((row) => [`${row.method} ${row.url}`, row] as const))('%s', async (_label, row) => {
    const seen: Record<string, number> = {};
    for (const actor of ACTORS) {
      const { path, payload, raw } = await row.call();
      const cookie =
        actor === 'signed out'
          ? undefined
          : row.freshSession
            ? await t.signIn(actor === 'owner' ? OWNER : actor === 'another admin' ? OTHER : 'guest@example.com')
            : cookies[actor];
      const res = await t.request({
        method: row.method as 'GET',
        url: path,
        ...(cookie ? { cookie } : {}),
        ...(payload === undefined ? {} : { payload: payload as object }),
        ...(raw ? { headers: { 'content-type': 'application/octet-stream' } } : {}),
      });
      seen[actor] = res.statusCode;
      if (res.statusCode >= 400) expect(res.json(), `${actor}: error body`).toHaveProperty('error');
    }
    expect(seen).toEqual(Object.fromEntries(ACTORS.map((actor, i) => [actor, row.expected[i]])));
  });
});
