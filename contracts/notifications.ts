import { z } from 'zod';
import { NOTIFICATION_KINDS } from './agent-health.ts';
import { ZRunAlert } from './market.ts';
import { ZChannelDelivery } from './channels.ts';

export const EMAIL_STATUSES = ['none', 'pending', 'sent', 'logged', 'failed'] as const;

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
  title: z.string(),
  message: z.string(),
  createdAt: z.string(),
  readAt: z.string().nullable(),
  emailStatus: z.enum(EMAIL_STATUSES),
  /** An 'alert-storm' notice's end of the held period: when the agent notifies again; else null. */
  heldUntil: z.string().nullable(),
  /** Its deliveries to the agent's chosen channels (docs/decisions/0043), oldest first. */
  deliveries: z.array(ZChannelDelivery),
});
export type TNotification = z.infer<typeof ZNotification>;

/** GET /api/notifications: newest first, with the unread count for the bell. */
export const ZNotificationList = z.object({ notifications: z.array(ZNotification), unread: z.number().int() });
export type TNotificationList = z.infer<typeof ZNotificationList>;

export const ZNotificationsQuery = z
  .object({ limit: z.coerce.number().int('limit must be a whole number').min(1, 'limit must be at least 1').max(100, 'limit must be at most 100').default(20) })
  .strict();
export const ZNotificationIdParams = z.object({ id: z.uuid('Notification id must be a UUID') });
