import type { FastifyBaseLogger as Logger } from 'fastify';
import { AGENT_TEMPLATES } from '../../../contracts/agents.ts';
import { CHAT_PROVIDER_INFO, type TChatUsage } from '../../../contracts/chat.ts';
import { notUnderstoodMessage, ZConditionDraftRequest, type TConditionDraft } from '../../../contracts/condition-draft.ts';
import { conditionTimeframeProblems } from '../../../contracts/conditions.ts';
import type { TRole } from '../../../contracts/users.ts';
import type { ChatConfig } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { AiCallError, generateStructured, type AiStructuredAnswer } from '../../integrations/ai/index.ts';
import { AppError } from '../../lib/errors.ts';
import { parseInput } from '../../lib/validate.ts';
import { createChatBudget, refusalMessage, type Reservation } from '../chat/budget.ts';
import { mayUse, modelsOf } from '../chat/chat-policy.ts';
import { estimateInputTokens, estimateTextTokens } from '../chat/token-estimate.ts';
import { draftSystemPrompt, draftUserPrompt } from './draft-prompt.ts';
import { conditionFromDraft, DRAFT_SCHEMA_DESCRIPTION, DRAFT_SCHEMA_NAME, draftSchemaFor } from './draft-schema.ts';

/** The most output a draft may take (and CHAT_MAX_OUTPUT_TOKENS, the model's own and the day's budget less): a condition of
 * ten clauses is ~1,000 tokens of JSON, but a reasoning model (o3, DeepSeek R1, Gemini 2.5) spends its thinking from the same limit. */
export const DRAFT_MAX_OUTPUT_TOKENS = 8_192;
/** How much of the words the assistant could not map the answer repeats (its own quote of them). */
const NOT_UNDERSTOOD_MAX = 200;

/** What the route answers: the condition, or a 422 with the plain sentence. */
export type DraftOutcome = { ok: true; draft: TConditionDraft } | { ok: false; message: string; notUnderstood: string | null };

export type DraftService = { draft(user: { id: string; role: TRole }, body: unknown, log: Logger): Promise<DraftOutcome> };

/**
 * "Describe it" (docs/decisions/0075): the owner's words to a condition by one of the hub's
 * assistants, under the same rules as a chat message from them (the role policy, the model list,
 * the key, then the daily budget, reserved before the call and settled after with a `chat_usage`
 * row of purpose 'condition-draft', refusals included, as the chat and alert briefs record
 * them). One structured, non-streaming call. The answer is read as JSON and held to ZCondition:
 * nothing else leaves here. The provider's own words (its errors, a refusal, text that is not
 * JSON) go to the log only.
 */
