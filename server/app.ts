import { fileURLToPath } from 'node:url';
import fastifyCompress from '@fastify/compress';
import fastifyCookie from '@fastify/cookie';
import fastifyRateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import type { FastifyBaseLogger as Logger } from 'fastify';
import { publicConfig, type Config } from './config.ts';
import type { Invalidations } from './lib/invalidations.ts';
import type { Database } from './db/client.ts';
import { registerClientApp } from './lib/http/client-app.ts';
import { limitConnections, timeoutOptions } from './lib/http/connection-limits.ts';
import { drainConnectionsOnClose } from './lib/http/drain.ts';
import { createFrontDoor } from './lib/http/front-door.ts';
import { registerDbParties } from './lib/http/db-parties.ts';
import { registerEtags } from './lib/http/etag.ts';
import { registerPublicCache } from './lib/http/public-cache.ts';
import { answerFrameworkError, registerErrorHandler } from './lib/http/error-handler.ts';
import { registerRequestGuard } from './lib/http/request-guard.ts';
import { OneLineRequestLog } from './lib/http/request-log.ts';
import { registerSecurityHeaders } from './lib/http/security-headers.ts';
import { fastifyTrustProxy } from './lib/http/trust-proxy.ts';
import { registerWriteLimit } from './lib/http/write-limit.ts';
import { registerHttpTelemetry } from './lib/telemetry/http-telemetry.ts';
import { registerMetricsRoute } from './lib/telemetry/metrics-endpoint.ts';
import './lib/http/types.ts';
import { articlePageResolver } from './modules/articles/article-pages.ts';
import { agentsRoutes } from './modules/agents/agents.routes.ts';
import { conditionStatesRoutes } from './modules/agents/condition-states.routes.ts';
import { createConditionStatesService } from './modules/agents/condition-states.service.ts';
import { createAgentsService } from './modules/agents/agents.service.ts';
import { createAgentTools } from './modules/agent-tools/agent-tools.ts';
import type { AgentTools } from './modules/agent-tools/types.ts';
import { proposalsRoutes } from './modules/proposals/proposals.routes.ts';
import { createProposalsService } from './modules/proposals/proposals.service.ts';
import type { JobQueue } from './modules/runtime/job-queue.ts';
import { createRunRetention } from './modules/runtime/run-retention.ts';
import { createRunMarketsPurge } from './modules/runtime/runtime.repo.ts';
import { backtestRoutes } from './modules/backtest/backtest.routes.ts';
import { createBacktestService } from './modules/backtest/backtest.service.ts';
import { createMarketData, type MarketData } from './modules/market/market-data.ts';
import { createArticleSchedule } from './modules/articles/article-schedule.ts';
import { articlesRoutes, registerPreviewPageHeaders } from './modules/articles/articles.routes.ts';
import { createPreviewLinksService } from './modules/articles/preview-links.service.ts';
import { feedsRoutes } from './modules/articles/feeds.routes.ts';
import { createCardDrawer } from './modules/articles/card-drawing.ts';
import { socialCardRoutes } from './modules/articles/social-card.routes.ts';
import { createArticlesService } from './modules/articles/articles.service.ts';
import { createArticleImagesService } from './modules/articles/article-images.service.ts';
import { articleImagesRoutes } from './modules/articles/article-images.routes.ts';
import { createImageThread } from './modules/articles/article-image-thread.ts';
import { registerAuth } from './modules/auth/auth.plugin.ts';
import { authRoutes } from './modules/auth/auth.routes.ts';
import { createAuthService, type Clock } from './modules/auth/auth.service.ts';
import { chatRoutes } from './modules/chat/chat.routes.ts';
import { conditionDraftRoutes } from './modules/conditions-draft/draft.routes.ts';
import { createDraftService } from './modules/conditions-draft/draft.service.ts';
import { createChatService } from './modules/chat/chat.service.ts';
import { conversationsRoutes } from './modules/chat/conversations.routes.ts';
import { createConversationsService } from './modules/chat/conversations.service.ts';
import { projectsRoutes } from './modules/projects/projects.routes.ts';
import { createProjectsService, type ProjectsService } from './modules/projects/projects.service.ts';
import { imagesRoutes } from './modules/chat/images.routes.ts';
import { shareLinksRoutes } from './modules/chat/share-links.routes.ts';
import { createShareLinksService } from './modules/chat/share-links.service.ts';
import { createImageDecoder } from './modules/chat/image-decoder.ts';
import { createImagesService } from './modules/chat/images.service.ts';
import { oidcAuthRoutes } from './modules/auth/oidc.routes.ts';
import { registerPasskeys } from './modules/passkeys/register-passkeys.ts';
import { healthRoutes } from './modules/health/health.routes.ts';
import { createHealthService, type ReadinessCheck } from './modules/health/health.service.ts';
import { createMailer } from './integrations/email/mailer.ts';
import { createBus } from './modules/events/bus.ts';
import { createEventHub, type EventHub } from './modules/events/event-hub.ts';
import { createEventStreams } from './modules/events/event-streams.ts';
import { eventsRoutes } from './modules/events/events.routes.ts';
import { notificationsRoutes } from './modules/notifications/notifications.routes.ts';
import { createNotificationsService, deliveryBrief, type NotificationsService } from './modules/notifications/notifications.service.ts';
import { createAlertBriefWriter } from './modules/chat/alert-brief-writer.ts';
import { briefChoiceProblems } from './modules/chat/chat-policy.ts';
import type { BriefFacts } from './modules/notifications/alert-brief.ts';
import { channelsRoutes } from './modules/channels/channels.routes.ts';
import { channelsServiceFromConfig, type ChannelsService, type EnqueueDelivery } from './modules/channels/channels.service.ts';
import { settingsRoutes } from './modules/settings/settings.routes.ts';
import { accessTokensRoutes } from './modules/auth/access-tokens.routes.ts';
import { createAccessTokensService } from './modules/auth/access-tokens.service.ts';
import { mcpRoutes } from './modules/mcp/mcp.routes.ts';
import { documentsRoutes } from './modules/documents/documents.routes.ts';
import { createDocumentsService } from './modules/documents/documents.service.ts';
import { createExtractor } from './modules/documents/extractor.ts';
import { createRetrievalService } from './modules/documents/retrieval.service.ts';
import type { DocumentsService } from './modules/documents/types.ts';
import { createSettingsService } from './modules/settings/settings.service.ts';
import { usersRoutes } from './modules/users/users.routes.ts';
import { createUsersService } from './modules/users/users.service.ts';
import type { WebSearchService } from './modules/web-search/types.ts';
import { createWebSearchService } from './modules/web-search/web-search.service.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;
const SESSION_PURGE_INTERVAL_MS = 60 * 60 * 1000;
const defaultClientDir = fileURLToPath(new URL('../dist/client', import.meta.url));

