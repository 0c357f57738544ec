import type { FastifyBaseLogger as Logger } from 'fastify';
import { BRIEF_FAILURES, briefTimeoutError } from '../../../contracts/notifications.ts';
import { CHAT_PROVIDER_INFO, type TChatProvider } from '../../../contracts/chat.ts';
import type { AlertBriefsConfig, ChatConfig } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { AiCallError, generateChat, type AiAnswer } from '../../integrations/ai/index.ts';
import { createChatBudget, type Reservation } from './budget.ts';
import { briefModel, mayUse } from './chat-policy.ts';
import { findUserRole } from './chat.repo.ts';
import { estimateInputTokens, estimateTextTokens } from './token-estimate.ts';

/** A brief is two or three sentences: the provider is told this much at most (and less when
 * CHAT_MAX_OUTPUT_TOKENS, the model or the day's budget leave less). */
export const BRIEF_MAX_OUTPUT_TOKENS = 200;

export type BriefRequest = {
  /** The agent's owner, whose role, budget and usage the brief counts against. */
  userId: string;
  provider: TChatProvider;
  model: string;
  system: string;
  prompt: string;
  /** For the log lines: which notification it is for. */
  notificationId: string;
};

/** The assistant's answer as it came (the caller trims and bounds it), or our one sentence why not. */
export type BriefOutcome = { ok: true; text: string } | { ok: false; error: string };

/**
 * A brief its assistant did not finish says so at its end, so it never reads as whole; one it
 * ended before any text says why none was written (DESIGN section 11; docs/decisions/0061).
 */
export const BRIEF_ENDINGS = {
  length: { cut: '… (cut short: the brief reached its length limit)', empty: 'The assistant used the whole length of a brief thinking and wrote none. A model that does not reason first suits briefs better.' },
  'content-filter': { cut: '… (cut short by the assistant’s content filter)', empty: 'The assistant’s content filter stopped the brief before any text, so none was written.' },
  other: { cut: '… (cut short: the assistant ended it early)', empty: null },
} as const;

/** The brief as its assistant ended it: whole, cut (said at its end), or not written (why). */
export function briefOf(answer: Pick<AiAnswer, 'text' | 'finish'>): BriefOutcome {
  if (answer.finish === 'complete') return { ok: true, text: answer.text };
  const ending = BRIEF_ENDINGS[answer.finish];
  if (answer.text.trim() !== '') return { ok: true, text: `${answer.text.trimEnd()}${ending.cut}` };
  // Empty for a reason of its own: the caller's own sentence for an empty answer.
  return ending.empty ? { ok: false, error: ending.empty } : { ok: true, text: '' };
}

export type AlertBriefWriter = { write(request: BriefRequest): Promise<BriefOutcome> };

export type AlertBriefWriterDeps = {
  db: Db;
  config: ChatConfig;
  briefs: Pick<AlertBriefsConfig, 'timeoutSeconds'>;
  logger: Logger;
  now?: () => Date;
};

/**
 * Writes an alert's brief with the owner's chosen assistant (docs/decisions/0044), under the same
 * rules as a chat message from them, checked again now: the role policy (a demoted owner gets a
 * failed brief, not a call), the model list, the key, then the daily budget, reserved before the
 * call and settled after with a `chat_usage` row of purpose 'alert-brief' (refusals included, as
 * the chat records them). One non-streaming call with its own timeout and a small output cap.
 * Never throws for a provider's trouble: the outcome says it in our words, the log in theirs.
 */
export function createAlertBriefWriter({ db, config, briefs, logger, now = () => new Date() }: AlertBriefWriterDeps): AlertBriefWriter {
  const budget = createChatBudget({ db, limits: { tokens: config.dailyTokenBudget, images: config.dailyImageBudget }, now });
  const timeoutMs = briefs.timeoutSeconds * 1000;

  async function write(request: BriefRequest): Promise<BriefOutcome> {
    const { userId, provider, notificationId } = request;
    const log = logger.child({ notificationId, provider, model: request.model });
    const role = await findUserRole(db, userId);
    if (role === null || !mayUse(config, provider, role)) {
      log.info('alert brief not written: the owner may not use this assistant');
      return { ok: false, error: BRIEF_FAILURES['not-allowed'] };
    }
    const model = briefModel(config, request);
    if (!model) {
      log.info('alert brief not written: the model is not offered');
      return { ok: false, error: BRIEF_FAILURES['model-unavailable'] };
    }
    const messages = [{ role: 'user' as const, content: request.prompt }];
    const inputTokens = estimateInputTokens([{ content: request.system }, ...messages]);
    const record = budget.usageRecorder({ userId, provider, model: model.id, purpose: 'alert-brief' });

    if (provider !== 'llama' && config.providers[provider].apiKey === null) {
      await record(null, 'rejected', null, 0, 'API key not configured');
      return { ok: false, error: `API key not configured: ${CHAT_PROVIDER_INFO[provider].missingKeyMessage}` };
    }

    const reserved = await budget.reserve(userId, { kind: 'text', inputTokens, maxOutputTokens: Math.min(BRIEF_MAX_OUTPUT_TOKENS, config.maxOutputTokens, model.maxOutputTokens ?? Infinity) });
    if ('ok' in reserved) {
      log.info({ reason: reserved.reason, left: reserved.left }, 'alert brief not written: the daily budget refused it');
      await record(null, 'rejected', null, 0, `daily budget: ${reserved.reason.replaceAll('_', ' ')}`);
      return { ok: false, error: BRIEF_FAILURES.budget };
    }

    const lease = budget.hold(reserved, log);
    let reservation: Reservation | null = reserved;
    const started = performance.now();
    try {
      let answer: AiAnswer;
      try {
        answer = await generateChat({
          provider,
          settings: config.providers[provider],
          model: model.id,
          system: request.system,
          messages,
          signal: new AbortController().signal,
          timeoutMs,
          maxOutputTokens: reserved.maxOutputTokens ?? undefined,
        });
      } catch (err) {
        const failure = err instanceof AiCallError ? err : null;
        if (failure) log.warn({ kind: failure.kind, cause: failure.logCause }, 'alert brief: the provider call failed');
        else log.error({ err }, 'alert brief failed unexpectedly');
        const timedOut = failure?.kind === 'timeout';
        const error = timedOut ? briefTimeoutError(provider, briefs.timeoutSeconds) : (failure?.message ?? BRIEF_FAILURES.internal);
        // Stopped by our timeout, the provider may have worked (and billed): its input counts.
        const usage = timedOut ? { inputTokens, outputTokens: 0 } : null;
        await record(reserved, 'error', usage, performance.now() - started, error, timedOut);
        reservation = null;
        return { ok: false, error };
      }
      const usage = answer.usage ?? { inputTokens, outputTokens: estimateTextTokens(answer.text) };
      await record(reserved, 'ok', usage, performance.now() - started, null, answer.usage === null);
      reservation = null;
      if (answer.finish !== 'complete') log.info({ finish: answer.finish, finishReason: answer.rawFinish }, 'alert brief: the assistant did not finish it');
      return briefOf(answer);
    } finally {
      lease.stop();
      // Recording failed (the database): the reservation must not outlive the call.
      if (reservation) await budget.release(reservation).catch((err: unknown) => log.error({ err }, 'could not release an alert brief reservation'));
    }
  }

  return { write };
}
