import { z } from 'zod';

export const ROLES = ['admin', 'guest'] as const;
export const ZRole = z.enum(ROLES);
export type TRole = z.infer<typeof ZRole>;

/** The signed-in user as the API returns it. Identity fields come from the session only. */
export const ZUser = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  profilePicture: z.string(),
  /** The identity provider's subject for Google accounts; null for local accounts. */
  googleId: z.string().nullable(),
  role: ZRole,
  createdAt: z.string(),
});
export type TUser = z.infer<typeof ZUser>;

/** PATCH /api/users/:id: an admin changes a user's role. */
export const ZUpdateUserRole = z.object({ role: ZRole }).strict();

export const ZUserIdParams = z.object({ id: z.uuid('User id must be a UUID') });
