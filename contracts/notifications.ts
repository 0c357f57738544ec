import { z } from 'zod';
import { NOTIFICATION_KINDS } from './agent-health.ts';
import { ZRunAlert } from './market.ts';
import { ZChannelDelivery } from './channels.ts';
import { ZNotifiedCondition } from './condition-outcomes.ts';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS, type TChatProvider } from './chat.ts';

export const EMAIL_STATUSES = ['none', 'pending', 'sent', 'logged', 'failed'] as const;

/**
 * "Explain alerts" (docs/decisions/0044): a plain-language brief of an alert notification, written
 * by the chat assistant and model its agent chose, from the run's recorded numbers only. It is the
 * assistant's text: shown as plain text everywhere, never as markup.
 */
export const BRIEF_STATUSES = ['pending', 'ready', 'failed'] as const;
export type TBriefStatus = (typeof BRIEF_STATUSES)[number];

export const ZAlertBrief = z.object({
  /** 'pending': being written; 'ready': `text` holds it; 'failed': `error` says why, in one fixed sentence. */
  status: z.enum(BRIEF_STATUSES),
  text: z.string().nullable(),
  /** The assistant (a chat provider id) and model that wrote it, or were asked to. */
  provider: z.string(),
  model: z.string(),
  error: z.string().nullable(),
});
export type TAlertBrief = z.infer<typeof ZAlertBrief>;

/** The longest brief kept: two or three sentences fit many times over; a runaway answer is cut. */
export const BRIEF_MAX_CHARS = 1000;

/**
 * Why a brief was not written: one fixed sentence per kind, the only text about it an owner sees
 * (a provider's own words go to the server log). Provider failures use the chat's sentences
 * (docs/decisions/0012); a missing key the chat's 'API key not configured' text.
 */
export const BRIEF_FAILURES = {
  budget: 'Your daily AI budget is used up, so no brief was written. It resets at 00:00 UTC.',
  'not-allowed': "You may no longer use this assistant, so no brief was written. Choose another in the agent's notifications.",
  'model-unavailable': "This model is no longer offered, so no brief was written. Choose another in the agent's notifications.",
  empty: 'The assistant answered with no text, so there is no brief.',
  interrupted: 'Writing the brief was interrupted (the server stopped), so no brief was written.',
  'queue-failed': 'The brief could not be queued, so none was written.',
  internal: 'The brief could not be written because of an error on our side. The server log has the details.',
} as const satisfies Record<string, string>;
export type TBriefFailure = keyof typeof BRIEF_FAILURES;

/** A brief that did not come within its own timeout (ALERT_BRIEF_TIMEOUT_SECONDS). */
export const briefTimeoutError = (provider: string, seconds: number) => `${providerLabel(provider)} took too long to write the brief (more than ${seconds} s), so no brief was written.`;

const providerLabel = (provider: string) => (CHAT_PROVIDERS.includes(provider as TChatProvider) ? CHAT_PROVIDER_INFO[provider as TChatProvider].label : provider);

/** A model's name as the chat screens show it ('GPT-4o'); a model this version does not list, its id. */
export const briefModelLabel = (provider: string, model: string) =>
  (CHAT_PROVIDERS.includes(provider as TChatProvider) && CHAT_PROVIDER_INFO[provider as TChatProvider].models.find((m) => m.id === model)?.label) || model;

/** 'Brief by GPT (GPT-4o)': who wrote it, wherever a brief is shown (bell, email, channels). */
export const briefAttribution = (brief: Pick<TAlertBrief, 'provider' | 'model'>) => `Brief by ${providerLabel(brief.provider)} (${briefModelLabel(brief.provider, brief.model)})`;

/**
 * One notification as the API answers it (the bell's list and mark-read): one per run with
 * alerts ('alerts', listing each), the agent failing / recovered (docs/decisions/0029), or the
 * one notice of a period whose alerts the agent's cap held back ('alert-storm', listing them;
 * docs/decisions/0041).
 */
export const ZNotification = z.object({
  id: z.string(),
  kind: z.enum(NOTIFICATION_KINDS),
  agentId: z.string().nullable(),
  agentName: z.string(),
  /** The run it is about, for opening it in Run History; null once that run is deleted. */
  runId: z.number().int().nullable(),
  /** The market when every alert is about one, e.g. 'AAPL' or 'BTC/USDT on binance'; else null. */
  market: z.string().nullable(),
  /** The alert's type when there is one alert type; else null. */
  thresholdType: z.string().nullable(),
  /** Every alert the run raised, with its measured value and limit (empty for other kinds and
   * for notifications recorded before issue 15, whose message holds the alert). */
  alerts: z.array(ZRunAlert),
  /** The owner's conditions it tells of (issue 30); empty for other kinds and notifications before them. */
  conditions: z.array(ZNotifiedCondition),
  title: z.string(),
  message: z.string(),
  createdAt: z.string(),
  readAt: z.string().nullable(),
  emailStatus: z.enum(EMAIL_STATUSES),
  /** An 'alert-storm' notice's end of the held period: when the agent notifies again; else null. */
  heldUntil: z.string().nullable(),
  /** Its deliveries to the agent's chosen channels (docs/decisions/0043), oldest first: the
   * notification's own, then the brief's follow-ups (docs/decisions/0044). */
  deliveries: z.array(ZChannelDelivery),
  /** Its brief when the agent explains alerts ('alerts' notifications only); else null. */
  brief: ZAlertBrief.nullable(),
});
export type TNotification = z.infer<typeof ZNotification>;

/** GET /api/notifications: newest first, with the unread count for the bell. */
export const ZNotificationList = z.object({ notifications: z.array(ZNotification), unread: z.number().int() });
export type TNotificationList = z.infer<typeof ZNotificationList>;

export const ZNotificationsQuery = z
  .object({ limit: z.coerce.number().int('Limit must be a whole number').min(1, 'Limit must be at least 1').max(100, 'Limit must be at most 100').default(20) })
  .strict();
export const ZNotificationIdParams = z.object({ id: z.uuid('Notification id must be a UUID') });
