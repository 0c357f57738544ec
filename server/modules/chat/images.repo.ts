import { and, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { chatImages } from '../../db/schema.ts';

/** Any connection or transaction: repo functions run inside the caller's transaction. */
type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

export type ImageRow = typeof chatImages.$inferSelect;
/** An image without its bytes. */
export type ImageMeta = Omit<ImageRow, 'data'>;

/** Serialises one user's image writes across processes (the storage cap is checked under it). */
const IMAGES_LOCK_CLASS = 72404;

const meta = {
  id: chatImages.id,
  userId: chatImages.userId,
  conversationId: chatImages.conversationId,
  origin: chatImages.origin,
  mediaType: chatImages.mediaType,
  bytes: chatImages.bytes,
  width: chatImages.width,
  height: chatImages.height,
  createdAt: chatImages.createdAt,
};

export async function lockUserImages(tx: Tx, userId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(${IMAGES_LOCK_CLASS}::int, hashtext(${userId}::text))`);
}

/** The bytes the user's images take. */
export async function storedBytes(db: Tx, userId: string): Promise<number> {
  const [row] = await db
    .select({ bytes: sql<number>`coalesce(sum(${chatImages.bytes}), 0)`.mapWith(Number) })
    .from(chatImages)
    .where(eq(chatImages.userId, userId));
  return row?.bytes ?? 0;
}

export async function insertImage(db: Tx, row: typeof chatImages.$inferInsert): Promise<ImageMeta> {
  const [created] = await db.insert(chatImages).values(row).returning(meta);
  return created!;
}

/** The user's image with its bytes, or none. */
export async function findImage(db: Tx, userId: string, id: string): Promise<ImageRow | undefined> {
  const [row] = await db
    .select()
    .from(chatImages)
    .where(and(eq(chatImages.id, id), eq(chatImages.userId, userId)));
  return row;
}

/** The user's images among `ids`, without their bytes (others' and unknown ids are left out). */
export async function imagesMeta(db: Tx, userId: string, ids: readonly string[]): Promise<ImageMeta[]> {
  if (ids.length === 0) return [];
  return db
    .select(meta)
    .from(chatImages)
    .where(and(eq(chatImages.userId, userId), inArray(chatImages.id, [...ids])));
}

/** The user's images among `ids`, with their bytes. */
export async function imagesWithData(db: Tx, userId: string, ids: readonly string[]): Promise<ImageRow[]> {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(chatImages)
    .where(and(eq(chatImages.userId, userId), inArray(chatImages.id, [...ids])));
}

/**
 * Makes the user's images among `ids` part of a conversation: those not yet in one, or already
 * in it. Returns the ids that now are (an id of another user, of another chat or unknown is not).
 */
export async function attachImages(db: Tx, userId: string, conversationId: string, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .update(chatImages)
    .set({ conversationId })
    .where(
      and(
        eq(chatImages.userId, userId),
        inArray(chatImages.id, [...ids]),
        or(isNull(chatImages.conversationId), eq(chatImages.conversationId, conversationId)),
      ),
    )
    .returning({ id: chatImages.id });
  return new Set(rows.map((r) => r.id));
}

/** Deletes the user's image unless a saved chat holds it: 'attached' then, 'missing' when they have none with this id. */
export async function deleteUnsentImage(db: Tx, userId: string, id: string): Promise<'deleted' | 'attached' | 'missing'> {
  const removed = await db
    .delete(chatImages)
    .where(and(eq(chatImages.id, id), eq(chatImages.userId, userId), isNull(chatImages.conversationId)))
    .returning({ id: chatImages.id });
  if (removed.length > 0) return 'deleted';
  const [held] = await db
    .select({ id: chatImages.id })
    .from(chatImages)
    .where(and(eq(chatImages.id, id), eq(chatImages.userId, userId)));
  return held ? 'attached' : 'missing';
}

/** Deletes images never sent in a saved chat that were stored before `before` (one user's, or everyone's). */
export async function purgeUnsentImages(db: Tx, before: Date, userId?: string): Promise<number> {
  const removed = await db
    .delete(chatImages)
    .where(and(isNull(chatImages.conversationId), lt(chatImages.createdAt, before), userId ? eq(chatImages.userId, userId) : undefined))
    .returning({ id: chatImages.id });
  return removed.length;
}
