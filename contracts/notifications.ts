import { z } from 'zod';

export const EMAIL_STATUSES = ['none', 'pending', 'sent', 'logged', 'failed'] as const;

/** One notification as the API answers it (the bell's list and mark-read). */
export const ZNotification = z.object({
  id: z.string(),
  agentId: z.string().nullable(),
  agentName: z.string(),
  /** The market the alert is about, e.g. 'AAPL' or 'BTC/USDT on binance'. */
  market: z.string(),
  thresholdType: z.string(),
  title: z.string(),
  message: z.string(),
  createdAt: z.string(),
  readAt: z.string().nullable(),
  emailStatus: z.enum(EMAIL_STATUSES),
});
export type TNotification = z.infer<typeof ZNotification>;

/** GET /api/notifications: newest first, with the unread count for the bell. */
export const ZNotificationList = z.object({ notifications: z.array(ZNotification), unread: z.number().int() });
export type TNotificationList = z.infer<typeof ZNotificationList>;

export const ZNotificationsQuery = z
  .object({ limit: z.coerce.number().int('limit must be a whole number').min(1, 'limit must be at least 1').max(100, 'limit must be at most 100').default(20) })
  .strict();
export const ZNotificationIdParams = z.object({ id: z.uuid('Notification id must be a UUID') });
