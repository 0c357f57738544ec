import type { FastifyBaseLogger } from 'fastify';
import {
  CHAT_IMAGE_TYPE_NAMES,
  CHAT_PROVIDER_INFO,
  CHAT_PROVIDERS,
  STOPPED_NOTE,
  chatImageUrl,
  cutShortNote,
  estimateCostUsd,
  finishNote,
  usageTotals,
  type TAnswerLimit,
  type TChatModel,
  type TChatProvider,
  type TChatRequest,
  type TChatProvidersResponse,
  type TChatResponse,
  type TChatStreamEvent,
  type TChatUsage,
  type TChatUsageReport,
  type TErrorFinish,
  type ZAnswerTarget,
} from '../../../contracts/chat.ts';
import type { z } from 'zod';
import type { ChatConfig } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import {
  AiCallError,
  AiStreamError,
  displayUrl,
  generateChat,
  generateChatImage,
  streamChat,
  type AiAnswer,
  type AiCall,
  type AiChatMessage,
  type AiGeneratedImage,
  type AiToolSpec,
  type AiToolTurn,
} from '../../integrations/ai/index.ts';
import { toolLimitNote, type TToolStep } from '../../../contracts/assistant-tools.ts';
import type { AgentTools, ToolCaller } from '../agent-tools/types.ts';
import { keptDetail } from './step-detail.ts';
import { countAnswer, timingFirstToken } from './chat-metrics.ts';
import { ToolLoopStopped, runToolLoop } from './tool-loop.ts';
import { AppError } from '../../lib/errors.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { mayUse as mayUseConfig, modelsOf as modelsOfConfig } from './chat-policy.ts';
import { createChatBudget, refusalMessage, type BudgetAsk, type BudgetRefusal, type Reservation } from './budget.ts';
import { usageByUserAndModel, type Tx } from './chat.repo.ts';
import { createRateWindow } from '../../lib/rate-window.ts';
import { estimateImageTokens, estimateInputTokens, estimateTextTokens } from './token-estimate.ts';
import type { ConversationsService } from './conversations.service.ts';
import type { ImagesService, RequestImage } from './images.service.ts';
import { createLiveAnswers, upsertStep, type AnswerListener, type LiveAnswer, type StopReason } from './live-answers.ts';
import { claimAnswerUsage, type MessageRow } from './conversations.repo.ts';
import { createInterruptedAnswers } from './interrupted-answers.ts';
import type { DocumentsService, Retrieval } from '../documents/types.ts';
import type { WebSearchService, WebSource } from '../web-search/types.ts';
import { buildSources, systemWith, type AnswerSources } from './sources.ts';
import { conversationProject, projectInstructions } from './conversations.repo.ts';

export type ChatServiceDeps = {
  db: Db;
  config: ChatConfig;
  images: ImagesService;
  conversations: ConversationsService;
  /** The agent tools "Use my agents" calls (issue 31); without them no chat uses tools. */
  agentTools?: AgentTools;
  /** Documents a question carries and a project's knowledge, retrieved from for the answer (issue 32). */
  documents?: Pick<DocumentsService, 'owned' | 'retrieve'>;
  /** The web, searched when a chat asks (issue 32); absent or not enabled: no web search. */
  webSearch?: WebSearchService;
  now?: () => Date;
};

type AnswerTarget = z.output<typeof ZAnswerTarget>;

/** How often an answer being written is saved (its lease, `config.answerLeaseMs`, is renewed with each save). */
export const ANSWER_SAVE_EVERY_MS = 1_000;
/** How often a browser following an answer written by another process is sent what was saved. */
export const ANSWER_TAIL_EVERY_MS = 500;
/** How long an answer waits for its question's parent to be saved before it is kept unsaved. */
const BEGIN_RETRIES = 10;
const SHUTDOWN_MESSAGE = 'The server restarted before the answer was complete. Please try again.';
const STOPPED_MESSAGE = 'Stopped';

/** A request that passed every check; `respond*` carries it out. */
export type ChatPlan = {
  provider: TChatProvider;
  model: string;
  image: boolean;
  messages: AiChatMessage[];
  /** The images the messages carry, each counted once per message that shows it. */
  imageInputs: RequestImage[];
  /** Each message's image ids, in order. */
  imageIds: string[][];
  /** Each message's document ids, in order (issue 32). */
  documentIds: string[][];
  /** The sources the answer may cite (documents' passages, web pages), given to the model as data (issue 32). */
  sources: AnswerSources | null;
  /** The chat a kept answer goes in (its generated images go there too); null when the answer is only sent back. */
  conversationId: string | null;
  /** The project a chat the answer makes starts in (issue 32); null: none. */
  projectId: string | null;
  user: SessionUser;
  /** The provider's key is missing: answer SPEC's 'API key not configured' text instead. */
  missingKey: boolean;
  /** The budget this call holds until its usage is recorded (null once settled or when none). */
  reservation: Reservation | null;
  /** The answer row a kept answer's usage is recorded for, once (claimed in the same
   * transaction; docs/decisions/0061); null when the answer is not kept or once recorded. */
  answer: { conversationId: string; id: string } | null;
  /** Why we stopped the call (Stop, the process closing, the answer's time limit), when we did. */
  stopReason: () => StopReason | null;
  /** Sent to the provider: never more than the budget leaves after the input. */
  maxOutputTokens: number | undefined;
  /** The limit as the person is told it when an answer reaches it. */
  limit: TAnswerLimit | undefined;
  /** The chat's system prompt and temperature (docs/decisions/0047); none for a model that takes none. */
  system: string | undefined;
  /** The chat's own system prompt, as a chat the answer starts keeps it (without the project's, the tools' or the sources' parts). */
  chatSystem: string;
  temperature: number | undefined;
  /** "Use my agents" (issue 31): the tools offered, and their share of each call's input; null: a plain answer. */
  tools: { specs: AiToolSpec[]; inputTokens: number } | null;
  /** The most output one call asks for (each call of a tool loop reserves it again). */
  outputAsk: number;
  /** What the answer's earlier provider calls spent (a tool loop's), recorded with its last call. */
  spent: { usage: TChatUsage; estimated: boolean };
  log: FastifyBaseLogger;
};