export type AppDeps = {
  config: Config;
  database: Database;
  logger: Logger;
  /** Injected so tests can move time past session limits. */
  now?: Clock;
  clientDir?: string;
  /** The job queue (pg-boss): run-now and alert emails are queued on it. */
  jobs: JobQueue;
  /**
   * Hands an alert's email to whatever delivers it, which calls
   * `app.notifications.deliverEmail(id, attempt)`. The agents runtime passes a job queue with
   * retries; without one, each email is tried once, in the background of the alerting call.
   */
  enqueueEmail?: (notificationId: string) => Promise<void>;
  /** As enqueueEmail, for channel deliveries' attempts (`app.channels.deliver(id, attempt)`),
   * a retry not before its `at`; without it, each delivery is tried once. */
  enqueueDelivery?: EnqueueDelivery;
  /**
   * The jobs of alert briefs (docs/decisions/0044), which call `app.notifications.writeBrief`,
   * `releaseDeliveries` and `deliverBriefEmail`: the job queue's, passed by the server; without
   * them, each is done once in this process (the release after its grace, on a timer).
   */
  briefJobs?: Pick<JobQueue, 'enqueueBrief' | 'enqueueRelease' | 'enqueueBriefEmail'>;
  /**
   * Candles for Test on history. The process's one MarketData, shared with its workers when it
   * runs them, so history and live runs meet at one rate gate per provider; without one, the app
   * makes its own and closes it with itself.
   */
  marketData?: MarketData;
  /** What else /api/health/ready asks besides the database: the job queue, when this process runs the workers. */
  readinessChecks?: ReadinessCheck[];
};

