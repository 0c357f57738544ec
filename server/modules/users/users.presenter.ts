import type { TUser } from '../../../contracts/users.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import type { UserRow } from './users.repo.ts';

/** The signed-in user as requests carry it: the row without its bookkeeping columns. */
export function toSessionUser(row: UserRow): SessionUser {
  return {
    id: row.id,
    provider: row.provider,
    subject: row.subject,
    email: row.email,
    name: row.name,
    profilePicture: row.profilePicture,
    role: row.role,
    createdAt: row.createdAt,
  };
}

/** The API's view of a user: never the internal identity fields beyond what SPEC shows. */
export function toApiUser(user: SessionUser): TUser {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    profilePicture: user.profilePicture,
    googleId: user.provider === 'google' ? user.subject : null,
    role: user.role,
    createdAt: user.createdAt.toISOString(),
  };
}
