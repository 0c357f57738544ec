import { z } from 'zod';
import { ZEmail } from './auth.ts';

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

/** GET/PUT /api/settings: where alerts are emailed and the user's time zone. */
export type TSettings = { alertEmail: string | null; timeZone: string | null; signInEmail: string };

export const ZUpdateSettings = z
  .object({
    alertEmail: z.union([ZEmail, z.literal('').transform(() => null), z.null()]),
    timeZone: z
      .string()
      .min(1)
      .max(64)
      .refine((zone) => {
        try {
          new Intl.DateTimeFormat('en-US', { timeZone: zone });
          return true;
        } catch {
          return false;
        }
      }, 'must be an IANA time zone such as Europe/Paris')
      .nullable(),
  })
  .strict();
export type TUpdateSettings = z.input<typeof ZUpdateSettings>;