declare module 'fastify' {
  interface FastifyInstance {
    /** Alerts and their emails, for the agents runtime: applyAlerts after a run, deliverEmail in
     * the email job. */
    notifications: NotificationsService;
    /** Delivery channels, for the delivery job: deliver(id, attempt). */
    channels: ChannelsService;
    /** The live console's events (docs/decisions/0042): the runtime publishes runs through it. */
    events: EventHub;
    /** Cache invalidations across processes (docs/decisions/0049). */
    invalidations: Invalidations;
    /** The assistants' tools on the user's agents (docs/decisions/0076): the chat's tool loop and /mcp call them. */
    agentTools: AgentTools;
    /** Each user's projects (issue 32): the chat reads a project's instructions and default assistant from it. */
    projects: ProjectsService;
    /** Documents in chat (docs/decisions/0081): upload, list, retrieval; the chat reads its questions' documents through it. */
    documents: DocumentsService;
    /** Web search in chat (issue 32): the chat searches through it when a question asks for the web. */
    webSearch: WebSearchService;
  }
}

/** Builds the whole HTTP app without listening; tests drive it with `app.inject()`. */
export async function buildApp({
  config,
  database,
  logger,
  now = () => new Date(),
  clientDir = defaultClientDir,
  jobs,
  enqueueEmail,
  enqueueDelivery,
  briefJobs,
  marketData: sharedMarketData,
  readinessChecks = [],
}: AppDeps): Promise<FastifyInstance> {
  // Public reads kept in memory are answered here, before Fastify (docs/decisions/0057).
  const frontDoor = createFrontDoor(logger);
  const app = Fastify({
    serverFactory: frontDoor.serverFactory,
    loggerInstance: logger,
    // One line per request, when it ends (request-log.ts).
    logController: new OneLineRequestLog(),
    bodyLimit: BODY_LIMIT_BYTES,
    trustProxy: fastifyTrustProxy(config.trustProxy),
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: answerFrameworkError,
    ...timeoutOptions(config.http),
  });

  registerErrorHandler(app);
  // Issue 33 item 4 (docs/decisions/0091): every request counted, timed and, with tracing on, traced.
  registerHttpTelemetry(app);
  registerMetricsRoute(app, config.metrics.token);
  const { db } = database;
  // The process's one LISTEN connection (PostgreSQL): live events and cache invalidations.
  const bus = await createBus({ database, logger });
  const { invalidations } = bus;
  app.decorate('invalidations', invalidations);
  // Scheduled articles are published by a job in whichever process takes it, and by a sweep in
  // each (docs/decisions/0098).
  const articleSchedule = createArticleSchedule({ jobs, logger });
  const articles = createArticlesService({ db, invalidations, schedule: articleSchedule, now });
  app.addHook('onReady', async () => articleSchedule.start(async (id) => void (await articles.publishScheduled(id))));
  app.addHook('onClose', async () => articleSchedule.stop());
  // Its hooks come first: they keep the answers of public reads (docs/decisions/0051).
  const publicCache = registerPublicCache(app, articles);
  frontDoor.use(publicCache.answer);
  // Fastify answers 503 from here on; kept answers too stop at the door.
  app.addHook('preClose', async () => frontDoor.close());
  if (database.queue) registerDbParties(app);
  limitConnections(app.server, config.http, app.log);
  drainConnectionsOnClose(app);
  registerSecurityHeaders(app, config.secureCookies);
  await app.register(fastifyCookie, { secret: config.sessionSecret });
  await app.register(fastifyRateLimit, { global: false });
  // Before compression, so the tags are of the bodies the routes send.
  registerEtags(app);
  await app.register(fastifyCompress, { threshold: 1024, encodings: ['br', 'gzip'], brotliOptions: { params: { 1: 4 } } });
  publicCache.registerAfterCompression(app);
  registerRequestGuard(app, config.publicOrigin);

  const auth = createAuthService({ db, config, now, invalidations, logger });
  registerAuth(app, auth, config.secureCookies);
  registerWriteLimit(app, config.writeRateLimit, now);

  const routeDeps = { auth, secureCookies: config.secureCookies, signInRateLimit: config.signInRateLimit };
  await app.register(healthRoutes, { health: createHealthService({ database, checks: readinessChecks }) });
  await app.register(authRoutes, { ...routeDeps, localSignIn: config.localSignIn });
  await registerPasskeys(app, { config, db, routeDeps, now });
  if (config.auth.provider !== 'local') {
    await app.register(oidcAuthRoutes, { ...routeDeps, provider: config.auth.provider, settings: config.auth, publicUrl: config.publicUrl, now });
  }
  await app.register(usersRoutes, { users: createUsersService({ db, invalidations }) });
  registerPreviewPageHeaders(app);
  await app.register(articlesRoutes, { articles, previews: createPreviewLinksService({ db, ttlMs: config.previewLinkTtlMs, publicUrl: config.publicUrl, now }) });
  await app.register(feedsRoutes, { articles, publicUrl: config.publicUrl, siteName: config.siteName });
  await app.register(socialCardRoutes, { articles, siteName: config.siteName, drawer: createCardDrawer() });
  // Covers and content images (docs/decisions/0099); those no article uses go after a day.
  const imageThread = createImageThread();
  app.addHook('onClose', async () => imageThread.close());
  const articleImages = createArticleImagesService({ db, logger, process: imageThread.process, now });
  await app.register(articleImagesRoutes, { images: articleImages });
  const events = createEventHub({ database, bus, logger });
  app.decorate('events', events);
  const streams = createEventStreams({ hub: events, auth, config: config.events, logger });
  // Ended before Fastify waits for the requests in flight, which an endless stream would hold.
  app.addHook('preClose', async () => streams.closeAll());
  app.addHook('onClose', async () => {
    await events.close();
    await auth.close();
    await bus.close();
  });
  await app.register(eventsRoutes, { streams });
  const channels = channelsServiceFromConfig(config, {
    db,
    // Without a job queue, one attempt each: nothing would wait out a retry's delay.
    ...(enqueueDelivery ? { enqueueDelivery } : { enqueueDelivery: inBackground(app, 'channel delivery failed', (id) => channels.deliver(id)), retries: { retries: 0, retryDelaySeconds: 1 } }),
    logger,
    now,
    briefOf: deliveryBrief,
  });
  app.decorate('channels', channels);
  await app.register(channelsRoutes, { channels });
  const agents = createAgentsService({
    db,
    jobs,
    foreignChannels: channels.foreignIds,
    briefProblems: (user, choice) => briefChoiceProblems(config.chat, user.role, choice),
    now,
    events,
    invalidations,
  });
  await app.register(agentsRoutes, { agents });
  await app.register(conditionStatesRoutes, { conditions: createConditionStatesService({ db, ownedAgent: agents.get, now, events }) });
  const marketData = sharedMarketData ?? createMarketData(config.market, { logger, now, db });
  if (!sharedMarketData) app.addHook('onClose', async () => marketData.close());
  const backtests = createBacktestService({ agents, marketData, logger, now, limits: config.backtest });
  await app.register(backtestRoutes, { backtests });
  const proposals = createProposalsService({ db, agents, now, events });
  await app.register(proposalsRoutes, { proposals });
  const agentTools = createAgentTools({
    db,
    agents,
    backtests,
    marketData,
    // The alerts service is made below (it needs the chat's brief writer); a tool reads it only when called.
    notifications: { listJson: (userId, limit) => notifications.listJson(userId, limit) },
    proposals,
    marketReadsPerMinute: config.backtest.ratePerMinute,
    now,
  });
  app.decorate('agentTools', agentTools);
  const imageDecoder = createImageDecoder({ logger });
  app.addHook('onClose', async () => imageDecoder.close());
  const documentExtractor = createExtractor();
  app.addHook('onClose', async () => documentExtractor.close());
  // Hybrid retrieval and the passages' embeddings (docs/decisions/0081); passages of another model re-embedded from the start.
  const retrieval = createRetrievalService({ db, embeddings: config.embeddings, chat: config.chat, invalidations, logger, now });
  app.addHook('onReady', async () => void retrieval.embedStale().catch((err: unknown) => app.log.warn({ err }, 'could not look for passages to re-embed')));
  app.addHook('onClose', async () => retrieval.close());
  const documents = createDocumentsService({ db, maxBytes: config.documents.maxBytes, extractor: documentExtractor, retrieval, now });
  app.decorate('documents', documents);
  await app.register(documentsRoutes, { documents, maxBytes: config.documents.maxBytes });
  const images = createImagesService({ db, storageBytes: config.chat.imageStorageBytes, decoder: imageDecoder, now });
  const projects = createProjectsService({ db, now });
  app.decorate('projects', projects);
  const conversations = createConversationsService({ db, now, images, projects });
  const webSearch = createWebSearchService({ engine: config.webSearch, outbound: config.outbound });
  app.decorate('webSearch', webSearch);
  const chat = createChatService({ db, config: config.chat, images, conversations, agentTools, documents, webSearch, now });
  // Answers still being written end first, stored as far as they got (docs/decisions/0056).
  app.addHook('preClose', async () => chat.close());
  // Answers a process that died left being written are settled, their usage estimated (docs/decisions/0061).
  let settling: { stop(): Promise<void> } | null = null;
  app.addHook('onReady', async () => void (settling = chat.startSettlingInterruptedAnswers(app.log)));
  app.addHook('onClose', async () => settling?.stop());
  await app.register(imagesRoutes, { images });
  await app.register(chatRoutes, { chat, webSearch });
  await app.register(conditionDraftRoutes, { drafts: createDraftService({ db, config: config.chat, now }) });
  await app.register(conversationsRoutes, { conversations });
  const shares = createShareLinksService({
    db,
    conversations,
    images,
    shareRoles: config.chat.shareRoles,
    publicOrigin: config.publicOrigin,
    secret: config.sessionSecret,
    now,
  });
  await app.register(shareLinksRoutes, { shares, siteName: config.siteName });
  await app.register(projectsRoutes, { projects });
  const notifications = createNotificationsService({
    db,
    mailer: createMailer(config.email, logger),
    enqueueEmail: enqueueEmail ?? inBackground(app, 'alert email delivery failed', (id) => notifications.deliverEmail(id, { number: 1, last: true })),
    logger,
    publicUrl: config.publicUrl,
    channels,
    now,
    events,
    invalidations,
    briefs: {
      writer: createAlertBriefWriter({ db, config: config.chat, briefs: config.alertBriefs, logger, now }),
      waitSeconds: config.alertBriefs.waitSeconds,
      ...(briefJobs ?? inProcessBriefJobs(app, () => notifications)),
    },
  });
  app.decorate('notifications', notifications);
  await app.register(notificationsRoutes, { notifications });
  await app.register(settingsRoutes, { settings: createSettingsService({ db }) });
  const accessTokens = createAccessTokensService({ db, now });
  await app.register(accessTokensRoutes, { accessTokens });
  await app.register(mcpRoutes, { accessTokens, agentTools: app.agentTools, publicOrigin: config.publicOrigin, requestsPerMinute: config.mcpRateLimit, now });
  await registerClientApp(app, clientDir, publicConfig(config), [articlePageResolver(articles, config.publicUrl, config.siteName)], now, undefined, articles);

  // Finished runs past RUN_RETENTION_DAYS, beyond each agent's latest (docs/decisions/0101).
  const runRetention = createRunRetention({ db, logger: app.log, now, days: config.runtime.retentionDays, keepLast: config.runtime.retentionKeepLast });
  // Market results no run reads any more (decision 0102), a bounded slice per pass: after the
  // retention pass, whose removed runs leave theirs unread.
  const purgeUnreadRunMarkets = createRunMarketsPurge(db);
  const purge = setInterval(() => {
    auth.purgeExpiredSessions().catch((err: unknown) => app.log.warn({ err }, 'session purge failed'));
    images.purgeUnsent().catch((err: unknown) => app.log.warn({ err }, 'purge of unsent chat images failed'));
    documents.purgeUnattached().catch((err: unknown) => app.log.warn({ err }, 'purge of unattached documents failed'));
    articleImages.purgeUnused().catch((err: unknown) => app.log.warn({ err }, 'purge of unused article images failed'));
    runRetention
      .purge()
      .catch((err: unknown) => app.log.warn({ err }, 'removing runs older than the retention period failed'))
      .then(() => purgeUnreadRunMarkets())
      .catch((err: unknown) => app.log.warn({ err }, 'purge of unread run markets failed'));
  }, SESSION_PURGE_INTERVAL_MS);
  purge.unref();
  app.addHook('onClose', async () => {
    clearInterval(purge);
    await runRetention.stop();
  });

  return app;
}

