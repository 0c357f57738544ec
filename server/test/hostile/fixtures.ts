import type { TArticleRevisionList } from '../../../contracts/articles.ts';
import { defaultAgentConfig, findTemplate, type TAgentConfig } from '../../../contracts/agents.ts';
import { ACCESS_TOKENS_PER_USER } from '../../../contracts/assistant-tools.ts';
import { MAX_CHANNELS } from '../../../contracts/channels.ts';
import { MAX_PRESETS } from '../../../contracts/chat-history.ts';
import { PROJECT_LIMITS } from '../../../contracts/projects.ts';
import { conversationBody, imageBody } from '../chat-helpers.ts';
import { customMonitorConfig, inAppAlert, sampleCondition } from '../agent-fixtures.ts';
import type { TestApp } from '../test-app.ts';
import { insertProposal } from '../../modules/proposals/proposals.repo.ts';
import { eq } from 'drizzle-orm';
import { documentPassages } from '../../db/schema.ts';

export const ADMIN_EMAIL = 'hostile-admin@example.com';

/** Real objects for routes on an object, so a hostile request gets as far as validation. Each
 * call makes a new one, owned by the admin. */
export type Fixtures = {
  admin: string;
  agent(): Promise<string>;
  /** An agent with a condition (issue 30): its id and the condition's. */
  conditionAgent(): Promise<{ agentId: string; conditionId: string }>;
  article(): Promise<{ id: string; slug: string; tags: Array<{ slug: string }> }>;
  /** One article's first revision (issue 34 item 6), the same for the whole file. */
  articleRevision(): Promise<{ articleId: string; revisionId: string }>;
  /** A draft (one per run) and a new preview link on it. */
  previewDraft(): Promise<string>;
  previewLink(): Promise<{ articleId: string; id: string; token: string }>;
  notification(): Promise<string>;
  channel(): Promise<string>;
  accessToken(): Promise<string>;
  /** A saved chat's id. */
  conversation(): Promise<string>;
  preset(): Promise<string>;
  /** A project's id (issue 32). */
  project(): Promise<string>;
  /** An uploaded chat image's id. */
  image(): Promise<string>;
  /** An uploaded document's id, and a passage of a new one (issue 32). */
  document(): Promise<string>;
  passage(): Promise<string>;
  /** A share link's id (issue 32), of a saved chat of its own. */
  shareLink(): Promise<string>;
  /** A pending proposal's id, made as an assistant makes one (issue 31). */
  proposal(): Promise<string>;
  guestUserId(): Promise<string>;
  /** A session of its own, for routes that end the caller's session. */
  throwawaySession(): Promise<string>;
};

const template = findTemplate('stock-market-scanner')!;

/** With "Explain alerts" on and a condition, so hostile bodies mutate their fields too (docs/decisions/0044, 0071). */
export function validAgentConfig(): TAgentConfig {
  const config = defaultAgentConfig(template, 'Europe/Paris');
  return { ...config, notifications: { ...config.notifications, brief: { provider: 'deepseek', model: 'deepseek-chat' } }, conditions: [sampleCondition()] };
}
export const VALID_AGENT = { templateId: template.id, name: 'Hostile scanner', config: validAgentConfig() };
/** A Custom Monitor: its watchlist and conditions mutated too (issue 30). */
export const VALID_MONITOR = { templateId: 'custom-monitor', name: 'Hostile monitor', config: customMonitorConfig() };
export const VALID_ARTICLE = {
  title: 'Taking the busywork out of the week',
  category: 'Operations',
  excerpt: 'How a small team stopped making decisions nobody needed.',
  content: 'Automation pays when it removes a decision nobody needed to make. '.repeat(3),
  published: true,
};

export const VALID_CHANNEL = { kind: 'telegram', name: 'Desk', botToken: '123456789:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', chatId: '42' };
export const VALID_ACCESS_TOKEN = { name: 'Claude Desktop', scope: 'read', expiresInDays: 30 };