export function createDraftService({ db, config, now = () => new Date() }: { db: Db; config: ChatConfig; now?: () => Date }): DraftService {
  const budget = createChatBudget({ db, limits: { tokens: config.dailyTokenBudget, images: config.dailyImageBudget }, now });

  async function draft(user: { id: string; role: TRole }, body: unknown, parentLog: Logger): Promise<DraftOutcome> {
    const input = parseInput(ZConditionDraftRequest, body);
    const { provider } = input;
    const label = CHAT_PROVIDER_INFO[provider].label;
    if (!AGENT_TEMPLATES.some((t) => t.id === input.templateId)) throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'templateId', message: 'Unknown template' }]);
    if (!mayUse(config, provider, user.role)) throw new AppError('FORBIDDEN', `${label} needs the admin role`);
    const model = modelsOf(config, provider).find((m) => m.id === input.model && m.image !== true);
    if (!model) throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'model', message: `Unknown model for ${label}: ${input.model}` }]);

    const log = parentLog.child({ provider, model: model.id });
    const system = draftSystemPrompt(input);
    const prompt = draftUserPrompt(input.text);
    const schema = draftSchemaFor(provider);
    // The schema travels with the request (DeepSeek's in the prompt): it counts as input.
    const inputTokens = estimateInputTokens([{ content: system }, { content: prompt }, { content: JSON.stringify(schema) }]);
    const record = budget.usageRecorder({ userId: user.id, provider, model: model.id, purpose: 'condition-draft' });

    if (provider !== 'llama' && config.providers[provider].apiKey === null) {
      const message = `API key not configured: ${CHAT_PROVIDER_INFO[provider].missingKeyMessage}`;
      await record(null, 'rejected', null, 0, 'API key not configured');
      throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'provider', message }]);
    }

    const reserved = await budget.reserve(user.id, { kind: 'text', inputTokens, maxOutputTokens: Math.min(DRAFT_MAX_OUTPUT_TOKENS, config.maxOutputTokens, model.maxOutputTokens ?? Infinity) });
    if ('ok' in reserved) {
      log.info({ reason: reserved.reason, left: reserved.left }, 'condition draft refused: the daily budget');
      await record(null, 'rejected', null, 0, `daily budget: ${reserved.reason.replaceAll('_', ' ')}`);
      const { message, retryAfterSeconds } = refusalMessage(reserved, now());
      throw new AppError('RATE_LIMITED', message, undefined, { retryAfterSeconds });
    }

    const lease = budget.hold(reserved, log);
    let reservation: Reservation | null = reserved;
    const started = performance.now();
    const settle = async (outcome: 'ok' | 'error', usage: TChatUsage | null, error: string | null, estimated = false) => {
      await record(reserved, outcome, usage, performance.now() - started, error, estimated);
      reservation = null;
    };
    try {
      let answer: AiStructuredAnswer;
      try {
        answer = await generateStructured({
          provider,
          settings: config.providers[provider],
          model: model.id,
          system,
          prompt,
          schema,
          schemaName: DRAFT_SCHEMA_NAME,
          schemaDescription: DRAFT_SCHEMA_DESCRIPTION,
          signal: new AbortController().signal,
          timeoutMs: config.timeoutMs,
          maxOutputTokens: reserved.maxOutputTokens ?? undefined,
        });
      } catch (err) {
        if (!(err instanceof AiCallError)) throw err;
        log.warn({ kind: err.kind, cause: err.logCause }, 'condition draft: the provider call failed');
        // Stopped by our timeout, the provider may have worked (and billed): its input counts.
        const timedOut = err.kind === 'timeout';
        await settle('error', timedOut ? { inputTokens, outputTokens: 0 } : null, err.message, timedOut);
        throw new AppError('BAD_GATEWAY', err.message);
      }

      const usage = answer.usage ?? { inputTokens, outputTokens: estimateTextTokens(answer.text) };
      const estimated = answer.usage === null;
      // Settled before it is thrown (`throw await`), so the usage is recorded before `finally` runs.
      const unusable = async (why: string, logged: Record<string, unknown>, message: string): Promise<AppError> => {
        log.warn({ finish: answer.finish, finishReason: answer.rawFinish, ...logged }, `condition draft: ${why}`);
        await settle('error', usage, why, estimated);
        return new AppError('BAD_GATEWAY', message);
      };

      if (answer.refused) {
        log.info({ finish: answer.finish, finishReason: answer.rawFinish, answer: clip(answer.text) }, 'condition draft: the assistant declined');
        await settle('error', usage, 'the assistant declined', estimated);
        return { ok: false, notUnderstood: null, message: `${label} declined to draft a condition from these words. Describe the prices and indicators to watch, and when to be told.` };
      }
      if (answer.finish === 'length') {
        throw await unusable('the answer reached its length limit', {}, `${label}'s answer was cut short at its length limit before the condition was whole. Try again with fewer clauses, or another model.`);
      }
      const notAnswer = `${label} did not answer with a condition that could be read. Try again, or choose another assistant.`;
      let envelope: unknown;
      try {
        envelope = JSON.parse(answer.text);
      } catch {
        throw await unusable('the answer is not JSON', { answer: clip(answer.text) }, notAnswer);
      }
      const { understood, notUnderstood, condition } = (envelope && typeof envelope === 'object' ? envelope : {}) as Record<string, unknown>;
      if (understood === false || (understood !== true && typeof notUnderstood === 'string' && notUnderstood.trim() !== '')) {
        await settle('ok', usage, null, estimated);
        const what = typeof notUnderstood === 'string' ? notUnderstood.trim().slice(0, NOT_UNDERSTOOD_MAX) : '';
        log.info({ notUnderstood: what }, 'condition draft: not understood');
        return what === ''
          ? { ok: false, notUnderstood: null, message: 'I could not map these words to prices or indicators. Describe what to watch with prices, the change, or an indicator.' }
          : { ok: false, notUnderstood: what, message: notUnderstoodMessage(what) };
      }
      const drafted = understood === true ? conditionFromDraft(condition) : ({ ok: false, problems: ['understood is not a boolean'] } as const);
      if (!drafted.ok) throw await unusable('the answer does not fit the condition schema', { problems: drafted.problems.slice(0, 10) }, notAnswer);
      await settle('ok', usage, null, estimated);

      const problems = conditionTimeframeProblems([drafted.condition], input.agentTimeframe);
      if (problems.length > 0) return { ok: false, notUnderstood: null, message: `The drafted condition cannot run on this agent: ${problems[0]!.message}.` };
      return { ok: true, draft: { condition: drafted.condition } };
    } finally {
      lease.stop();
      // Recording failed (the database): the reservation must not outlive the call.
      if (reservation) await budget.release(reservation).catch((err: unknown) => log.error({ err }, 'could not release a condition draft reservation'));
    }
  }

  return { draft };
}

/** The provider's text, shortened for the log. */
const clip = (text: string) => (text.length > 500 ? `${text.slice(0, 500)}…` : text);