/** The budget refused a tool loop's next call: the answer ends with the budget's sentence, its steps kept. */
class NextCallRefused extends Error {
  readonly reason: string;
  constructor(message: string, reason: string) {
    super(message);
    this.reason = reason;
  }
}

/** Writes one event to the client; resolves when it may take more (backpressure). */
export type ChatEventSink = (event: TChatStreamEvent) => Promise<void>;

/** How a call ended in the usage records: 'stopped' by the person, 'interrupted' by the server stopping (docs/decisions/0061). */
type Outcome = 'ok' | 'error' | 'stopped' | 'interrupted' | 'rejected';

export function createChatService({ db, config, images, conversations, agentTools, documents, webSearch, now = () => new Date() }: ChatServiceDeps) {
  const live = createLiveAnswers();
  const rateWindow = createRateWindow(config.rateLimitPerMinute);
  const budget = createChatBudget({ db, limits: { tokens: config.dailyTokenBudget, images: config.dailyImageBudget }, now });

  const modelsOf = (provider: TChatProvider): TChatModel[] => modelsOfConfig(config, provider);
  const mayUse = (provider: TChatProvider, user: SessionUser): boolean => mayUseConfig(config, provider, user.role);

  function isConfigured(provider: TChatProvider): boolean {
    return provider === 'llama' || config.providers[provider].apiKey !== null;
  }

  function providersFor(user: SessionUser): TChatProvidersResponse {
    return {
      providers: CHAT_PROVIDERS.map((id) => {
        const models = modelsOf(id);
        const preferred = CHAT_PROVIDER_INFO[id].defaultModel;
        return {
          id,
          allowed: mayUse(id, user),
          configured: isConfigured(id),
          models,
          defaultModel: models.some((m) => m.id === preferred) ? preferred : models[0]!.id,
        };
      }),
    };
  }

  /** The role policy; the route asks it before parsing the body, so a refused user hears 403
   * whatever they sent. */
  function authorize(provider: TChatProvider, user: SessionUser): void {
    if (!mayUse(provider, user)) throw new AppError('FORBIDDEN', `${CHAT_PROVIDER_INFO[provider].label} chat needs the admin role`);
  }

  /**
   * Every rule before a provider is called, cheapest first: role policy (403), body (parsed by
   * the route) and model (400), per-user rate (429), then the key and the daily budgets, which reserve what the call
   * may spend (429 when it does not fit). Nothing is recorded for a request refused before the
   * rate check; budget refusals are recorded as 'rejected' so the admin report shows them.
   */
  async function prepare(provider: TChatProvider, user: SessionUser, input: TChatRequest, log: FastifyBaseLogger): Promise<ChatPlan> {
    const info = CHAT_PROVIDER_INFO[provider];
    authorize(provider, user);
    const model = modelsOf(provider).find((m) => m.id === input.model);
    if (!model) {
      throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'model', message: `Unknown model for ${info.label}: ${input.model}` }]);
    }
    if (input.temperature !== undefined && input.temperature > info.temperatureMax) {
      throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'temperature', message: `${info.label} takes a temperature from 0 to ${info.temperatureMax}` }]);
    }
    const withImages = input.messages.flatMap((m, i) => (m.images?.length ? [i] : []));
    if (withImages.length > 0 && !model.vision) {
      throw new AppError('BAD_REQUEST', 'Invalid request', [
        { path: `messages.${withImages[0]}.images`, message: `${model.label} reads text only: choose a model that takes images, or send the question without them` },
      ]);
    }
    const tools = input.useAgents === true ? toolsFor(user, model) : null;
    if (input.webSearch === true && !webSearch?.enabled) {
      throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'webSearch', message: 'Search the web is not available: this server has no search engine configured' }]);
    }

    const at = now();
    const slot = rateWindow.take(user.id, at.getTime());
    if (!slot.ok) {
      throw new AppError(
        'RATE_LIMITED',
        `You can send ${config.rateLimitPerMinute} chat messages per minute. Try again in ${slot.retryAfterSeconds} s.`,
        undefined,
        { retryAfterSeconds: slot.retryAfterSeconds },
      );
    }

    const stored = withImages.length > 0 ? await images.forRequest(user.id, input.messages) : new Map<string, RequestImage>();
    const typeProblems = input.messages.flatMap((m, i) =>
      (m.images ?? []).flatMap((id, j) => {
        const type = stored.get(id)!.mediaType;
        return model.vision!.includes(type)
          ? []
          : [{ path: `messages.${i}.images.${j}`, message: `${model.label} takes ${model.vision!.map((t) => CHAT_IMAGE_TYPE_NAMES[t]).join(' and ')} images; this one is ${CHAT_IMAGE_TYPE_NAMES[type]}` }];
      }),
    );
    if (typeProblems.length > 0) throw new AppError('BAD_REQUEST', 'Invalid request', typeProblems);
    await checkDocuments(user, input);
    // A stored chat's own place wins over the browser's copy (moved in another tab, this one still
    // names the old project); only a chat the server does not hold yet starts where the request says.
    const storedProject = input.answer ? await conversationProject(db, user.id, input.answer.chatId) : undefined;
    const projectId = storedProject === undefined ? input.projectId : (storedProject ?? undefined);
    const project = projectId === undefined ? undefined : await projectInstructions(db, user.id, projectId);
    if (projectId !== undefined && project === undefined) throw new AppError('NOT_FOUND', 'Project not found');
    // An image is drawn from the last question alone: it reads no sources.
    const sources = model.image ? null : await gatherSources(user, { ...input, projectId }, log);

    const plan: ChatPlan = {
      provider,
      model: model.id,
      image: model.image === true,
      messages: input.messages.map(({ role, content, images: ids }) => ({
        role,
        content,
        ...(ids?.length ? { images: ids.map((id) => ({ mediaType: stored.get(id)!.mediaType, data: stored.get(id)!.data })) } : {}),
      })),
      imageInputs: input.messages.flatMap((m) => (m.images ?? []).map((id) => stored.get(id)!)),
      imageIds: input.messages.map((m) => m.images ?? []),
      documentIds: input.messages.map((m) => m.documents ?? []),
      sources,
      conversationId: null,
      projectId: input.projectId ?? null,
      user,
      missingKey: !isConfigured(provider),
      reservation: null,
      answer: null,
      stopReason: () => null,
      maxOutputTokens: undefined,
      limit: undefined,
      // An image is drawn from the last question alone. The project's instructions come before the chat's
      // own, the tools' rules after; the sources last, as data (docs/decisions/0081).
      system: model.image ? undefined : systemWith([project, input.system, tools ? agentTools!.systemPrompt : undefined, sources?.block]),
      chatSystem: model.image ? '' : (input.system?.trim() ?? ''),
      // Sent only to a model that takes one: OpenAI's reasoning models refuse it (400).
      temperature: model.temperature === false ? undefined : input.temperature,
      tools,
      outputAsk: Math.min(config.maxOutputTokens, model.maxOutputTokens ?? Infinity),
      spent: { usage: { inputTokens: 0, outputTokens: 0 }, estimated: false },
      log,
    };
    if (plan.missingKey) return plan;
    if (plan.image) await images.assertRoomForGenerated(user.id);

    const ask: BudgetAsk = plan.image
      ? { kind: 'image' }
      : { kind: 'text', inputTokens: promptTokens(plan), maxOutputTokens: plan.outputAsk };
    const reserved = await budget.reserve(user.id, ask);
    if ('ok' in reserved) return refuse(plan, reserved);
    plan.reservation = reserved;
    plan.maxOutputTokens = reserved.maxOutputTokens ?? undefined;
    if (ask.kind === 'text' && reserved.maxOutputTokens !== null) plan.limit = { tokens: reserved.maxOutputTokens, byBudget: reserved.maxOutputTokens < ask.maxOutputTokens };
    return plan;
  }

  /**
   * "Use my agents" (issue 31, docs/decisions/0076): for admins (agents are theirs), on a model
   * that calls tools; anything else is a 400 naming the field, and nothing is spent.
   */
  function toolsFor(user: SessionUser, model: TChatModel): ChatPlan['tools'] {
    const refused = (message: string) => new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'useAgents', message }]);
    if (user.role !== 'admin') throw refused('Use my agents is for admins, who own the agents');
    if (!model.tools) throw refused(`${model.label} does not call tools: choose a model that does, or turn off Use my agents`);
    if (!agentTools) throw refused('Use my agents is not available on this server');
    const specs = agentTools.specs(user, 'propose');
    return { specs, inputTokens: estimateTextTokens(JSON.stringify(specs)) };
  }

  /** A question's documents must be the user's own (issue 32): another's, or a missing one, is a 400 naming it. */
  async function checkDocuments(user: SessionUser, input: TChatRequest): Promise<void> {
    const refs = input.messages.flatMap((m, i) => (m.documents ?? []).map((id, j) => ({ id, path: `messages.${i}.documents.${j}` })));
    if (refs.length === 0) return;
    if (!documents) throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: refs[0]!.path.replace(/\.\d+$/, ''), message: 'Documents are not available on this server' }]);
    const owned = new Set((await documents.owned(user, [...new Set(refs.map((r) => r.id))])).map((d) => d.id));
    const missing = refs.filter((r) => !owned.has(r.id));
    if (missing.length > 0) throw new AppError('BAD_REQUEST', 'Invalid request', missing.map((r) => ({ path: r.path, message: 'is not a document of yours: upload it again' })));
  }

  /**
   * The sources of an answer (issue 32, docs/decisions/0081): the passages that answer the last
   * question best among the chat's documents so far and its project's knowledge, and with "Search
   * the web" the pages found for it. Both are looked for at once, bounded by the provider's time.
   */
  async function gatherSources(user: SessionUser, input: TChatRequest, log: FastifyBaseLogger): Promise<AnswerSources | null> {
    const question = input.messages.at(-1)?.content ?? '';
    const documentIds = [...new Set(input.messages.flatMap((m) => m.documents ?? []))];
    const projectId = input.projectId ?? null;
    const searchDocuments = documents !== undefined && (documentIds.length > 0 || projectId !== null);
    const searchWeb = input.webSearch === true && webSearch?.enabled === true;
    if (!searchDocuments && !searchWeb) return null;
    const signal = AbortSignal.timeout(config.timeoutMs);
    const [found, web] = await Promise.all([
      searchDocuments ? documents.retrieve(user, question, { documentIds, projectId }, { signal, log }) : Promise.resolve<Retrieval | null>(null),
      searchWeb ? webSearch.search(user, question, { signal, log }) : Promise.resolve<{ sources: WebSource[]; failed: boolean } | null>(null),
    ]);
    // A project without knowledge, asked without documents, has nothing to say about retrieval.
    const retrieval = found && (found.passages.length > 0 || documentIds.length > 0) ? found.info : null;
    return buildSources({ passages: found?.passages ?? [], retrieval, web: web?.sources ?? [], webFailed: web?.failed ?? false });
  }

  async function refuse(plan: ChatPlan, refusal: BudgetRefusal): Promise<never> {
    const { message, retryAfterSeconds } = refusalMessage(refusal, now());
    await record(plan, 'rejected', null, 0, `daily budget: ${refusal.reason.replaceAll('_', ' ')}`);
    throw new AppError('RATE_LIMITED', message, undefined, { retryAfterSeconds });
  }

  function missingKeyMessage(provider: TChatProvider): string {
    return `API key not configured: ${CHAT_PROVIDER_INFO[provider].missingKeyMessage}`;
  }

  function call(plan: ChatPlan, signal: AbortSignal): AiCall {
    return {
      provider: plan.provider,
      settings: config.providers[plan.provider],
      model: plan.model,
      messages: plan.messages,
      signal,
      timeoutMs: config.timeoutMs,
      maxOutputTokens: plan.maxOutputTokens,
      system: plan.system,
      temperature: plan.temperature,
    };
  }

  /**
   * Runs a call while its reservation is kept alive; whatever happens, the reservation does not
   * outlive it (recording the usage settles it; an unexpected failure releases it).
   */
  async function holding<T>(plan: ChatPlan, work: () => Promise<T>): Promise<T> {
    const lease = plan.reservation ? budget.hold(() => plan.reservation, plan.log) : null;
    try {
      return await work();
    } finally {
      lease?.stop();
      const left = plan.reservation;
      plan.reservation = null;
      if (left) await budget.release(left).catch((err: unknown) => plan.log.error({ err }, 'could not release a chat budget reservation'));
    }
  }

  /** The SPEC's JSON answer. Provider failures answer `error: true` with a clear message; how the
   * answer ended (and why it is not whole) is said beside SPEC's fields (docs/decisions/0061). */
  async function respondJson(plan: ChatPlan, signal: AbortSignal): Promise<TChatResponse> {
    if (plan.missingKey) {
      await record(plan, 'rejected', null, 0, 'API key not configured');
      return { error: true, message: missingKeyMessage(plan.provider), choices: [], model: plan.model, finish: 'failed' };
    }
    return holding(plan, async () => {
      const started = performance.now();
      const steps: TToolStep[] = [];
      const stepsOf = () => (steps.length > 0 ? { toolSteps: steps } : {});
      let answer: Answered;
      try {
        answer = plan.image
          ? await generateChatImage(call(plan, signal))
          : await provide(plan, signal, null, async (step) => upsertStep(steps, step));
      } catch (err) {
        const { message, finish } = await recordFailure(plan, err, '', null, started);
        return { error: true, message, choices: [], model: plan.model, finish, ...stepsOf(), ...citationsOf(plan) };
      }
      const { usage, estimated } = await recordSuccess(plan, answer, started);
      const urls = answer.images ? await keepImages(plan, answer.images) : [];
      const note = noteOf(plan, answer);
      return {
        error: false,
        choices: [{ message: { role: 'assistant', content: answer.text } }],
        model: plan.model,
        usage,
        ...(estimated ? { usageEstimated: true as const } : {}),
        finish: answer.finish,
        ...(note ? { note } : {}),
        ...(answer.images ? { images: urls } : {}),
        ...stepsOf(),
        ...citationsOf(plan),
      };
    });
  }

  /** Why an answer its provider ended is not whole, for the person; none when it is (docs/decisions/0061). A tool loop
   * that reached its step limit says so too (docs/decisions/0076). */
  function noteOf(plan: ChatPlan, answer: Answered): string | undefined {
    if (answer.finish === 'other') plan.log.warn({ provider: plan.provider, model: plan.model, finishReason: answer.rawFinish }, 'chat answer ended for a reason the provider named its own');
    const empty = answer.text.trim() === '' && !answer.images?.length;
    const notes = [finishNote(answer.finish, { assistant: CHAT_PROVIDER_INFO[plan.provider].label, empty, limit: plan.limit }), answer.stepLimit ? toolLimitNote(answer.stepLimit) : undefined];
    return notes.filter(Boolean).join(' ') || undefined;
  }

  /**
   * The text answer: one provider call, or with "Use my agents" the tool loop's several
   * (tool-loop.ts): each later call reserved on the budget first (a refusal ends the answer with
   * the budget's sentence), each call's usage added to what the answer spent, each tool run with
   * the user's own rights and stopped with the answer.
   */
  async function provide(plan: ChatPlan, signal: AbortSignal, onAnyText: ((text: string) => Promise<void>) | null, onStep: (step: TToolStep) => Promise<void>): Promise<Answered> {
    const onText = onAnyText && timingFirstToken(plan.provider, plan.model, onAnyText);
    const once = (extra: Partial<AiCall>) => (onText ? streamChat({ ...call(plan, signal), ...extra }, onText) : generateChat({ ...call(plan, signal), ...extra }));
    const tools = plan.tools;
    if (!tools || !agentTools) return once({});
    const caller: ToolCaller = {
      user: plan.user,
      source: 'chat',
      sourceName: CHAT_PROVIDER_INFO[plan.provider].label,
      scope: 'propose',
      rateKey: `user:${plan.user.id}`,
      conversationId: plan.conversationId,
      signal,
      log: plan.log,
    };
    const { answer, steps, limited } = await runToolLoop({
      ask: async (turns, toolChoice) => {
        const answer = await once({ tools: tools.specs, toolChoice, toolTurns: turns });
        spend(plan, answer, turns);
        return answer;
      },
      next: (turns) => reserveNext(plan, turns),
      run: async (toolCall) => {
        const outcome = await agentTools.run(caller, toolCall.name, toolCall.argsText);
        return outcome.detail === undefined ? outcome : { ...outcome, detail: keptDetail(outcome.detail) };
      },
      step: onStep,
      signal,
    });
    // Every call's usage is in `plan.spent`, recorded with the answer.
    return { ...answer, usage: { inputTokens: 0, outputTokens: 0 }, ...(limited ? { stepLimit: steps } : {}) };
  }

  /** Adds a call of the tool loop to what the answer spent (estimated when the provider reported nothing). */
  function spend(plan: ChatPlan, answer: AiAnswer, turns: readonly AiToolTurn[]): void {
    const calls = answer.toolCalls?.map((c) => c.name + c.argsText).join('') ?? '';
    const usage = answer.usage ?? { inputTokens: promptTokens(plan) + turnsTokens(turns), outputTokens: estimateTextTokens(answer.text + calls) };
    plan.spent = {
      usage: { inputTokens: plan.spent.usage.inputTokens + usage.inputTokens, outputTokens: plan.spent.usage.outputTokens + usage.outputTokens },
      estimated: plan.spent.estimated || answer.usage === null,
    };
  }

  /** Makes room on the budget for the tool loop's next call: what the answer spent so far, the next call's input, and its output. */
  async function reserveNext(plan: ChatPlan, turns: readonly AiToolTurn[]): Promise<void> {
    if (!plan.reservation) return;
    const spent = plan.spent.usage.inputTokens + plan.spent.usage.outputTokens;
    const ask = { kind: 'text' as const, inputTokens: spent + promptTokens(plan) + turnsTokens(turns), maxOutputTokens: plan.outputAsk };
    const next = await budget.reserveNext(plan.reservation, ask);
    if ('ok' in next) throw new NextCallRefused(refusalMessage(next, now()).message, next.reason);
    plan.reservation = next;
    plan.maxOutputTokens = next.maxOutputTokens ?? undefined;
    if (next.maxOutputTokens !== null) plan.limit = { tokens: next.maxOutputTokens, byBudget: next.maxOutputTokens < ask.maxOutputTokens };
  }

  /**
   * The event stream: deltas as they arrive, then `done` (how the provider ended the answer, and
   * why it is not whole when it is not) or `error`. A failure after some text keeps that text (the
   * client shows it with the error note: partial: true), a stream that closed without its closing
   * event included ('connection-lost', docs/decisions/0061).
   */
  async function respondStream(plan: ChatPlan, signal: AbortSignal, send: ChatEventSink): Promise<void> {
    if (plan.missingKey) {
      await record(plan, 'rejected', null, 0, 'API key not configured');
      return send({ event: 'error', data: { message: missingKeyMessage(plan.provider), partial: false, finish: 'failed' } });
    }
    const cited = citationsEvent(plan);
    if (cited) await send(cited);
    return holding(plan, async () => {
      const started = performance.now();
      let sentText = '';
      let answer: Answered;
      try {
        if (plan.image) {
          answer = await generateChatImage(call(plan, signal));
          sentText = answer.text;
          await send({ event: 'delta', data: { text: answer.text } });
        } else {
          answer = await provide(
            plan,
            signal,
            (text) => {
              sentText += text;
              return send({ event: 'delta', data: { text } });
            },
            (step) => send({ event: 'tool', data: step }),
          );
        }
      } catch (err) {
        // A tool loop's earlier calls wrote part of the text: the whole of it is what was sent.
        const partial = err instanceof AiStreamError && !plan.tools ? err.partialText : sentText;
        const usage = err instanceof AiStreamError ? err.usage : null;
        const { message, finish } = await recordFailure(plan, err, partial, usage, started);
        // After a client abort nobody is listening; the sink skips the write.
        return send({ event: 'error', data: { message, partial: partial.length > 0, finish } });
      }
      const { usage, estimated } = await recordSuccess(plan, answer, started);
      const urls = answer.images ? await keepImages(plan, answer.images) : [];
      const note = noteOf(plan, answer);
      await send({
        event: 'done',
        data: { model: plan.model, usage, ...(estimated ? { usageEstimated: true as const } : {}), finish: answer.finish, ...(note ? { note } : {}), ...(answer.images ? { images: urls } : {}) },
      });
    });
  }

  /** The `citations` event of an answer with sources (issue 32): sent before its first delta. */
  function citationsEvent(plan: ChatPlan): Extract<TChatStreamEvent, { event: 'citations' }> | null {
    const sources = plan.sources;
    if (!sources || (sources.citations.length === 0 && !sources.note)) return null;
    return { event: 'citations', data: { citations: sources.citations, retrieval: sources.retrieval, ...(sources.note ? { note: sources.note } : {}) } };
  }

  /** The sources on a JSON answer (issue 32). */
  function citationsOf(plan: ChatPlan): Pick<TChatResponse, 'citations' | 'retrieval'> {
    const sources = plan.sources;
    if (!sources) return {};
    return { ...(sources.citations.length > 0 ? { citations: sources.citations } : {}), ...(sources.retrieval ? { retrieval: sources.retrieval } : {}) };
  }

  /** Stores generated images for the user (in the chat the answer goes in) and gives their URLs. */
  async function keepImages(plan: ChatPlan, generated: AiGeneratedImage[]): Promise<string[]> {
    const { stored, dropped, reasons } = await images.storeGenerated(plan.user.id, plan.conversationId, generated);
    if (dropped > 0) plan.log.warn({ provider: plan.provider, model: plan.model, dropped, reasons }, 'a generated image could not be kept');
    return stored.map((image) => image.url);
  }

  // --- answers kept on the server (docs/decisions/0056) ---------------------------------------------

  /**
   * Starts an answer the server writes into the user's chat whoever is listening: stored as it
   * goes (every second), ended there before its last event is sent, joined again by the owner's
   * other requests, stopped only by Stop, the process closing, its own limits (silence timeout,
   * output tokens) or CHAT_ANSWER_MAX_SECONDS. Resolves once it is stored and running; the caller
   * follows it.
   */
  async function startAnswer(plan: ChatPlan, target: AnswerTarget): Promise<LiveAnswer> {
    const answer = live.open(plan.user.id, target.chatId, target.id);
    const fail = async (err: unknown): Promise<never> => {
      if (answer) await live.publish(answer, { event: 'error', data: { message: 'not started', partial: false, finish: 'failed' } });
      await release(plan);
      throw err;
    };
    if (!answer) return fail(new AppError('CONFLICT', 'Invalid request', [{ path: 'answer.id', message: 'is an answer being written already' }]));
    const question = plan.messages.at(-1)!;
    const lastQuestionImages = plan.imageIds.at(-1) ?? [];
    const begin = () =>
      conversations.beginAnswer(
        plan.user.id,
        {
          target,
          provider: plan.provider,
          model: plan.model,
          question: { content: question.content, images: lastQuestionImages, documents: plan.documentIds.at(-1) ?? [] },
          citations: plan.sources?.citations ?? [],
          sourcesNote: plan.sources?.note,
          retrieval: plan.sources?.retrieval,
          systemPrompt: plan.chatSystem,
          temperature: plan.temperature ?? null,
          projectId: plan.projectId,
          // An image is billed per image, not by its prompt (interrupted-answers.ts counts it).
          unsettled: { inputTokens: plan.image ? 0 : promptTokens(plan), reservationId: plan.reservation?.id ?? null },
        },
        new Date(now().getTime() + config.answerLeaseMs),
      );
    let begun: { conversationId: string; stored: boolean };
    try {
      begun = await begin();
    } catch (err) {
      return fail(err);
    }
    plan.conversationId = begun.stored ? begun.conversationId : null;
    if (begun.stored) plan.answer = { conversationId: begun.conversationId, id: target.id };
    plan.stopReason = () => answer.stopReason;
    void run(plan, answer, target, begun, begin);
    return answer;
  }

  /** Writes the answer: the provider's events go to the answer's followers and, every second and at the end, to the chat. */
  async function run(
    plan: ChatPlan,
    answer: LiveAnswer,
    target: AnswerTarget,
    begun: { conversationId: string; stored: boolean },
    begin: () => Promise<{ conversationId: string; stored: boolean }>,
  ): Promise<void> {
    let stored = begun.stored;
    let tries = 0;
    let saving: Promise<void> | null = null;
    const saveNow = async () => {
      if (!stored) {
        if (++tries > BEGIN_RETRIES) return;
        const again = await begin();
        stored = again.stored;
        if (stored) {
          plan.conversationId = again.conversationId;
          // Stored with its usage unsettled: recorded for it by the writer (or the sweep, should it die).
          plan.answer = { conversationId: again.conversationId, id: target.id };
        }
        return;
      }
      const saved = await conversations.saveAnswerProgress(begun.conversationId, target.id, answer.text, answer.toolSteps, new Date(now().getTime() + config.answerLeaseMs));
      if (!saved) stored = false; // the chat or the answer was deleted meanwhile: it is only sent now
      else if (saved.stopRequested) live.stop(answer, 'stop');
    };
    const timer = setInterval(() => {
      if (saving) return;
      saving = saveNow()
        .catch((err: unknown) => plan.log.warn({ err }, 'could not save an answer in progress'))
        .finally(() => (saving = null));
    }, ANSWER_SAVE_EVERY_MS);
    const limit = setTimeout(() => live.stop(answer, 'limit'), config.answerMaxMs);

    const send: ChatEventSink = async (event) => {
      if (event.event === 'delta' || event.event === 'tool' || event.event === 'citations') return live.publish(answer, event);
      clearInterval(timer);
      clearTimeout(limit);
      await saving;
      const last = finalEvent(answer, event);
      if (stored && plan.conversationId) {
        await conversations
          .endAnswer(plan.conversationId, { id: target.id, questionId: target.questionId }, endFields(plan, answer, last))
          .catch((err: unknown) => plan.log.error({ err }, 'could not store the end of an answer'));
      }
      await live.publish(answer, last);
    };
    try {
      await respondStream(plan, answer.controller.signal, send);
    } catch (err) {
      plan.log.error({ err }, 'chat answer failed');
      await send({ event: 'error', data: { message: 'The answer could not be completed. Please try again.', partial: answer.text.length > 0, finish: 'failed' } });
    } finally {
      clearInterval(timer);
      clearTimeout(limit);
    }
  }

  /** The last event as followers see it: Stop says so; the process closing or the time limit says why. */
  function finalEvent(answer: LiveAnswer, event: TChatStreamEvent): TChatStreamEvent {
    if (event.event !== 'error' || !answer.stopReason) return event;
    const partial = answer.text.length > 0;
    if (answer.stopReason === 'stop') return { event: 'error', data: { message: STOPPED_MESSAGE, partial, stopped: true, finish: 'stopped' } };
    if (answer.stopReason === 'shutdown') return { event: 'error', data: { message: SHUTDOWN_MESSAGE, partial, finish: 'interrupted' } };
    return { event: 'error', data: { message: `The answer ran for the longest time an answer may take (${Math.round(config.answerMaxMs / 60_000)} min).`, partial, finish: 'failed' } };
  }

  /** What the chat keeps of an ended answer, with how it ended and why it is not whole; nothing when it failed before any text. */
  function endFields(plan: ChatPlan, answer: LiveAnswer, last: TChatStreamEvent) {
    if (last.event === 'delta' || last.event === 'tool' || last.event === 'citations') throw new Error('an answer ends with done or error');
    const toolSteps = answer.toolSteps;
    if (last.event === 'done') {
      const images = (last.data.images ?? []).map((url) => url.split('/').at(-1)!);
      return { content: answer.text, note: last.data.note ?? null, finish: last.data.finish, images, model: plan.model, toolSteps };
    }
    // An answer that failed before any text is dropped, unless it took steps: they are kept with the failure.
    if (answer.text.length === 0 && toolSteps.length === 0 && !last.data.stopped) return 'drop' as const;
    const note = last.data.stopped ? STOPPED_NOTE : cutShortNote(last.data.message);
    return { content: answer.text, note, finish: last.data.finish, images: [], model: plan.model, toolSteps };
  }

  /** Follows an answer this process writes until it ends or the browser leaves. */
  function follow(answer: LiveAnswer, listener: AnswerListener, gone: AbortSignal): Promise<void> {
    return live.follow(answer, listener, gone);
  }

  /** SPEC's JSON answer for a kept answer: once it has ended. */
  async function answerJson(plan: ChatPlan, answer: LiveAnswer): Promise<TChatResponse> {
    await answer.ended;
    const end = answer.end;
    const steps = answer.toolSteps.length > 0 ? { toolSteps: answer.toolSteps } : {};
    if (end?.event === 'done') {
      return {
        error: false,
        choices: [{ message: { role: 'assistant', content: answer.text } }],
        model: plan.model,
        ...(end.data.usage ? { usage: end.data.usage } : {}),
        ...(end.data.usageEstimated ? { usageEstimated: true as const } : {}),
        finish: end.data.finish,
        ...(end.data.note ? { note: end.data.note } : {}),
        ...(end.data.images ? { images: end.data.images } : {}),
        ...steps,
        ...citationsOf(plan),
      };
    }
    const failed = end?.event === 'error' ? end.data : { message: 'The answer could not be completed. Please try again.', finish: 'failed' as const };
    return { error: true, message: failed.message, choices: [], model: plan.model, finish: failed.finish, ...steps, ...citationsOf(plan) };
  }

  /**
   * Joins an answer again (a reload, another tab): 404 unless it is the user's. One this process
   * writes is followed as it goes; one another process writes is read from the chat as it is saved
   * (every second) until it ends; one that has ended is sent whole, with its end. (An answer is
   * registered here before its row exists, so one not found here is written elsewhere or ended.)
   */
  async function join(user: SessionUser, chatId: string, answerId: string, open: () => AnswerListener, gone: AbortSignal): Promise<void> {
    const here = live.find(user.id, chatId, answerId);
    if (here) return follow(here, open(), gone);
    const { conversation, message } = await conversations.findAnswer(user.id, chatId, answerId);
    const send = open();
    let sent = 0;
    // The sources as the asking tab heard them: the citations, how retrieval ran and the note (docs/decisions/0088).
    if (message.citations?.length || message.sourcesNote) {
      await send({ event: 'citations', data: { citations: message.citations ?? [], retrieval: message.retrieval ?? null, ...(message.sourcesNote ? { note: message.sourcesNote } : {}) } });
    }
    /** Each step as last sent (a step is sent again when it has changed: it ended). */
    const stepsSent = new Map<string, string>();
    for (let row: typeof message | undefined = message; ; ) {
      if (!row) return send({ event: 'error', data: { message: 'The answer could not be completed. Please try again.', partial: sent > 0, finish: 'failed' } });
      if (row.content.length > sent) {
        await send({ event: 'delta', data: { text: row.content.slice(sent) } });
        sent = row.content.length;
      }
      for (const step of row.toolSteps ?? []) {
        const json = JSON.stringify(step);
        if (stepsSent.get(step.id) === json) continue;
        stepsSent.set(step.id, json);
        await send({ event: 'tool', data: step });
      }
      if (row.streamingUntil === null) return send(storedEnd(row));
      if (row.streamingUntil.getTime() <= now().getTime()) {
        return send({ event: 'error', data: { message: 'the server stopped before the answer was complete. Please try again.', partial: sent > 0, finish: 'interrupted' } });
      }
      if (gone.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, ANSWER_TAIL_EVERY_MS));
      if (gone.aborted) return;
      row = await conversations.answerNow(conversation.id, answerId);
    }
  }

  /** The end of an answer as the chat stored it (its finish; an answer kept before finishes were, by its note). */
  function storedEnd(row: Pick<MessageRow, 'note' | 'model' | 'imageIds' | 'content' | 'finish'>): TChatStreamEvent {
    const partial = row.content.length > 0;
    if (row.finish === 'stopped' || (row.finish === null && row.note === STOPPED_NOTE)) return { event: 'error', data: { message: STOPPED_MESSAGE, partial, stopped: true, finish: 'stopped' } };
    const cut = cutShortNote('');
    const failed = (finish: TErrorFinish) => ({ event: 'error' as const, data: { message: row.note?.startsWith(cut) ? row.note.slice(cut.length) : (row.note ?? 'The answer could not be completed.'), partial, finish } });
    if (row.finish === 'connection-lost' || row.finish === 'failed' || row.finish === 'interrupted') return failed(row.finish);
    if (row.finish === null && row.note?.startsWith(cut)) return failed('failed');
    return {
      event: 'done',
      data: { model: row.model ?? '', finish: row.finish ?? 'complete', ...(row.note ? { note: row.note } : {}), ...(row.imageIds.length > 0 ? { images: row.imageIds.map(chatImageUrl) } : {}) },
    };
  }

  /** Stop: the answer ends as far as it got, wherever it is being written. 404 unless it is the user's. */
  async function stopAnswer(user: SessionUser, chatId: string, answerId: string): Promise<void> {
    const here = live.find(user.id, chatId, answerId);
    if (here) return live.stop(here, 'stop');
    const { conversation } = await conversations.findAnswer(user.id, chatId, answerId);
    await conversations.askToStop(conversation.id, answerId);
  }

  /** Gives back the budget a prepared call holds, when it will not be made. */
  async function release(plan: ChatPlan): Promise<void> {
    const left = plan.reservation;
    plan.reservation = null;
    if (left) await budget.release(left).catch((err: unknown) => plan.log.error({ err }, 'could not release a chat budget reservation'));
  }

  /** Ends every answer this process writes (it is closing), each stored as far as it got. */
  function close(): Promise<void> {
    return live.closeAll();
  }

  /** Answers a process that died left being written: settled at this process's start and as their leases run out (docs/decisions/0061). */
  const interrupted = createInterruptedAnswers({ db, now, leaseMs: config.answerLeaseMs, isLiveHere: (userId, chatId, answerId) => live.find(userId, chatId, answerId) !== undefined });

  /** Records an answer its provider ended; usage it did not report is estimated and marked so (images are billed per image). */
  async function recordSuccess(plan: ChatPlan, answer: AiAnswer, started: number): Promise<{ usage: TChatUsage; estimated: boolean }> {
    const estimated = answer.usage === null && !plan.image;
    const usage = answer.usage ?? (plan.image ? { inputTokens: 0, outputTokens: 0 } : estimateUsage(plan, answer.text));
    return record(plan, 'ok', usage, performance.now() - started, null, answer.images?.length ?? 0, estimated);
  }

  function estimateUsage(plan: ChatPlan, output: string): TChatUsage {
    return { inputTokens: promptTokens(plan), outputTokens: estimateTextTokens(output) };
  }

  /**
   * Records a failed call, logs its cause (status and provider text, never keys) and returns
   * the sentence for the user (ours, one per kind of failure; never the provider's text).
   * Tokens: what the provider reported, else an estimate when it may have billed (it produced
   * text, or we stopped it while it was working), else none (it refused: 401, 429, 5xx). An
   * image stopped by us may have been made, so it counts. A call we stopped is 'stopped' when the
   * person stopped it (Stop, or their request went away) and 'interrupted' when the server was
   * closing; tokens we estimated are marked so (docs/decisions/0061).
   */
  async function recordFailure(plan: ChatPlan, err: unknown, partial: string, usage: TChatUsage | null, started: number): Promise<{ message: string; finish: TErrorFinish }> {
    if (err instanceof NextCallRefused) {
      plan.log.info({ provider: plan.provider, model: plan.model, reason: err.reason }, 'a tool step was refused by the daily budget');
      await record(plan, 'rejected', null, performance.now() - started, `daily budget: ${err.reason.replaceAll('_', ' ')}`);
      return { message: err.message, finish: 'failed' };
    }
    // Stopped while a tool ran: no provider call was under way, so nothing more was spent.
    if (err instanceof ToolLoopStopped) usage = { inputTokens: 0, outputTokens: 0 };
    const failure =
      err instanceof AiCallError ? err : new AiCallError('failed', `${CHAT_PROVIDER_INFO[plan.provider].label} could not answer this request`, { message: String(err) });
    const stoppedByUs = failure.kind === 'aborted' || failure.kind === 'timeout';
    // A stream that closed early may have billed a model that thought without writing.
    const mayHaveBilled = partial.length > 0 || stoppedByUs || failure.kind === 'connection_lost';
    const estimate = !plan.image && usage === null && mayHaveBilled;
    const tokens = plan.image ? null : (usage ?? (estimate ? estimateUsage(plan, partial) : null));
    const why = plan.stopReason();
    const outcome: Outcome = failure.kind !== 'aborted' ? 'error' : why === 'shutdown' ? 'interrupted' : why === 'limit' ? 'error' : 'stopped';
    if (failure.kind === 'aborted') plan.log.info({ provider: plan.provider, model: plan.model, reason: why ?? 'the client went away' }, 'chat answer stopped');
    else plan.log.warn({ provider: plan.provider, model: plan.model, kind: failure.kind, cause: failure.logCause }, 'chat provider call failed');
    if (!(err instanceof AiCallError)) plan.log.error({ err }, 'chat failed unexpectedly');
    const error = outcome === 'stopped' ? null : outcome === 'interrupted' ? 'the server stopped before the answer was complete' : failure.message;
    await record(plan, outcome, tokens, performance.now() - started, error, plan.image && stoppedByUs ? 1 : 0, estimate);
    const finish: TErrorFinish = failure.kind === 'connection_lost' ? 'connection-lost' : outcome === 'stopped' ? 'stopped' : outcome === 'interrupted' ? 'interrupted' : 'failed';
    return { message: (plan.user.role === 'admin' && adminDetail(plan, failure)) || failure.message, finish };
  }

  /**
   * What an admin can act on when Ollama (our own server, no key) fails: where we looked for
   * it. The URL is configuration, not a secret, but any credentials in it are left out.
   */
  function adminDetail(plan: ChatPlan, failure: AiCallError): string | null {
    if (plan.provider !== 'llama') return null;
    const where = displayUrl(config.providers.llama.baseUrl ?? '');
    if (failure.kind === 'unreachable') {
      return `Ollama was not reachable at ${where} (OLLAMA_BASE_URL). Check that Ollama is running there and that this server can connect to it.`;
    }
    if (failure.kind === 'model_unavailable') {
      return `Ollama at ${where} does not have the model ${plan.model}. Run "ollama pull ${plan.model}" there, or change OLLAMA_MODELS.`;
    }
    return null;
  }

  /**
   * Writes the call's usage row; this settles its budget reservation in the same transaction, and
   * for a kept answer takes its usage from the answer row once (the sweep of answers whose writer
   * died may have recorded it already; docs/decisions/0061).
   */
  async function record(
    plan: ChatPlan,
    outcome: Outcome,
    usage: TChatUsage | null,
    durationMs: number,
    error: string | null,
    images = 0,
    estimated = false,
  ): Promise<{ usage: TChatUsage; estimated: boolean }> {
    // A tool loop's earlier calls are part of the answer's one row (docs/decisions/0076).
    const spent = plan.spent;
    plan.spent = { usage: { inputTokens: 0, outputTokens: 0 }, estimated: false };
    const total = { inputTokens: (usage?.inputTokens ?? 0) + spent.usage.inputTokens, outputTokens: (usage?.outputTokens ?? 0) + spent.usage.outputTokens };
    estimated ||= spent.estimated;
    const reservation = plan.reservation;
    plan.reservation = null;
    const answer = plan.answer;
    plan.answer = null;
    const claim = answer ? (tx: Tx) => claimAnswerUsage(tx, answer.conversationId, answer.id) : undefined;
    await budget.settle(reservation, {
      userId: plan.user.id,
      provider: plan.provider,
      model: plan.model,
      inputTokens: total.inputTokens,
      outputTokens: total.outputTokens,
      images,
      durationMs: Math.round(durationMs),
      outcome,
      estimated,
      error,
      // The service's clock, not the database's: the budget window is computed from it too.
      createdAt: now(),
    }, claim);
    countAnswer(plan.provider, plan.model, outcome, total, images);
    return { usage: total, estimated };
  }

  async function usageReport(days: number): Promise<TChatUsageReport> {
    const since = new Date(now().getTime() - days * 86_400_000);
    const rows = (await usageByUserAndModel(db, since)).map((r) => ({
      user: { id: r.userId, email: r.email, name: r.name },
      provider: r.provider,
      model: r.model,
      purpose: r.purpose,
      requests: r.requests,
      failed: r.failed,
      stopped: r.stopped,
      estimated: r.estimated,
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      images: r.images,
      costUsd: roundCents(estimateCostUsd(r.model, r)),
    }));
    const totals = usageTotals(rows);
    return { days, since: since.toISOString(), rows, totals: { ...totals, costUsd: roundCents(totals.costUsd) } };
  }

  return {
    providersFor,
    authorize,
    prepare,
    release,
    respondJson,
    respondStream,
    startAnswer,
    follow,
    answerJson,
    join,
    stopAnswer,
    close,
    usageReport,
    settleInterruptedAnswers: interrupted.settle,
    startSettlingInterruptedAnswers: interrupted.start,
  };
}

/** To a hundredth of a cent: small calls still show a cost, and float noise is gone. */
function roundCents(usd: number): number {
  return Math.round(usd * 10_000) / 10_000;
}

/** The estimated input of a call: its messages, their images, its system prompt and the tools it offers, which providers bill as input. */
function promptTokens(plan: ChatPlan): number {
  const text = estimateInputTokens(plan.system ? [{ content: plan.system }, ...plan.messages] : plan.messages);
  return text + (plan.tools?.inputTokens ?? 0) + plan.imageInputs.reduce((sum, image) => sum + estimateImageTokens(plan.provider, image.width, image.height), 0);
}

/** The estimated input a tool loop's turns add to a call: the calls and their results. */
function turnsTokens(turns: readonly AiToolTurn[]): number {
  return turns.length === 0 ? 0 : estimateTextTokens(JSON.stringify(turns));
}

/** An answer as the chat shows it: the provider's, and for a tool loop stopped at its limit, how many steps it took. */
type Answered = AiAnswer & { stepLimit?: number };

export type ChatService = ReturnType<typeof createChatService>;
