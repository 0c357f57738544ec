import { z } from 'zod';
import { CHAT_PROVIDERS } from './chat.ts';
import { DESCRIBE_TEXT_MAX, type TCondition } from './conditions.ts';
import { CANDLE_TIMEFRAMES } from './market.ts';

/**
 * "Describe it" (issue 30 item 5, docs/decisions/0075): the owner's plain words, turned into a
 * condition by one of the hub's assistants with its structured output, checked by ZCondition.
 * Nothing is saved: the builder shows the draft for review.
 */

/** POST /api/agents/conditions/draft. */
export const ZConditionDraftRequest = z
  .object({
    text: z
      .string('Describe the condition in words')
      .trim()
      .min(1, 'Describe the condition in words')
      .max(DESCRIBE_TEXT_MAX, `The description must be at most ${DESCRIBE_TEXT_MAX} characters`),
    provider: z.enum(CHAT_PROVIDERS, `Assistant must be one of ${CHAT_PROVIDERS.join(', ')}`),
    model: z.string('Choose a model').min(1, 'Choose a model').max(100, 'Model must be at most 100 characters'),
    agentTimeframe: z.enum(CANDLE_TIMEFRAMES, `The agent's timeframe must be one of ${CANDLE_TIMEFRAMES.join(', ')}`),
    templateId: z.string('Choose a template').min(1, 'Choose a template').max(100, 'Template must be at most 100 characters'),
  })
  .strict();
export type TConditionDraftRequest = z.infer<typeof ZConditionDraftRequest>;

/** 200: a condition that parses with ZCondition, with a fresh id and (unless the words said otherwise) the default trigger. */
export type TConditionDraft = { condition: TCondition };

/**
 * 422: the assistant could not map part of the words (`notUnderstood`, as it named it) or
 * declined the text (`notUnderstood` null); `message` is the plain sentence to show. The
 * builder stays as it was.
 */
export type TConditionDraftNotUnderstood = { error: 'Not understood'; message: string; notUnderstood: string | null };

/** The plain sentence for words the assistant could not map. */
export const notUnderstoodMessage = (what: string) => `I could not map '${what}' to a price or an indicator. Describe it with prices (open, high, low, close, volume), the change, or an indicator.`;
