import type { FastifyInstance } from 'fastify';
import { ZConversationParams } from '../../../contracts/chat-history.ts';
import { ZImageIdParams } from '../../../contracts/chat.ts';
import { ZCreateShare, ZShareIdParams } from '../../../contracts/share-links.ts';
import { parseInput } from '../../lib/validate.ts';
import type { ShareLinksService } from './share-links.service.ts';
import { renderShareNotFound, renderSharePage, SHARE_PAGE_CSP } from './share-page.ts';

/** What every answer of a shared page carries: never cached anywhere (a revoked link must stop
 * at once), never indexed, the token never sent on as a referrer. */
const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex, nofollow',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

/**
 * Share links (issue 32): the owner's API (make, list, revoke) and the shared page, rendered by
 * the server at /s/<token> with no script, and its images.
 */
export async function shareLinksRoutes(app: FastifyInstance, { shares, siteName }: { shares: ShareLinksService; siteName: string }): Promise<void> {
  const access = { config: { access: 'signedIn' as const } };

  app.post('/api/chat/conversations/:id/shares', access, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { id } = parseInput(ZConversationParams, request.params);
    const input = parseInput(ZCreateShare, request.body ?? {});
    const link = await shares.create(request.user!, id, input);
    return reply.status(201).send(link);
  });

  app.get('/api/chat/shares', access, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    return shares.list(request.user!.id);
  });

  app.delete('/api/chat/shares/:id', access, async (request, reply) => {
    const { id } = parseInput(ZShareIdParams, request.params);
    await shares.revoke(request.user!.id, id);
    return reply.header('cache-control', 'no-store').status(204).send();
  });

  // Not under /api: a page for anyone with the link, signed in or not; no session is read.
  app.get('/s/:token', async (request, reply) => {
    const { token } = request.params as { token: string };
    const shared = await shares.page(token);
    reply.headers(PAGE_HEADERS).header('content-security-policy', SHARE_PAGE_CSP).type('text/html; charset=utf-8');
    if (!shared) return reply.status(404).send(renderShareNotFound(siteName));
    return reply.send(renderSharePage(shared, { siteName, imageUrl: (imageId) => `/s/${encodeURIComponent(token)}/images/${encodeURIComponent(imageId)}` }));
  });

  app.get('/s/:token/images/:id', async (request, reply) => {
    const { token, id } = request.params as { token: string; id: string };
    const parsed = ZImageIdParams.safeParse({ id });
    const image = parsed.success ? await shares.image(token, parsed.data.id) : null;
    reply.headers(PAGE_HEADERS);
    if (!image) return reply.status(404).type('text/plain; charset=utf-8').send('Not found');
    // As the chat's own image route: the type read from the bytes, shown, never run.
    return reply.header('content-type', image.mediaType).header('content-security-policy', "default-src 'none'; sandbox").send(image.data);
  });
}
