import { z } from 'zod';

export type TNotification = {
  id: string;
  agentId: string | null;
  agentName: string;
  /** The market the alert is about, e.g. 'AAPL' or 'BTC/USDT on binance'. */
  market: string;
  thresholdType: string;
  title: string;
  message: string;
  createdAt: string;
  readAt: string | null;
  emailStatus: 'none' | 'pending' | 'sent' | 'logged' | 'failed';
};

/** GET /api/notifications: newest first, with the unread count for the bell. */
export type TNotificationList = { notifications: TNotification[]; unread: number };

export const ZNotificationsQuery = z
  .object({ limit: z.coerce.number().int('limit must be a whole number').min(1, 'limit must be at least 1').max(100, 'limit must be at most 100').default(20) })
  .strict();
export const ZNotificationIdParams = z.object({ id: z.uuid('Notification id must be a UUID') });
