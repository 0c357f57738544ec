import { z } from 'zod';

/**
 * Share links (issue 32, docs/decisions/0081): an owner shares a conversation as a read-only
 * snapshot (the branch in view, as it is when shared) at an unguessable URL, `/s/<token>`. Off by
 * default: the chat policy's CHAT_SHARE_ROLES turns it on per role. A revoked link answers 404 at
 * once in every process (looked up on every request, no cache). The page is rendered by the
 * server, has no scripts of the conversation's, and shows images only when the owner included them.
 */
export const SHARE_LIMITS = { linksPerUser: 500 } as const;

/** The token in a share URL: 32 random bytes, base64url (43 characters). */
export const SHARE_TOKEN = /^[A-Za-z0-9_-]{43}$/;
export const ZShareToken = z.string().regex(SHARE_TOKEN, 'Share link not found');
export const ZShareParams = z.object({ token: ZShareToken }).strict();
export const shareUrl = (origin: string, token: string) => `${origin}/s/${token}`;

/** POST /api/chat/conversations/:id/shares. */
export const ZCreateShare = z.object({ includeImages: z.boolean('Include images must be true or false').default(false) }).strict();
export type TCreateShare = z.input<typeof ZCreateShare>;
export const ZShareIdParams = z.object({ id: z.uuid('A share link id must be a UUID') }).strict();

export type TShareLink = {
  id: string;
  conversationId: string;
  /** The conversation's title when shared. */
  title: string;
  url: string;
  includeImages: boolean;
  messages: number;
  createdAt: string;
  /** Views since it was made (the page counts them). */
  views: number;
};
export type TShareLinkList = { links: TShareLink[] };
/** Roles allowed to share (the server's CHAT_SHARE_ROLES; none by default). */
export const SHARE_ROLES_DEFAULT: readonly ('admin' | 'guest')[] = [];
