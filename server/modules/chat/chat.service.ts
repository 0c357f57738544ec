import type { FastifyBaseLogger } from 'fastify';
import {
  CHAT_PROVIDER_INFO,
  CHAT_PROVIDERS,
  ZChatRequest,
  estimateCostUsd,
  type TChatModel,
  type TChatProvider,
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
  generateChat,
  generateChatImage,
  streamChat,
  type AiAnswer,
  type AiCall,
  type AiChatMessage,
  type AiFailureKind,
} from '../../integrations/ai/index.ts';
import { AppError } from '../../lib/errors.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import { parseInput } from '../../lib/validate.ts';
import { insertChatUsage, tokensSpentSince, usageByUserAndModel } from './chat.repo.ts';
import { createRateWindow } from '../../lib/rate-window.ts';

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
  log: FastifyBaseLogger;
};

/** Writes one event to the client; resolves when it may take more (backpressure). */
export type ChatEventSink = (event: TChatStreamEvent) => Promise<void>;

type Outcome = 'ok' | 'error' | 'aborted' | 'rejected';

/** Providers bill roughly 4 characters per token; used only when a call ends before it reports usage. */
const estimateTokens = (chars: number) => Math.ceil(chars / 4);

export function startOfUtcDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}

export function createChatService({ db, config, now = () => new Date() }: ChatServiceDeps) {
  const rateWindow = createRateWindow(config.rateLimitPerMinute);

  function modelsOf(provider: TChatProvider): TChatModel[] {
    if (provider !== 'llama') return [...CHAT_PROVIDER_INFO[provider].models];
    return config.ollamaModels.map((id) => CHAT_PROVIDER_INFO.llama.models.find((m) => m.id === id) ?? { id, label: id });
  }

  function mayUse(provider: TChatProvider, user: SessionUser): boolean {
    return config.access[provider] === 'signedIn' || user.role === 'admin';
  }

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

  /**
   * Every rule before a provider is called, cheapest first: role policy (403), body and model
   * (400), per-user rate (429), then the key and the daily budget. Nothing is recorded for a
   * request refused before the rate check; budget refusals are recorded as 'rejected' so the
   * admin report shows them.
   */
  async function prepare(provider: TChatProvider, user: SessionUser, body: unknown, log: FastifyBaseLogger): Promise<ChatPlan> {
    const info = CHAT_PROVIDER_INFO[provider];
    if (!mayUse(provider, user)) throw new AppError('FORBIDDEN', `${info.label} chat needs the admin role`);
    const input = parseInput(ZChatRequest, body);
    const model = modelsOf(provider).find((m) => m.id === input.model);
    if (!model) {
      throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'model', message: `Unknown model for ${info.label}: ${input.model}` }]);
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
      log,
    };
    if (!plan.missingKey) await checkBudget(plan, at);
    return plan;
  }

  async function checkBudget(plan: ChatPlan, at: Date): Promise<void> {
    const budget = config.dailyTokenBudget;
    if (budget === 0) return;
    const spent = await tokensSpentSince(db, plan.user.id, startOfUtcDay(at));
    if (spent < budget) return;
    const resetAt = startOfUtcDay(at).getTime() + 86_400_000;
    const minutes = Math.max(1, Math.ceil((resetAt - at.getTime()) / 60_000));
    await record(plan, 'rejected', null, 0, 'daily token budget used up');
    throw new AppError(
      'RATE_LIMITED',
      `Your daily AI budget of ${budget.toLocaleString('en-US')} tokens is used up. It resets at 00:00 UTC (in ${Math.floor(minutes / 60)} h ${minutes % 60} min).`,
      undefined,
      { retryAfterSeconds: Math.ceil((resetAt - at.getTime()) / 1000) },
    );
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
    };
  }

  /** The SPEC's JSON answer. Provider failures answer `error: true` with a clear message. */
  async function respondJson(plan: ChatPlan, signal: AbortSignal): Promise<TChatResponse> {
    if (plan.missingKey) {
      await record(plan, 'rejected', null, 0, 'API key not configured');
      return { error: true, message: missingKeyMessage(plan.provider), choices: [], model: plan.model };
    }
    const started = performance.now();
    let answer: AiAnswer;
    try {
      answer = plan.image ? await generateChatImage(call(plan, signal)) : await generateChat(call(plan, signal));
    } catch (err) {
      const failure = await recordFailure(plan, err, '', null, started);
      return { error: true, message: failure.message, choices: [], model: plan.model };
    }
    const usage = await recordSuccess(plan, answer, started);
    return {
      error: false,
      choices: [{ message: { role: 'assistant', content: answer.text } }],
      model: plan.model,
      usage,
      ...(answer.images ? { images: answer.images } : {}),
    };
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
      const failure = await recordFailure(plan, err, partial, usage, started);
      // After a client abort nobody is listening; the sink skips the write.
      return send({ event: 'error', data: { message: failure.message, partial: partial.length > 0 } });
    }
    const usage = await recordSuccess(plan, answer, started);
    await send({ event: 'done', data: { model: plan.model, usage, ...(answer.images ? { images: answer.images } : {}) } });
  }

  async function recordSuccess(plan: ChatPlan, answer: AiAnswer, started: number): Promise<TChatUsage> {
    // A provider that reports no usage (images, some compatible servers) is estimated for text.
    const usage = answer.usage ?? (plan.image ? { inputTokens: 0, outputTokens: 0 } : estimateUsage(plan, answer.text));
    await record(plan, 'ok', usage, performance.now() - started, null);
    return usage;
  }

  function estimateUsage(plan: ChatPlan, output: string): TChatUsage {
    return {
      inputTokens: estimateTokens(plan.messages.reduce((n, m) => n + m.content.length, 0)),
      outputTokens: estimateTokens(output.length),
    };
  }

  /**
   * Records a failed call and logs its cause (status and provider text, never keys). Tokens:
   * what the provider reported, else an estimate when it may have billed (it produced text, or
   * we stopped it while it was working), else none (it refused: 401, 429, 5xx).
   */
  async function recordFailure(plan: ChatPlan, err: unknown, partial: string, usage: TChatUsage | null, started: number): Promise<AiCallError> {
    const failure =
      err instanceof AiCallError ? err : new AiCallError('failed', `${CHAT_PROVIDER_INFO[plan.provider].label} could not answer this request`, { message: String(err) });
    const stoppedByUs: AiFailureKind[] = ['aborted', 'timeout'];
    const tokens =
      usage ?? (partial.length > 0 || stoppedByUs.includes(failure.kind) ? estimateUsage(plan, partial) : { inputTokens: 0, outputTokens: 0 });
    const outcome: Outcome = failure.kind === 'aborted' ? 'aborted' : 'error';
    if (failure.kind === 'aborted') plan.log.info({ provider: plan.provider, model: plan.model }, 'chat aborted by the client');
    else plan.log.warn({ provider: plan.provider, model: plan.model, kind: failure.kind, cause: failure.logCause }, 'chat provider call failed');
    if (!(err instanceof AiCallError)) plan.log.error({ err }, 'chat failed unexpectedly');
    await record(plan, outcome, tokens, performance.now() - started, failure.kind === 'aborted' ? null : failure.message);
    return failure;
  }

  async function record(plan: ChatPlan, outcome: Outcome, usage: TChatUsage | null, durationMs: number, error: string | null): Promise<void> {
    await insertChatUsage(db, {
      userId: plan.user.id,
      provider: plan.provider,
      model: plan.model,
      inputTokens: usage?.inputTokens ?? 0,
      outputTokens: usage?.outputTokens ?? 0,
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
      requests: r.requests,
      failed: r.failed,
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      costUsd: roundCents(estimateCostUsd(r.model, { inputTokens: r.inputTokens, outputTokens: r.outputTokens })),
    }));
    const totals = rows.reduce(
      (t, r) => ({ requests: t.requests + r.requests, inputTokens: t.inputTokens + r.inputTokens, outputTokens: t.outputTokens + r.outputTokens, costUsd: t.costUsd + r.costUsd }),
      { requests: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
    );
    return { days, since: since.toISOString(), rows, totals: { ...totals, costUsd: roundCents(totals.costUsd) } };
  }

  return { providersFor, prepare, respondJson, respondStream, usageReport };
}

/** To a hundredth of a cent: small calls still show a cost, and float noise is gone. */
function roundCents(usd: number): number {
  return Math.round(usd * 10_000) / 10_000;
}

export type ChatService = ReturnType<typeof createChatService>;
