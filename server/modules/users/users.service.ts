import type { TRole } from '../../../contracts/users.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import type { SessionUser } from '../../lib/http/types.ts';
import type { Invalidations } from '../../lib/invalidations.ts';
import { toSessionUser } from './users.presenter.ts';
import { countAdminsForUpdate, findUserById, listUsers, setUserRole } from './users.repo.ts';

export function createUsersService({ db, invalidations }: { db: Db; invalidations: Invalidations }) {
  async function list(): Promise<SessionUser[]> {
    return (await listUsers(db)).map(toSessionUser);
  }

  /** Changes a user's role; the last admin can never be demoted, so the product stays managed. */
  async function changeRole(id: string, role: TRole): Promise<SessionUser> {
    const { user, sent } = await db.transaction(async (tx) => {
      const target = await findUserById(tx, id);
      if (!target) throw new AppError('NOT_FOUND', 'User not found');
      if (target.role === 'admin' && role !== 'admin' && (await countAdminsForUpdate(tx)) <= 1) {
        throw new AppError('CONFLICT', 'Cannot remove the last admin');
      }
      const updated = await setUserRole(tx, id, role);
      // Every process's session cache drops this user's sessions when this commits.
      return { user: toSessionUser(updated!), sent: await invalidations.notify(tx, 'user', id) };
    });
    await sent.delivered();
    return user;
  }

  return { list, changeRole };
}

export type UsersService = ReturnType<typeof createUsersService>;
