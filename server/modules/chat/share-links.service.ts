import { createHash, createHmac, randomUUID } from 'node:crypto';
import { branchOf } from '../../../contracts/chat-history.ts';
import type { TChatFinish, TChatProvider } from '../../../contracts/chat.ts';
import type { TCitation } from '../../../contracts/documents.ts';
import { SHARE_LIMITS, SHARE_TOKEN, shareUrl, type TCreateShare, type TShareLink, type TShareLinkList } from '../../../contracts/share-links.ts';
import type { TRole } from '../../../contracts/users.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import { findConversation } from './conversations.repo.ts';
import type { ConversationsService } from './conversations.service.ts';
import type { ImagesService } from './images.service.ts';
import { countShareLinks, findLiveShareLink, insertShareLink, listShareLinks, revokeShareLink, type ShareLinkRow } from './share-links.repo.ts';

/** One message of a shared snapshot: what the page shows, copied when shared. */
export type SharedMessage = {
  role: 'user' | 'assistant';
  content: string;
  model?: string;
  note?: string;
  finish?: TChatFinish;
  /** Only when the owner included images. */
  imageIds?: string[];
  citations?: TCitation[];
};

export type SharedConversation = { title: string; provider: TChatProvider; createdAt: Date; includeImages: boolean; messages: SharedMessage[] };

export const SHARING_OFF = 'Sharing chats is off for your role: an admin can turn it on (CHAT_SHARE_ROLES).';
const NOT_FOUND = 'Share link not found';

export type ShareLinksDeps = {
  db: Db;
  conversations: Pick<ConversationsService, 'get'>;
  images: Pick<ImagesService, 'read'>;
  /** Roles that may share (CHAT_SHARE_ROLES). */
  shareRoles: readonly TRole[];
  /** The links' origin (PUBLIC_URL's). */
  publicOrigin: string;
  /** What a link's token is derived from (the session secret): see tokenOf. */
  secret: string;
  now?: () => Date;
};

/**
 * Share links (issue 32, docs/decisions/0081, 0086): a read-only snapshot of the branch in view
 * at `/s/<token>`. The token is an HMAC of the link's id under the server's secret, so the
 * database holds only its SHA-256 (a leaked table opens no link) while the owner's list can
 * still show each link's URL. Every page view reads the link from the database: a revoked link
 * is 404 at once in every process.
 */
export function createShareLinksService({ db, conversations, images, shareRoles, publicOrigin, secret, now = () => new Date() }: ShareLinksDeps) {
  const tokenOf = (id: string) => createHmac('sha256', secret).update(`share-link:${id}`).digest('base64url');
  const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

  function toLink(row: ShareLinkRow, chatId: string): TShareLink {
    return {
      id: row.id,
      conversationId: chatId,
      title: row.title,
      url: shareUrl(publicOrigin, tokenOf(row.id)),
      includeImages: row.includeImages,
      messages: row.snapshot.length,
      createdAt: row.createdAt.toISOString(),
      views: row.views,
    };
  }

  function mayShare(role: TRole): boolean {
    return shareRoles.includes(role);
  }

  async function create(user: { id: string; role: TRole }, chatId: string, input: Required<TCreateShare>): Promise<TShareLink> {
    if (!mayShare(user.role)) throw new AppError('FORBIDDEN', SHARING_OFF);
    const conversation = await conversations.get(user.id, chatId);
    const stored = await findConversation(db, user.id, chatId);
    if (!stored) throw new AppError('NOT_FOUND', 'Chat not found');
    if ((await countShareLinks(db, user.id)) >= SHARE_LIMITS.linksPerUser) {
      throw new AppError('CONFLICT', `You have ${SHARE_LIMITS.linksPerUser} share links: revoke one before sharing another chat.`);
    }
    // The branch in view as it is now; an answer still being written is left out.
    const messages: SharedMessage[] = branchOf(conversation.messages, conversation.leafId)
      .map(({ message }) => message)
      .filter((m) => !m.streaming)
      .map((m) => ({
        role: m.role,
        content: m.content,
        ...(m.model ? { model: m.model } : {}),
        ...(m.note ? { note: m.note } : {}),
        ...(m.finish ? { finish: m.finish } : {}),
        ...(input.includeImages && m.images?.length ? { imageIds: [...m.images] } : {}),
        ...(m.citations?.length ? { citations: m.citations } : {}),
      }));
    if (messages.length === 0) throw new AppError('BAD_REQUEST', 'This chat has no messages to share yet.');
    const id = randomUUID();
    const row = await insertShareLink(db, {
      id,
      userId: user.id,
      conversationId: stored.id,
      tokenHash: hashOf(tokenOf(id)),
      title: conversation.title,
      provider: conversation.provider,
      includeImages: input.includeImages,
      snapshot: messages,
      createdAt: now(),
    });
    return toLink(row, chatId);
  }

  async function list(userId: string): Promise<TShareLinkList> {
    return { links: (await listShareLinks(db, userId)).map((row) => toLink(row, row.chatId)) };
  }

  async function revoke(userId: string, id: string): Promise<void> {
    if (!(await revokeShareLink(db, userId, id, now()))) throw new AppError('NOT_FOUND', NOT_FOUND);
  }

  /** The live link a token opens, or null (unknown, malformed, revoked). */
  async function open(token: string, { view }: { view: boolean }): Promise<ShareLinkRow | null> {
    if (!SHARE_TOKEN.test(token)) return null;
    return (await findLiveShareLink(db, hashOf(token), { view, roles: shareRoles })) ?? null;
  }

  /** The shared page's content, counting the view; null when the link is not live. */
  async function page(token: string): Promise<SharedConversation | null> {
    const row = await open(token, { view: true });
    if (!row) return null;
    return { title: row.title, provider: row.provider, createdAt: row.createdAt, includeImages: row.includeImages, messages: row.snapshot as SharedMessage[] };
  }

  /** An image of a shared snapshot: only a live link that included images, only an image its snapshot names. */
  async function image(token: string, imageId: string) {
    const row = await open(token, { view: false });
    if (!row || !row.includeImages) return null;
    const named = (row.snapshot as SharedMessage[]).some((m) => m.imageIds?.includes(imageId));
    if (!named) return null;
    try {
      return await images.read(row.userId, imageId);
    } catch (err) {
      if (err instanceof AppError && err.code === 'NOT_FOUND') return null;
      throw err;
    }
  }

  return { mayShare, create, list, revoke, page, image };
}

export type ShareLinksService = ReturnType<typeof createShareLinksService>;
