import { and, count, desc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { TRole } from '../../../contracts/users.ts';
import type { Db } from '../../db/client.ts';
import { chatConversations, shareLinks, users } from '../../db/schema.ts';

type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

export type ShareLinkRow = typeof shareLinks.$inferSelect;
export type ShareLinkListed = ShareLinkRow & { chatId: string };

export async function insertShareLink(db: Tx, row: typeof shareLinks.$inferInsert): Promise<ShareLinkRow> {
  const [inserted] = await db.insert(shareLinks).values(row).returning();
  return inserted!;
}

/** The user's links not revoked, newest first, with their chat's id (the client's). */
export async function listShareLinks(db: Tx, userId: string): Promise<ShareLinkListed[]> {
  const rows = await db
    .select({ link: shareLinks, chatId: chatConversations.chatId })
    .from(shareLinks)
    .innerJoin(chatConversations, eq(chatConversations.id, shareLinks.conversationId))
    .where(and(eq(shareLinks.userId, userId), isNull(shareLinks.revokedAt)))
    .orderBy(desc(shareLinks.createdAt), desc(shareLinks.id));
  return rows.map(({ link, chatId }) => ({ ...link, chatId }));
}

export async function countShareLinks(db: Tx, userId: string): Promise<number> {
  const [row] = await db
    .select({ n: count() })
    .from(shareLinks)
    .where(and(eq(shareLinks.userId, userId), isNull(shareLinks.revokedAt)));
  return row?.n ?? 0;
}

/** Revokes the user's link; false when it is not theirs, unknown or revoked already. */
export async function revokeShareLink(db: Tx, userId: string, id: string, at: Date): Promise<boolean> {
  const rows = await db
    .update(shareLinks)
    .set({ revokedAt: at })
    .where(and(eq(shareLinks.id, id), eq(shareLinks.userId, userId), isNull(shareLinks.revokedAt)))
    .returning({ id: shareLinks.id });
  return rows.length > 0;
}

/**
 * The live link with this token hash, read from the database on every request (no cache: a
 * link revoked in any process is gone at once), counting the view when `view` is set. Live
 * also means its owner's role, as it is now, may share (`roles`): an operator who turns sharing
 * off for a role (CHAT_SHARE_ROLES), or an admin who demotes its owner, takes the links down too.
 */
export async function findLiveShareLink(db: Tx, tokenHash: string, { view, roles }: { view: boolean; roles: readonly TRole[] }): Promise<ShareLinkRow | undefined> {
  if (roles.length === 0) return undefined;
  const mayShare = db.select({ id: users.id }).from(users).where(inArray(users.role, [...roles]));
  const live = and(eq(shareLinks.tokenHash, tokenHash), isNull(shareLinks.revokedAt), inArray(shareLinks.userId, mayShare));
  if (view) {
    const [row] = await db
      .update(shareLinks)
      .set({ views: sql`${shareLinks.views} + 1` })
      .where(live)
      .returning();
    return row;
  }
  const [row] = await db.select().from(shareLinks).where(live).limit(1);
  return row;
}
