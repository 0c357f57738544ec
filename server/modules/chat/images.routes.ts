import type { FastifyInstance } from 'fastify';
import { ZImageIdParams, ZUploadImage } from '../../../contracts/chat.ts';
import { parseInput } from '../../lib/validate.ts';
import type { ImagesService } from './images.service.ts';

/** Base64 of a 5 MB image and the JSON around it: the one route whose body may pass 1 MB. */
export const IMAGE_UPLOAD_BODY_LIMIT = 7 * 1024 * 1024 + 16 * 1024;

/**
 * Chat images (docs/decisions/0055): upload one (JSON, its bytes in base64), read one, delete an
 * upload not yet sent. Each user's own: another user's id is not found.
 */
export async function imagesRoutes(app: FastifyInstance, { images }: { images: ImagesService }): Promise<void> {
  const access = { config: { access: 'signedIn' as const } };

  app.post('/api/chat/images', { ...access, bodyLimit: IMAGE_UPLOAD_BODY_LIMIT }, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const image = await images.upload(request.user!.id, parseInput(ZUploadImage, request.body));
    reply.code(201);
    return image;
  });

  app.get('/api/chat/images/:id', access, async (request, reply) => {
    const { id } = parseInput(ZImageIdParams, request.params);
    const image = await images.read(request.user!.id, id);
    const extension = image.mediaType.slice('image/'.length).replace('jpeg', 'jpg');
    // The type read from the bytes, never guessed by the browser; shown, never run; kept by this
    // browser only (the image is one user's, and a deleted chat's should not linger in shared caches).
    reply.header('content-type', image.mediaType);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('content-disposition', `inline; filename="image-${image.id}.${extension}"`);
    reply.header('cache-control', 'private, max-age=86400');
    reply.header('content-security-policy', "default-src 'none'; sandbox");
    return reply.send(image.data);
  });

  app.delete('/api/chat/images/:id', access, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    const { id } = parseInput(ZImageIdParams, request.params);
    await images.remove(request.user!.id, id);
    return reply.status(204).send();
  });
}