export async function createFixtures(t: TestApp): Promise<Fixtures> {
  const admin = await t.signIn(ADMIN_EMAIL, 'Hostile Admin');
  let n = 0;
  const newDocument = async (): Promise<string> => {
    const res = await t.request({ method: 'POST', url: `/api/documents?name=fixture-${++n}.txt`, cookie: admin, headers: { 'content-type': 'application/octet-stream' }, payload: Buffer.from('A fixture document.') });
    if (res.statusCode !== 201) throw new Error(`POST /api/documents: ${res.statusCode} ${res.body}`);
    return res.json<{ id: string }>().id;
  };
  const asAdmin = async <T>(method: 'GET' | 'POST', url: string, payload?: object): Promise<T> => {
    const res = await t.request({ method, url, cookie: admin, ...(payload ? { payload } : {}) });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json() as T;
  };
  const agent = async () => (await asAdmin<{ id: string }>('POST', '/api/agents', { ...VALID_AGENT, name: `Fixture agent ${++n}` })).id;
  const adminId = async () => (await asAdmin<{ user: { id: string } }>('GET', '/api/auth/me')).user.id;

  let conditionAgent: Promise<{ agentId: string; conditionId: string }> | undefined;
  let articleRevision: Promise<{ articleId: string; revisionId: string }> | undefined;
  let previewDraft: Promise<string> | undefined;
  const draftForPreviews = () => (previewDraft ??= asAdmin<{ id: string }>('POST', '/api/articles', { ...VALID_ARTICLE, published: false, title: `Fixture draft number ${++n}` }).then((a) => a.id));
  return {
    admin,
    agent,
    conditionAgent: () =>
      (conditionAgent ??= (async () => {
        const condition = sampleCondition();
        const created = await asAdmin<{ id: string }>('POST', '/api/agents', { ...VALID_MONITOR, name: `Fixture monitor ${++n}`, config: customMonitorConfig([condition]) });
        return { agentId: created.id, conditionId: condition.id };
      })()),
    article: () => asAdmin('POST', '/api/articles', { ...VALID_ARTICLE, title: `Fixture article number ${++n}` }),
    articleRevision: () =>
      (articleRevision ??= (async () => {
        const { id } = await asAdmin<{ id: string }>('POST', '/api/articles', { ...VALID_ARTICLE, title: `Fixture article number ${++n}` });
        const { revisions } = await asAdmin<TArticleRevisionList>('GET', `/api/admin/articles/${id}/revisions`);
        return { articleId: id, revisionId: revisions[0]!.id };
      })()),
    /** A draft to share (issue 34 item 2): its preview links are made on it. */
    previewDraft: draftForPreviews,
    async previewLink() {
      const articleId = await draftForPreviews();
      const link = await asAdmin<{ id: string; url: string }>('POST', `/api/admin/articles/${articleId}/preview-links`);
      return { articleId, id: link.id, token: link.url.split('/preview/')[1]! };
    },
    async notification() {
      const agentId = await agent();
      const { runId } = await asAdmin<{ runId: number }>('POST', `/api/agents/${agentId}/run`);
      return inAppAlert(t, { userId: await adminId(), agentId, agentName: 'Fixture agent', runId });
    },
    async channel() {
      // Valid hostile bodies create channels too: at the cap, the newest makes room.
      const { channels } = await asAdmin<{ channels: Array<{ id: string }> }>('GET', '/api/channels');
      if (channels.length >= MAX_CHANNELS) await t.request({ method: 'DELETE', url: `/api/channels/${channels.at(-1)!.id}`, cookie: admin });
      return (await asAdmin<{ id: string }>('POST', '/api/channels', { ...VALID_CHANNEL, name: `Fixture channel ${++n}` })).id;
    },
    async accessToken() {
      // Valid hostile bodies create tokens too: at the cap, the newest is revoked to make room.
      const tokens = await asAdmin<Array<{ id: string }>>('GET', '/api/settings/access-tokens');
      if (tokens.length >= ACCESS_TOKENS_PER_USER) await t.request({ method: 'DELETE', url: `/api/settings/access-tokens/${tokens[0]!.id}`, cookie: admin });
      return (await asAdmin<{ id: string }>('POST', '/api/settings/access-tokens', VALID_ACCESS_TOKEN)).id;
    },
    conversation: async () => (await asAdmin<{ conversation: { id: string } }>('POST', '/api/chat/conversations', conversationBody())).conversation.id,
    async shareLink() {
      const chat = (await asAdmin<{ conversation: { id: string } }>('POST', '/api/chat/conversations', conversationBody())).conversation.id;
      return (await asAdmin<{ id: string }>('POST', `/api/chat/conversations/${chat}/shares`, {})).id;
    },
    async preset() {
      // Valid hostile bodies create presets too: at the cap, one makes room.
      const { presets } = await asAdmin<{ presets: Array<{ id: string }> }>('GET', '/api/chat/presets');
      if (presets.length >= MAX_PRESETS) await t.request({ method: 'DELETE', url: `/api/chat/presets/${presets.at(-1)!.id}`, cookie: admin });
      return (await asAdmin<{ id: string }>('POST', '/api/chat/presets', { name: `Fixture preset ${++n}` })).id;
    },
    async project() {
      // Valid hostile bodies create projects too: at the cap, one makes room.
      const { projects } = await asAdmin<{ projects: Array<{ id: string }> }>('GET', '/api/projects');
      if (projects.length >= PROJECT_LIMITS.maxProjects) await t.request({ method: 'DELETE', url: `/api/projects/${projects.at(-1)!.id}`, cookie: admin });
      return (await asAdmin<{ id: string }>('POST', '/api/projects', { name: `Fixture project ${++n}` })).id;
    },
    image: async () => (await asAdmin<{ id: string }>('POST', '/api/chat/images', imageBody())).id,
    document: newDocument,
    async passage() {
      const documentId = await newDocument();
      const [row] = await t.database.db.select({ id: documentPassages.id }).from(documentPassages).where(eq(documentPassages.documentId, documentId));
      return row!.id;
    },
    // Recorded as propose_agent records one, without its test on history (each decision needs a fresh one).
    proposal: async () =>
      (
        await insertProposal(t.database.db, {
          userId: await adminId(),
          source: 'mcp',
          sourceName: 'Fixture token',
          conversationId: null,
          kind: 'create',
          agentId: null,
          templateId: VALID_AGENT.templateId,
          name: `Fixture proposal ${++n}`,
          config: VALID_AGENT.config,
          reason: 'A fixture',
          baseName: null,
          baseConfig: null,
          backtest: null,
          backtestError: 'Not tested: a fixture',
        })
      ).id,
    async guestUserId() {
      const email = `hostile-guest-${++n}@example.com`;
      await t.signIn(email, 'Guest');
      return (await asAdmin<Array<{ id: string; email: string }>>('GET', '/api/users')).find((u) => u.email === email)!.id;
    },
    throwawaySession: () => t.signIn(`hostile-throwaway-${++n}@example.com`, 'Throwaway'),
  };
}
