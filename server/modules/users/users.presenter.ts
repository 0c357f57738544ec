import type { TUser } from '../../../contracts/users.ts';
import type { SessionUser } from '../../lib/http/types.ts';

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
