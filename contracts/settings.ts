import { z } from 'zod';
import { ZEmail } from './auth.ts';

const TIME_ZONE_RULE = 'Time zone must be an IANA time zone such as Europe/Paris';

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
      .min(1, TIME_ZONE_RULE)
      .max(64, 'Time zone must be at most 64 characters')
      .refine((zone) => {
        try {
          new Intl.DateTimeFormat('en-US', { timeZone: zone });
          return true;
        } catch {
          return false;
        }
      }, TIME_ZONE_RULE)
      .nullable(),
  })
  .strict();
export type TUpdateSettings = z.input<typeof ZUpdateSettings>;
