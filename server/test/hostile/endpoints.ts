import { ZAgentIdParams, ZAgentQuery, ZCreateAgent, ZRunAgent, ZRunsQuery, ZUpdateAgent } from '../../../contracts/agents.ts';
import { ZAgentBacktestRequest, ZBacktestRequest } from '../../../contracts/backtest.ts';
import { ZConditionDraftRequest } from '../../../contracts/condition-draft.ts';
import { ZArticleIdParams, ZArticleListQuery, ZArticleRevisionParams, ZArticleSlugParams, ZCreateArticle, ZTagPageParams, ZPreviewLinkParams, ZPreviewTokenParams, ZUpdateArticle } from '../../../contracts/articles.ts';
import { ZLocalLogin, ZSyncUser } from '../../../contracts/auth.ts';
import { ZUpdateUserRole, ZUserIdParams } from '../../../contracts/users.ts';
import { ZAddPasskey, ZCreateInvite, ZInviteOptions, ZInviteVerify, ZPasskeyParams, ZPasskeySignIn } from '../../../contracts/passkeys.ts';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS, ZChatRequest, ZChatUsageQuery, ZImageIdParams, ZUploadImage } from '../../../contracts/chat.ts';
import { ZNotificationIdParams, ZNotificationsQuery } from '../../../contracts/notifications.ts';
import { ZUpdateSettings } from '../../../contracts/settings.ts';
import { ZCreateProject, ZProjectParams, ZUpdateProject } from '../../../contracts/projects.ts';
import { ZChannelIdParams, ZCreateChannel } from '../../../contracts/channels.ts';
import { ZAccessTokenParams, ZCreateAccessToken } from '../../../contracts/assistant-tools.ts';
import { ZConditionParams, ZSnoozeRequest } from '../../../contracts/conditions.ts';
import { ZProposalParams, ZProposalsQuery } from '../../../contracts/assistant-tools.ts';
import {
  ZAnswerQuery,
  ZConversationListQuery,
  ZConversationParams,
  ZCreatePreset,
  ZExportQuery,
  ZImportConversations,
  ZPresetIdParams,
  ZSaveConversation,
  ZStopAnswer,
  ZUpdateConversation,
  ZUpdatePreset,
} from '../../../contracts/chat-history.ts';
import { ZCreateShare, ZShareIdParams } from '../../../contracts/share-links.ts';
import { IMAGE_UPLOAD_BODY_LIMIT } from '../../modules/chat/images.routes.ts';
import { ZDocumentParams, ZPassageParams, ZUploadDocumentQuery } from '../../../contracts/documents.ts';
import { ZListDocumentsQuery } from '../../modules/documents/documents.routes.ts';
import { ZUploadArticleImageQuery } from '../../modules/articles/article-images.routes.ts';
import { ARTICLE_IMAGE_LIMITS } from '../../../contracts/article-images.ts';
import { sampleImage } from '../../../tests/fakes/sample-images.ts';

/** The hostile test's DOCUMENT_MAX_MB: oversize cases stay small. */
export const HOSTILE_DOCUMENT_MAX_MB = 1;
import { TEST_MODELS, conversationBody, imageBody } from '../chat-helpers.ts';
import type { Json } from './arbitraries.ts';
import { VALID_ACCESS_TOKEN, VALID_AGENT, VALID_ARTICLE, VALID_CHANNEL, VALID_MONITOR, type Fixtures } from './fixtures.ts';
import type { Contract } from './oracle.ts';

/** Who sends the requests: the admin (every signed-in and admin route), nobody (sign-in, which
 * would replace the admin's session), or a session of its own (sign-out, which ends it). */
export type Actor = 'admin' | 'signed out' | 'own session';

/**
 * One registered /api route and the inputs it takes: its path parameter (with a real object
 * to name, so a request reaches validation), its query and its JSON body, each with the
 * contract the route parses it with, or null when the route ignores it. A valid sample body
 * is what the mutations start from.
 */
