import type { FastifyInstance } from 'fastify';
import { ZCreateProject, ZProjectParams, ZUpdateProject } from '../../../contracts/projects.ts';
import { parseInput } from '../../lib/validate.ts';
import type { ProjectsService } from './projects.service.ts';

/** Each user's projects (issue 32, docs/decisions/0081): for anyone signed in, each scoped to its owner. */
export async function projectsRoutes(app: FastifyInstance, { projects }: { projects: ProjectsService }): Promise<void> {
  app.addHook('onRequest', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
  const access = { config: { access: 'signedIn' as const } };

  app.get('/api/projects', access, async (request) => projects.list(request.user!.id));

  app.post('/api/projects', access, async (request, reply) => {
    const project = await projects.create(request.user!.id, parseInput(ZCreateProject, request.body));
    reply.code(201);
    return project;
  });

  app.get('/api/projects/:id', access, async (request) => {
    const { id } = parseInput(ZProjectParams, request.params);
    return projects.get(request.user!.id, id);
  });

  app.patch('/api/projects/:id', access, async (request) => {
    const { id } = parseInput(ZProjectParams, request.params);
    return projects.update(request.user!.id, id, parseInput(ZUpdateProject, request.body));
  });

  app.delete('/api/projects/:id', access, async (request, reply) => {
    const { id } = parseInput(ZProjectParams, request.params);
    await projects.remove(request.user!.id, id);
    return reply.status(204).send();
  });
}
