import type { FastifyInstance } from 'fastify';
import { ZDocumentParams, ZPassageParams, ZUploadDocumentQuery } from '../../../contracts/documents.ts';
import { z } from 'zod';
import { parseInput } from '../../lib/validate.ts';
import type { DocumentsService } from './types.ts';

const ZListDocumentsQuery = z.object({ projectId: z.uuid('A project id must be a UUID').optional() }).strict();

/**
 * Documents (issue 32, docs/decisions/0081): upload one (its raw bytes), list, delete, and read a
 * cited passage with the text around it. Any signed-in user, each their own: another user's id is
 * not found.
 */
export async function documentsRoutes(app: FastifyInstance, { documents, maxBytes }: { documents: DocumentsService; maxBytes: number }): Promise<void> {
  const access = { config: { access: 'signedIn' as const } };
  // Scoped to this plugin's routes: elsewhere a body must still be JSON.
  app.addContentTypeParser('application/octet-stream', { parseAs: 'buffer', bodyLimit: maxBytes }, (_request, body, done) => done(null, body));

  app.post('/api/documents', { config: { access: 'signedIn', rawBody: true }, bodyLimit: maxBytes }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { name, projectId } = parseInput(ZUploadDocumentQuery, request.query);
    const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const document = await documents.upload(request.user!, { name, bytes, projectId: projectId ?? null }, request.log);
    reply.code(201);
    return document;
  });

  app.get('/api/documents', access, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { projectId } = parseInput(ZListDocumentsQuery, request.query);
    return { documents: await documents.list(request.user!, projectId ? { projectId } : {}) };
  });

  app.get('/api/documents/passages/:id', access, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { id } = parseInput(ZPassageParams, request.params);
    return documents.passage(request.user!, id);
  });

  app.delete('/api/documents/:id', access, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { id } = parseInput(ZDocumentParams, request.params);
    await documents.remove(request.user!, id);
    return reply.status(204).send();
  });
}
