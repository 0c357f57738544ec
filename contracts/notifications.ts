import { z } from 'zod';
import { ZEmail } from './auth.ts';

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

/** GET/PUT /api/settings: where alerts are emailed and the user's time zone. */
export type TSettings = { alertEmail: string | null; timeZone: string | null; signInEmail: string };

export const ZUpdateSettings = z
  .object({
    // zod reports a failed union as 'Invalid input'; name the email rule that failed instead.
    alertEmail: z.union([ZEmail, z.literal('').transform(() => null), z.null()], {
      error: (issue) =>
        issue.code === 'invalid_union'
          ? (issue.errors.flat().find((i) => i.code !== 'invalid_type' && i.code !== 'invalid_value')?.message ??
            'Enter an email address, or leave it empty to use your sign-in email')
          : undefined,
    }),
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