/**
 * The default enqueueEmail and enqueueDelivery: one attempt, started at once and not awaited,
 * so alerting never waits on a receiver. Closing the app waits for the attempts in flight
 * (they use the database).
 */
function inBackground(app: FastifyInstance, failed: string, deliver: (id: string) => Promise<void>): (id: string) => Promise<void> {
  const inFlight = new Set<Promise<void>>();
  app.addHook('onClose', async () => {
    await Promise.allSettled(inFlight);
  });
  return async (id) => {
    const attempt = deliver(id)
      .catch((err: unknown) => app.log.error({ err, id }, failed))
      .finally(() => inFlight.delete(attempt));
    inFlight.add(attempt);
  };
}

/**
 * The default brief jobs: the brief and its follow-up email once each, in the background, and the
 * release of the held deliveries on a timer at its grace's end. Not durable (the server passes its
 * job queue): closing the app drops the releases still waiting, and waits for what is in flight.
 */
function inProcessBriefJobs(app: FastifyInstance, service: () => NotificationsService): NonNullable<AppDeps['briefJobs']> {
  const factsOf = new Map<string, BriefFacts>();
  const brief = inBackground(app, 'alert brief failed', async (id) => {
    const facts = factsOf.get(id)!;
    factsOf.delete(id);
    await service().writeBrief(id, facts, { number: 1 });
  });
  const release = inBackground(app, 'alert release failed', (id) => service().releaseDeliveries(id));
  const timers = new Map<NodeJS.Timeout, string>();
  app.addHook('onClose', async () => {
    for (const timer of timers.keys()) clearTimeout(timer);
    timers.clear();
  });
  return {
    async enqueueBrief(id, facts) {
      factsOf.set(id, facts);
      await brief(id);
    },
    async enqueueRelease(id, at) {
      const timer = setTimeout(
        () => {
          timers.delete(timer);
          void release(id);
        },
        Math.max(0, at.getTime() - Date.now()),
      );
      timers.set(timer, id);
    },
    enqueueBriefEmail: inBackground(app, 'brief email delivery failed', (id) => service().deliverBriefEmail(id, { number: 1, last: true })),
  };
}
