import type { FastifyBaseLogger } from 'fastify';
import {
  CHAT_PROVIDER_INFO,
  CHAT_PROVIDERS,
  estimateCostUsd,
  usageTotals,
  type TChatModel,
  type TChatProvider,
  type TChatRequest,
  type TChatProvidersResponse,
  type TChatResponse,
  type TChatStreamEvent,
  type TChatUsage,
  type TChatUsageReport,
} from '../../../contracts/chat.ts';
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
} from '../../integrations/ai/index.ts';
import { AppError } from '../../lib/errors.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { mayUse as mayUseConfig, modelsOf as modelsOfConfig } from './chat-policy.ts';
import { createChatBudget, refusalMessage, type BudgetAsk, type BudgetRefusal, type Reservation } from './budget.ts';
import { usageByUserAndModel } from './chat.repo.ts';
import { createRateWindow } from '../../lib/rate-window.ts';
import { estimateInputTokens, estimateTextTokens } from './token-estimate.ts';

export type ChatServiceDeps = { db: Db; config: ChatConfig; now?: () => Date };

/** A request that passed every check; `respond*` carries it out. */
export type ChatPlan = {
  provider: TChatProvider;
  model: string;
  image: boolean;
  messages: AiChatMessage[];
  user: SessionUser;
  /** The provider's key is missing: answer SPEC's 'API key not configured' text instead. */
  missingKey: boolean;
  /** The budget this call holds until its usage is recorded (null once settled or when none). */
  reservation: Reservation | null;
  /** Sent to the provider: never more than the budget leaves after the input. */
  maxOutputTokens: number | undefined;
  /** The chat's system prompt and temperature (docs/decisions/0047); none for a model that takes none. */
  system: string | undefined;
  temperature: number | undefined;
  log: FastifyBaseLogger;
};

/** Writes one event to the client; resolves when it may take more (backpressure). */
export type ChatEventSink = (event: TChatStreamEvent) => Promise<void>;

type Outcome = 'ok' | 'error' | 'aborted' | 'rejected';