export type Endpoint = {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  route: string;
  actor: Actor;
  param?: { name: string; contract: Contract; real: (fx: Fixtures) => Promise<string>; freshEachRequest?: boolean };
  /** The route's other path parameters, real and fixed (a condition's agent), put in after `param`. */
  fixedParams?: (fx: Fixtures) => Promise<Record<string, string>>;
  query?: Contract;
  /** The query of the valid sample (a route whose query has a required field); '' when none. */
  sampleQuery?: string;
  body?: { contract: Contract | null; sample: Json };
  /** A route whose body is a file's raw bytes (application/octet-stream), with a valid sample file's text. */
  rawBody?: { sample: string | Buffer };
  /** The route's own body limit, when it is not the app's 1 MB. */
  bodyLimit?: number;
  /**
   * The service's answer to the valid sample, where no fixed sample can succeed: a WebAuthn
   * answer signs a fresh challenge, and the admin here signs in locally, not with a passkey.
   * That exact status still proves the sample passed validation.
   */
  sampleRefused?: { status: number; why: string };
  /** At most this many cases per input kind: fewer for the six chat routes, which share one
   * service, and for routes that take no input at all. */
  runs?: number;
};

const SAMPLE_INVITE_TOKEN = 'A'.repeat(43);
const LOCAL_ACCOUNT = { status: 409, why: 'the admin signs in locally, not with a passkey' };
const b64url = (text: string) => Buffer.from(text).toString('base64url');
const SAMPLE_CLIENT_DATA = b64url(JSON.stringify({ type: 'webauthn.create', challenge: 'bm90LWlzc3VlZA', origin: 'http://localhost:3000' }));
const SAMPLE_REGISTRATION = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: SAMPLE_CLIENT_DATA, attestationObject: 'AAAA', transports: ['internal'] }, clientExtensionResults: {} };
const SAMPLE_ASSERTION = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { clientDataJSON: SAMPLE_CLIENT_DATA, authenticatorData: 'AAAA', signature: 'AAAA', userHandle: 'AAAA' }, clientExtensionResults: {} };

const agentId = { name: 'id', contract: { schema: ZAgentIdParams }, real: (fx: Fixtures) => fx.agent() };
const articleId = { name: 'id', contract: { schema: ZArticleIdParams }, real: async (fx: Fixtures) => (await fx.article()).id };
const IGNORED_BODY = { contract: null, sample: {} };
/** A condition of a real agent: the hostile segment is the condition's id, its agent's is real. */
const conditionId = {
  name: 'conditionId',
  contract: { schema: ZConditionParams, asSeen: (raw: unknown) => ({ id: '00000000-0000-4000-8000-000000000000', ...(raw as object) }) },
  real: async (fx: Fixtures) => (await fx.conditionAgent()).conditionId,
};
const conditionAgent = async (fx: Fixtures) => ({ id: (await fx.conditionAgent()).agentId });
/** A revision of a real article: the hostile segment is the revision's id, its article's is real. */
const revisionId = {
  name: 'revisionId',
  contract: { schema: ZArticleRevisionParams, asSeen: (raw: unknown) => ({ id: '00000000-0000-4000-8000-000000000000', ...(raw as object) }) },
  real: async (fx: Fixtures) => (await fx.articleRevision()).revisionId,
};
const channelId = { name: 'id', contract: { schema: ZChannelIdParams }, real: (fx: Fixtures) => fx.channel() };
const conversationId = { name: 'id', contract: { schema: ZConversationParams }, real: (fx: Fixtures) => fx.conversation() };
const presetId = { name: 'id', contract: { schema: ZPresetIdParams }, real: (fx: Fixtures) => fx.preset() };
const proposalId = { name: 'id', contract: { schema: ZProposalParams }, real: (fx: Fixtures) => fx.proposal() };
const imageId = { name: 'id', contract: { schema: ZImageIdParams }, real: (fx: Fixtures) => fx.image() };
const projectId = { name: 'id', contract: { schema: ZProjectParams }, real: (fx: Fixtures) => fx.project() };

