import type { FastifyInstance } from 'fastify';
import { ZUpdateUserRole, ZUserIdParams } from '../../../contracts/users.ts';
import { parseInput } from '../../lib/validate.ts';
import { toApiUser } from './users.presenter.ts';
import type { UsersService } from './users.service.ts';

export async function usersRoutes(app: FastifyInstance, { users }: { users: UsersService }): Promise<void> {
  app.get('/api/users', { config: { access: 'admin' } }, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return (await users.list()).map(toApiUser);
  });

  app.patch('/api/users/:id', { config: { access: 'admin' } }, async (request) => {
    const { id } = parseInput(ZUserIdParams, request.params);
    const { role } = parseInput(ZUpdateUserRole, request.body);
    return toApiUser(await users.changeRole(id, role));
  });
}