export function createChatService({ db, config, now = () => new Date() }: ChatServiceDeps) {
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

    const plan: ChatPlan = {
      provider,
      model: model.id,
      image: model.image === true,
      messages: input.messages.map(({ role, content }) => ({ role, content })),
      user,
      missingKey: !isConfigured(provider),
      reservation: null,
      maxOutputTokens: undefined,
      // An image is drawn from the last question alone.
      system: model.image ? undefined : input.system?.trim() || undefined,
      // Sent only to a model that takes one: OpenAI's reasoning models refuse it (400).
      temperature: model.temperature === false ? undefined : input.temperature,
      log,
    };
    if (plan.missingKey) return plan;

    const ask: BudgetAsk = plan.image
      ? { kind: 'image' }
      : { kind: 'text', inputTokens: promptTokens(plan), maxOutputTokens: Math.min(config.maxOutputTokens, model.maxOutputTokens ?? Infinity) };
    const reserved = await budget.reserve(user.id, ask);
    if ('ok' in reserved) return refuse(plan, reserved);
    plan.reservation = reserved;
    plan.maxOutputTokens = reserved.maxOutputTokens ?? undefined;
    return plan;
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
    const lease = plan.reservation ? budget.hold(plan.reservation, plan.log) : null;
    try {
      return await work();
    } finally {
      lease?.stop();
      const left = plan.reservation;
      plan.reservation = null;
      if (left) await budget.release(left).catch((err: unknown) => plan.log.error({ err }, 'could not release a chat budget reservation'));
    }
  }

  /** The SPEC's JSON answer. Provider failures answer `error: true` with a clear message. */
  async function respondJson(plan: ChatPlan, signal: AbortSignal): Promise<TChatResponse> {
    if (plan.missingKey) {
      await record(plan, 'rejected', null, 0, 'API key not configured');
      return { error: true, message: missingKeyMessage(plan.provider), choices: [], model: plan.model };
    }
    return holding(plan, async () => {
      const started = performance.now();
      let answer: AiAnswer;
      try {
        answer = plan.image ? await generateChatImage(call(plan, signal)) : await generateChat(call(plan, signal));
      } catch (err) {
        const message = await recordFailure(plan, err, '', null, started);
        return { error: true, message, choices: [], model: plan.model };
      }
      const usage = await recordSuccess(plan, answer, started);
      return {
        error: false,
        choices: [{ message: { role: 'assistant', content: answer.text } }],
        model: plan.model,
        usage,
        ...(answer.images ? { images: answer.images } : {}),
      };
    });
  }

  /**
   * The event stream: deltas as they arrive, then `done` or `error`. A failure after some text
   * keeps that text (the client shows it with the error note: partial: true).
   */
  async function respondStream(plan: ChatPlan, signal: AbortSignal, send: ChatEventSink): Promise<void> {
    if (plan.missingKey) {
      await record(plan, 'rejected', null, 0, 'API key not configured');
      return send({ event: 'error', data: { message: missingKeyMessage(plan.provider), partial: false } });
    }
    return holding(plan, async () => {
      const started = performance.now();
      let sentText = '';
      let answer: AiAnswer;
      try {
        if (plan.image) {
          answer = await generateChatImage(call(plan, signal));
          sentText = answer.text;
          await send({ event: 'delta', data: { text: answer.text } });
        } else {
          answer = await streamChat(call(plan, signal), (text) => {
            sentText += text;
            return send({ event: 'delta', data: { text } });
          });
        }
      } catch (err) {
        const partial = err instanceof AiStreamError ? err.partialText : sentText;
        const usage = err instanceof AiStreamError ? err.usage : null;
        const message = await recordFailure(plan, err, partial, usage, started);
        // After a client abort nobody is listening; the sink skips the write.
        return send({ event: 'error', data: { message, partial: partial.length > 0 } });
      }
      const usage = await recordSuccess(plan, answer, started);
      await send({ event: 'done', data: { model: plan.model, usage, ...(answer.images ? { images: answer.images } : {}) } });
    });
  }

  async function recordSuccess(plan: ChatPlan, answer: AiAnswer, started: number): Promise<TChatUsage> {
    // A provider that reports no usage (images, some compatible servers) is estimated for text.
    const usage = answer.usage ?? (plan.image ? { inputTokens: 0, outputTokens: 0 } : estimateUsage(plan, answer.text));
    await record(plan, 'ok', usage, performance.now() - started, null, answer.images?.length ?? 0);
    return usage;
  }

  function estimateUsage(plan: ChatPlan, output: string): TChatUsage {
    return { inputTokens: promptTokens(plan), outputTokens: estimateTextTokens(output) };
  }

  /**
   * Records a failed call, logs its cause (status and provider text, never keys) and returns
   * the sentence for the user (ours, one per kind of failure; never the provider's text).
   * Tokens: what the provider reported, else an estimate when it may have billed (it produced
   * text, or we stopped it while it was working), else none (it refused: 401, 429, 5xx). An
   * image stopped by us may have been made, so it counts.
   */
  async function recordFailure(plan: ChatPlan, err: unknown, partial: string, usage: TChatUsage | null, started: number): Promise<string> {
    const failure =
      err instanceof AiCallError ? err : new AiCallError('failed', `${CHAT_PROVIDER_INFO[plan.provider].label} could not answer this request`, { message: String(err) });
    const stoppedByUs = failure.kind === 'aborted' || failure.kind === 'timeout';
    const mayHaveBilled = partial.length > 0 || stoppedByUs;
    const tokens = plan.image ? null : (usage ?? (mayHaveBilled ? estimateUsage(plan, partial) : null));
    const outcome: Outcome = failure.kind === 'aborted' ? 'aborted' : 'error';
    if (failure.kind === 'aborted') plan.log.info({ provider: plan.provider, model: plan.model }, 'chat aborted by the client');
    else plan.log.warn({ provider: plan.provider, model: plan.model, kind: failure.kind, cause: failure.logCause }, 'chat provider call failed');
    if (!(err instanceof AiCallError)) plan.log.error({ err }, 'chat failed unexpectedly');
    await record(plan, outcome, tokens, performance.now() - started, failure.kind === 'aborted' ? null : failure.message, plan.image && stoppedByUs ? 1 : 0);
    return (plan.user.role === 'admin' && adminDetail(plan, failure)) || failure.message;
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

  /** Writes the call's usage row; this settles its budget reservation in the same transaction. */
  async function record(plan: ChatPlan, outcome: Outcome, usage: TChatUsage | null, durationMs: number, error: string | null, images = 0): Promise<void> {
    const reservation = plan.reservation;
    plan.reservation = null;
    await budget.settle(reservation, {
      userId: plan.user.id,
      provider: plan.provider,
      model: plan.model,
      inputTokens: usage?.inputTokens ?? 0,
      outputTokens: usage?.outputTokens ?? 0,
      images,
      durationMs: Math.round(durationMs),
      outcome,
      error,
      // The service's clock, not the database's: the budget window is computed from it too.
      createdAt: now(),
    });
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
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      images: r.images,
      costUsd: roundCents(estimateCostUsd(r.model, r)),
    }));
    const totals = usageTotals(rows);
    return { days, since: since.toISOString(), rows, totals: { ...totals, costUsd: roundCents(totals.costUsd) } };
  }

  return { providersFor, authorize, prepare, respondJson, respondStream, usageReport };
}

/** To a hundredth of a cent: small calls still show a cost, and float noise is gone. */
function roundCents(usd: number): number {
  return Math.round(usd * 10_000) / 10_000;
}

/** The estimated input of a call: its messages and its system prompt, which providers bill as input. */
function promptTokens(plan: ChatPlan): number {
  return estimateInputTokens(plan.system ? [{ content: plan.system }, ...plan.messages] : plan.messages);
}

export type ChatService = ReturnType<typeof createChatService>;