const chatEndpoints: Endpoint[] = CHAT_PROVIDERS.map((provider) => ({
  method: 'POST',
  route: CHAT_PROVIDER_INFO[provider].endpoint,
  actor: 'admin',
  body: { contract: { schema: ZChatRequest }, sample: { model: TEST_MODELS[provider], messages: [{ role: 'user', content: 'Hello there' }] } },
  runs: 15,
}));

export const ENDPOINTS: Endpoint[] = [
  { method: 'GET', route: '/api/health', actor: 'signed out', runs: 10 },
  { method: 'GET', route: '/api/health/live', actor: 'signed out', runs: 10 },
  { method: 'GET', route: '/api/health/ready', actor: 'signed out', runs: 10 },
  { method: 'POST', route: '/api/auth/local/login', actor: 'signed out', body: { contract: { schema: ZLocalLogin }, sample: { email: 'hostile-login@example.com', name: 'Hostile Login' } } },
  // The route reads a null body as none.
  { method: 'POST', route: '/api/auth/user', actor: 'admin', body: { contract: { schema: ZSyncUser, asSeen: (b) => b ?? undefined }, sample: { email: 'x@example.com', name: 'X', googleId: 'g-1', profilePicture: 'https://example.com/p.png' } } },
  { method: 'GET', route: '/api/auth/me', actor: 'admin', runs: 10 },
  { method: 'POST', route: '/api/auth/logout', actor: 'own session', body: IGNORED_BODY, runs: 15 },
  { method: 'GET', route: '/api/users', actor: 'admin', runs: 10 },
  // Passkey accounts (docs/decisions/0092): answers shaped as a browser sends them, for no challenge ever issued.
  { method: 'POST', route: '/api/invites', actor: 'admin', body: { contract: { schema: ZCreateInvite }, sample: { email: 'hostile-invite@example.com', role: 'guest' } } },
  { method: 'POST', route: '/api/auth/invite/options', actor: 'signed out', body: { contract: { schema: ZInviteOptions }, sample: { token: SAMPLE_INVITE_TOKEN } }, sampleRefused: { status: 404, why: 'no invite has that token' } },
  { method: 'POST', route: '/api/auth/invite/verify', actor: 'signed out', body: { contract: { schema: ZInviteVerify }, sample: { token: SAMPLE_INVITE_TOKEN, name: 'Laptop', credential: SAMPLE_REGISTRATION } }, sampleRefused: { status: 409, why: 'no challenge was issued for it' } },
  { method: 'POST', route: '/api/auth/passkey/options', actor: 'signed out', body: IGNORED_BODY, runs: 10 },
  { method: 'POST', route: '/api/auth/passkey/verify', actor: 'signed out', body: { contract: { schema: ZPasskeySignIn }, sample: { credential: SAMPLE_ASSERTION } }, sampleRefused: { status: 401, why: 'no challenge was issued for it' } },
  { method: 'GET', route: '/api/passkeys', actor: 'admin', runs: 10 },
  { method: 'POST', route: '/api/passkeys/options', actor: 'admin', body: IGNORED_BODY, runs: 10, sampleRefused: LOCAL_ACCOUNT },
  { method: 'POST', route: '/api/passkeys', actor: 'admin', body: { contract: { schema: ZAddPasskey }, sample: { name: 'Phone', credential: SAMPLE_REGISTRATION } }, sampleRefused: LOCAL_ACCOUNT },
  {
    method: 'DELETE',
    route: '/api/passkeys/:id',
    actor: 'admin',
    param: { name: 'id', contract: { schema: ZPasskeyParams }, real: async () => '00000000-0000-4000-8000-000000000000' },
    sampleRefused: LOCAL_ACCOUNT,
  },
  {
    method: 'PATCH',
    route: '/api/users/:id',
    actor: 'admin',
    param: { name: 'id', contract: { schema: ZUserIdParams }, real: (fx) => fx.guestUserId() },
    body: { contract: { schema: ZUpdateUserRole }, sample: { role: 'guest' } },
  },
  { method: 'GET', route: '/api/agent-templates', actor: 'admin', runs: 10 },
  { method: 'GET', route: '/api/agents', actor: 'admin', query: { schema: ZAgentQuery } },
  { method: 'POST', route: '/api/agents', actor: 'admin', query: { schema: ZAgentQuery }, body: { contract: { schema: ZCreateAgent }, sample: VALID_AGENT } },
  { method: 'GET', route: '/api/agents/:id', actor: 'admin', param: agentId, query: { schema: ZAgentQuery } },
  { method: 'GET', route: '/api/agents/:id/runs', actor: 'admin', param: agentId, query: { schema: ZRunsQuery } },
  // A Custom Monitor (issue 30): the watchlist's and the conditions' fields mutated.
  { method: 'POST', route: '/api/agents', actor: 'admin', query: { schema: ZAgentQuery }, body: { contract: { schema: ZCreateAgent }, sample: VALID_MONITOR } },
  // The conditions' state, snooze, unsnooze and re-arm (issue 30, docs/decisions/0073).
  { method: 'GET', route: '/api/agents/:id/conditions/state', actor: 'admin', param: { name: 'id', contract: { schema: ZAgentIdParams }, real: async (fx) => (await fx.conditionAgent()).agentId }, query: { schema: ZAgentQuery } },
  {
    method: 'POST',
    route: '/api/agents/:id/conditions/:conditionId/snooze',
    actor: 'admin',
    param: conditionId,
    fixedParams: conditionAgent,
    query: { schema: ZAgentQuery },
    body: { contract: { schema: ZSnoozeRequest }, sample: { preset: '1h' } },
  },
  { method: 'DELETE', route: '/api/agents/:id/conditions/:conditionId/snooze', actor: 'admin', param: conditionId, fixedParams: conditionAgent, query: { schema: ZAgentQuery } },
  { method: 'POST', route: '/api/agents/:id/conditions/:conditionId/rearm', actor: 'admin', param: conditionId, fixedParams: conditionAgent, query: { schema: ZAgentQuery }, body: IGNORED_BODY },
  {
    method: 'PATCH',
    route: '/api/agents/:id',
    actor: 'admin',
    param: agentId,
    query: { schema: ZAgentQuery },
    body: { contract: { schema: ZUpdateAgent }, sample: { status: 'paused', name: 'Renamed scanner', config: VALID_AGENT.config } },
  },
  { method: 'DELETE', route: '/api/agents/:id', actor: 'admin', param: { ...agentId, freshEachRequest: true }, query: { schema: ZAgentQuery } },
  // Run now: the route reads a null body as an empty one.
  // Proposals (issue 31): each decision takes a pending proposal of its own.
  { method: 'GET', route: '/api/agents/proposals', actor: 'admin', query: { schema: ZProposalsQuery } },
  { method: 'GET', route: '/api/agents/proposals/:id', actor: 'admin', param: proposalId },
  { method: 'POST', route: '/api/agents/proposals/:id/apply', actor: 'admin', param: { ...proposalId, freshEachRequest: true }, body: IGNORED_BODY },
  { method: 'POST', route: '/api/agents/proposals/:id/discard', actor: 'admin', param: { ...proposalId, freshEachRequest: true }, body: IGNORED_BODY },
  { method: 'POST', route: '/api/agents/:id/run', actor: 'admin', param: agentId, query: { schema: ZAgentQuery }, body: { contract: { schema: ZRunAgent, asSeen: (b) => b ?? {} }, sample: {} } },
  // Test on history: few cases, each valid one evaluates 500 candles per market.
  { method: 'POST', route: '/api/agents/backtest', actor: 'admin', body: { contract: { schema: ZBacktestRequest }, sample: { templateId: VALID_AGENT.templateId, config: VALID_AGENT.config, candles: 50 } }, runs: 15 },
  // Describe it: each valid case is one structured call to the fake (hostile-input.api.test.ts sets its answer).
  {
    method: 'POST',
    route: '/api/agents/conditions/draft',
    actor: 'admin',
    body: { contract: { schema: ZConditionDraftRequest }, sample: { text: 'close crosses above its 50-candle average', provider: 'openai', model: TEST_MODELS.openai, agentTimeframe: '1h', templateId: VALID_AGENT.templateId } },
    runs: 15,
  },
  {
    method: 'POST',
    route: '/api/agents/:id/backtest',
    actor: 'admin',
    param: agentId,
    body: { contract: { schema: ZAgentBacktestRequest, asSeen: (b) => b ?? {} }, sample: { candles: 50 } },
    runs: 15,
  },
  { method: 'GET', route: '/api/articles', actor: 'signed out', query: { schema: ZArticleListQuery } },
  { method: 'GET', route: '/api/articles/:slug', actor: 'signed out', param: { name: 'slug', contract: { schema: ZArticleSlugParams }, real: async (fx) => (await fx.article()).slug } },
  // A tag's page (decision 0100): the published fixture article's primary tag.
  {
    method: 'GET',
    route: '/api/articles/tag/:slug',
    actor: 'signed out',
    param: { name: 'slug', contract: { schema: ZTagPageParams }, real: async (fx) => (await fx.article()).tags[0]!.slug },
    query: { schema: ZArticleListQuery },
  },
  { method: 'POST', route: '/api/articles', actor: 'admin', body: { contract: { schema: ZCreateArticle }, sample: VALID_ARTICLE } },
  { method: 'PATCH', route: '/api/articles/:id', actor: 'admin', param: articleId, body: { contract: { schema: ZUpdateArticle }, sample: { title: 'An edited title here', published: false } } },
  { method: 'DELETE', route: '/api/articles/:id', actor: 'admin', param: { ...articleId, freshEachRequest: true } },
  { method: 'GET', route: '/api/admin/articles', actor: 'admin', runs: 10 },
  { method: 'GET', route: '/api/admin/articles/:id', actor: 'admin', param: articleId },
  { method: 'GET', route: '/api/admin/articles/:id/revisions', actor: 'admin', param: articleId },
  {
    method: 'GET',
    route: '/api/admin/articles/:id/revisions/:revisionId',
    actor: 'admin',
    param: revisionId,
    fixedParams: async (fx) => ({ id: (await fx.articleRevision()).articleId }),
  },
  {
    method: 'POST',
    route: '/api/articles/:id/revisions/:revisionId/restore',
    actor: 'admin',
    param: revisionId,
    fixedParams: async (fx) => ({ id: (await fx.articleRevision()).articleId }),
    body: IGNORED_BODY,
  },
  // Preview links (issue 34 item 2), on a draft.
  { method: 'GET', route: '/api/admin/articles/:id/preview-links', actor: 'admin', param: articleId },
  { method: 'POST', route: '/api/admin/articles/:id/preview-links', actor: 'admin', param: { ...articleId, real: (fx: Fixtures) => fx.previewDraft() }, body: IGNORED_BODY },
  {
    method: 'DELETE',
    route: '/api/admin/articles/:id/preview-links/:linkId',
    actor: 'admin',
    param: {
      name: 'linkId',
      contract: { schema: ZPreviewLinkParams, asSeen: (raw: unknown) => ({ id: '00000000-0000-4000-8000-000000000000', ...(raw as object) }) },
      real: async (fx: Fixtures) => (await fx.previewLink()).id,
      freshEachRequest: true,
    },
    fixedParams: async (fx) => ({ id: await fx.previewDraft() }),
  },
  { method: 'GET', route: '/api/preview/:token', actor: 'signed out', param: { name: 'token', contract: { schema: ZPreviewTokenParams }, real: async (fx: Fixtures) => (await fx.previewLink()).token } },
  ...chatEndpoints,
  { method: 'GET', route: '/api/chat/providers', actor: 'admin', runs: 10 },
  { method: 'GET', route: '/api/admin/usage', actor: 'admin', query: { schema: ZChatUsageQuery } },
  { method: 'GET', route: '/api/chat/conversations', actor: 'admin', query: { schema: ZConversationListQuery } },
  { method: 'POST', route: '/api/chat/conversations', actor: 'admin', body: { contract: { schema: ZSaveConversation }, sample: conversationBody('chat-1746000000000-hostile') } },
  { method: 'POST', route: '/api/chat/conversations/import', actor: 'admin', body: { contract: { schema: ZImportConversations }, sample: { conversations: [conversationBody('chat-1746000000001-hostile')] } } },
  { method: 'GET', route: '/api/chat/conversations/:id', actor: 'admin', param: conversationId },
  { method: 'PATCH', route: '/api/chat/conversations/:id', actor: 'admin', param: conversationId, body: { contract: { schema: ZUpdateConversation }, sample: { customTitle: 'Renamed chat', systemPrompt: 'Be brief.', temperature: 0.3, pinned: true } } },
  { method: 'DELETE', route: '/api/chat/conversations/:id', actor: 'admin', param: { ...conversationId, freshEachRequest: true } },
  { method: 'GET', route: '/api/chat/conversations/:id/export', actor: 'admin', param: conversationId, query: { schema: ZExportQuery } },
  // An ended answer of the chat (conversationBody's 'a1'): joined again (its text and its end) and stopped (nothing to stop).
  { method: 'GET', route: '/api/chat/conversations/:id/stream', actor: 'admin', param: conversationId, query: { schema: ZAnswerQuery }, sampleQuery: '?answer=a1' },
  { method: 'POST', route: '/api/chat/conversations/:id/stop', actor: 'admin', param: conversationId, body: { contract: { schema: ZStopAnswer }, sample: { answer: 'a1' } } },
  // Images: base64 in JSON, under a body limit of their own (docs/decisions/0055).
  { method: 'POST', route: '/api/chat/images', actor: 'admin', body: { contract: { schema: ZUploadImage }, sample: imageBody() }, bodyLimit: IMAGE_UPLOAD_BODY_LIMIT },
  { method: 'GET', route: '/api/chat/images/:id', actor: 'admin', param: imageId },
  { method: 'DELETE', route: '/api/chat/images/:id', actor: 'admin', param: { ...imageId, freshEachRequest: true } },
  // Article images: a file's raw bytes, its type in the query (docs/decisions/0099).
  {
    method: 'POST',
    route: '/api/articles/images',
    actor: 'admin',
    query: { schema: ZUploadArticleImageQuery },
    sampleQuery: '?type=image/png',
    rawBody: { sample: sampleImage('png') },
    bodyLimit: ARTICLE_IMAGE_LIMITS.maxBytes,
  },
  // Documents: a file's raw bytes, under DOCUMENT_MAX_MB (1 in this test), each user's own (docs/decisions/0081).
  {
    method: 'POST',
    route: '/api/documents',
    actor: 'admin',
    query: { schema: ZUploadDocumentQuery },
    sampleQuery: '?name=hostile.txt',
    rawBody: { sample: 'A plain text file of a few words.' },
    bodyLimit: HOSTILE_DOCUMENT_MAX_MB * 1024 * 1024,
  },
  { method: 'GET', route: '/api/documents', actor: 'admin', query: { schema: ZListDocumentsQuery } },
  { method: 'GET', route: '/api/documents/passages/:id', actor: 'admin', param: { name: 'id', contract: { schema: ZPassageParams }, real: (fx: Fixtures) => fx.passage() } },
  { method: 'DELETE', route: '/api/documents/:id', actor: 'admin', param: { name: 'id', contract: { schema: ZDocumentParams }, real: (fx: Fixtures) => fx.document(), freshEachRequest: true } },
  // Share links (issue 32): every valid body makes a link, so fewer cases than the default.
  { method: 'POST', route: '/api/chat/conversations/:id/shares', actor: 'admin', param: conversationId, body: { contract: { schema: ZCreateShare, asSeen: (b) => b ?? {} }, sample: { includeImages: true } }, runs: 30 },
  { method: 'GET', route: '/api/chat/shares', actor: 'admin', runs: 10 },
  { method: 'DELETE', route: '/api/chat/shares/:id', actor: 'admin', param: { name: 'id', contract: { schema: ZShareIdParams }, real: (fx) => fx.shareLink(), freshEachRequest: true } },
  { method: 'GET', route: '/api/chat/presets', actor: 'admin', runs: 10 },
  { method: 'POST', route: '/api/chat/presets', actor: 'admin', body: { contract: { schema: ZCreatePreset }, sample: { name: 'Hostile preset', systemPrompt: 'Answer briefly.', temperature: 0.5 } } },
  { method: 'PATCH', route: '/api/chat/presets/:id', actor: 'admin', param: presetId, body: { contract: { schema: ZUpdatePreset }, sample: { name: 'Edited preset', temperature: 1 } } },
  { method: 'DELETE', route: '/api/chat/presets/:id', actor: 'admin', param: { ...presetId, freshEachRequest: true } },
  // Projects (issue 32).
  { method: 'GET', route: '/api/projects', actor: 'admin', runs: 10 },
  { method: 'POST', route: '/api/projects', actor: 'admin', body: { contract: { schema: ZCreateProject }, sample: { name: 'Hostile project', instructions: 'Answer briefly.', defaultAssistant: { provider: 'openai', model: 'gpt-4o' } } } },
  { method: 'GET', route: '/api/projects/:id', actor: 'admin', param: projectId },
  { method: 'PATCH', route: '/api/projects/:id', actor: 'admin', param: projectId, body: { contract: { schema: ZUpdateProject }, sample: { instructions: 'Be brief.', defaultAssistant: null } } },
  { method: 'DELETE', route: '/api/projects/:id', actor: 'admin', param: { ...projectId, freshEachRequest: true } },
  { method: 'GET', route: '/api/notifications', actor: 'admin', query: { schema: ZNotificationsQuery } },
  // The live console's stream (ends after EVENT_STREAM_MAX_MS here); it reads no input but the Last-Event-ID header.
  { method: 'GET', route: '/api/events', actor: 'admin', runs: 10 },
  { method: 'POST', route: '/api/notifications/read-all', actor: 'admin', body: IGNORED_BODY, runs: 15 },
  {
    method: 'POST',
    route: '/api/notifications/:id/read',
    actor: 'admin',
    param: { name: 'id', contract: { schema: ZNotificationIdParams }, real: (fx) => fx.notification() },
    body: IGNORED_BODY,
  },
  { method: 'GET', route: '/api/settings', actor: 'admin', runs: 10 },
  { method: 'GET', route: '/api/channels', actor: 'admin', runs: 10 },
  // The sample needs no network: a Telegram channel's address is fixed, checked at send time.
  { method: 'POST', route: '/api/channels', actor: 'admin', body: { contract: { schema: ZCreateChannel }, sample: VALID_CHANNEL } },
  { method: 'DELETE', route: '/api/channels/:id', actor: 'admin', param: { ...channelId, freshEachRequest: true } },
  { method: 'POST', route: '/api/channels/:id/test', actor: 'admin', param: channelId, body: IGNORED_BODY },
  { method: 'PUT', route: '/api/settings', actor: 'admin', body: { contract: { schema: ZUpdateSettings }, sample: { alertEmail: 'alerts@example.com', timeZone: 'Europe/Paris' } } },
  { method: 'GET', route: '/api/settings/access-tokens', actor: 'admin', runs: 10 },
  { method: 'POST', route: '/api/settings/access-tokens', actor: 'admin', body: { contract: { schema: ZCreateAccessToken }, sample: VALID_ACCESS_TOKEN } },
  {
    method: 'DELETE',
    route: '/api/settings/access-tokens/:id',
    actor: 'admin',
    param: { name: 'id', contract: { schema: ZAccessTokenParams }, real: (fx) => fx.accessToken(), freshEachRequest: true },
  },
];
