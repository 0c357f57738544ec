import { and, asc, count, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import type { TDeliveryEvent, TDeliveryStatus } from '../../../contracts/channels.ts';
import type { Db } from '../../db/client.ts';
import { retryOnDeadlock } from '../../lib/db-errors.ts';
import { agents, channelDeliveries, channels, notifications } from '../../db/schema.ts';

export type ChannelRow = typeof channels.$inferSelect;
export type DeliveryRow = typeof channelDeliveries.$inferSelect;
type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete'>;

export async function listChannels(db: Tx, userId: string): Promise<ChannelRow[]> {
  return db.select().from(channels).where(eq(channels.userId, userId)).orderBy(asc(channels.createdAt), asc(channels.id));
}

export async function countChannels(db: Tx, userId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(channels).where(eq(channels.userId, userId));
  return row?.n ?? 0;
}

export async function findChannel(db: Tx, userId: string, id: string): Promise<ChannelRow | undefined> {
  const [row] = await db.select().from(channels).where(and(eq(channels.id, id), eq(channels.userId, userId)));
  return row;
}

/** The ids among `ids` that are the user's channels. */
export async function ownedChannelIds(db: Tx, userId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.select({ id: channels.id }).from(channels).where(and(eq(channels.userId, userId), inArray(channels.id, [...ids])));
  return rows.map((r) => r.id);
}

export async function insertChannel(db: Tx, row: typeof channels.$inferInsert): Promise<ChannelRow> {
  const [created] = await db.insert(channels).values(row).returning();
  return created!;
}

/**
 * Deletes the user's channel and takes it out of their agents' choices, in one transaction: a
 * saved agent never names a channel that is gone (its next save would be refused for it). The
 * agents' rows are locked in id order before they are changed, the order every statement that
 * changes many agents takes them in (the runtime's finish batch too): in no common order, two
 * such statements deadlocked and PostgreSQL aborted one (docs/decisions/0063).
 */
export async function deleteChannel(db: Db, userId: string, id: string): Promise<boolean> {
  return retryOnDeadlock(() =>
    db.transaction(async (tx) => {
      const removed = await tx.delete(channels).where(and(eq(channels.id, id), eq(channels.userId, userId))).returning({ id: channels.id });
      if (removed.length === 0) return false;
      const path = sql`'{notifications,channels}'::text[]`;
      await tx.execute(sql`
        update ${agents} a set config = jsonb_set(a.config, ${path}, (a.config #> ${path}) - ${id}::text)
        from (
          select l.id from ${agents} l
          where l.owner_id = ${userId} and (l.config #> ${path}) @> jsonb_build_array(${id}::text)
          order by l.id
          for no key update
        ) locked
        where a.id = locked.id`);
      return true;
    }),
  );
}

/** A channel's sealed configuration and masked target, changed (a Telegram chat that moved). */
export async function updateChannelSecret(db: Tx, id: string, values: { target: string; secret: string }): Promise<void> {
  await db.update(channels).set(values).where(eq(channels.id, id));
}

/** One pending delivery per chosen channel that is still the notification's owner's. */
export async function insertDeliveries(db: Tx, notificationId: string, userId: string, channelIds: readonly string[], event: TDeliveryEvent = 'notification'): Promise<DeliveryRow[]> {
  if (channelIds.length === 0) return [];
  const chosen = await db
    .select({ id: channels.id, kind: channels.kind, name: channels.name })
    .from(channels)
    .where(and(eq(channels.userId, userId), inArray(channels.id, [...channelIds])));
  if (chosen.length === 0) return [];
  return db
    .insert(channelDeliveries)
    .values(chosen.map((c) => ({ notificationId, channelId: c.id, channelKind: c.kind, channelName: c.name, event })))
    .returning();
}

/** The notification's own deliveries that were recorded and never attempted (held for its brief). */
export async function heldDeliveries(db: Tx, notificationId: string): Promise<DeliveryRow[]> {
  return db
    .select()
    .from(channelDeliveries)
    .where(
      and(
        eq(channelDeliveries.notificationId, notificationId),
        eq(channelDeliveries.event, 'notification'),
        eq(channelDeliveries.status, 'pending'),
        eq(channelDeliveries.attempts, 0),
      ),
    )
    .orderBy(asc(channelDeliveries.createdAt), asc(channelDeliveries.event), asc(channelDeliveries.channelName));
}

/** The channels the notification itself was delivered to (or meant for) that still exist, with its owner. */
export async function notifiedChannels(db: Tx, notificationId: string): Promise<{ userId: string; channelIds: string[] } | undefined> {
  const [owner] = await db.select({ userId: notifications.userId }).from(notifications).where(eq(notifications.id, notificationId));
  if (!owner) return undefined;
  const rows = await db
    .select({ channelId: channelDeliveries.channelId })
    .from(channelDeliveries)
    .where(and(eq(channelDeliveries.notificationId, notificationId), eq(channelDeliveries.event, 'notification'), isNotNull(channelDeliveries.channelId)));
  return { userId: owner.userId, channelIds: rows.map((r) => r.channelId!) };
}

/** A delivery with what sending it needs: its channel (null once removed) and its notification. */
export async function findDeliveryTarget(db: Tx, deliveryId: string) {
  const [row] = await db
    .select({ delivery: channelDeliveries, channel: channels, notification: notifications })
    .from(channelDeliveries)
    .innerJoin(notifications, eq(notifications.id, channelDeliveries.notificationId))
    .leftJoin(channels, eq(channels.id, channelDeliveries.channelId))
    .where(eq(channelDeliveries.id, deliveryId));
  return row;
}

export async function recordDelivery(
  db: Tx,
  deliveryId: string,
  outcome: { status: TDeliveryStatus; lastError: string | null; attempted: boolean },
  at: Date,
): Promise<void> {
  await db
    .update(channelDeliveries)
    .set({ status: outcome.status, lastError: outcome.lastError, attempts: sql`${channelDeliveries.attempts} + ${outcome.attempted ? 1 : 0}`, updatedAt: at })
    .where(eq(channelDeliveries.id, deliveryId));
}

/** Every delivery of these notifications, oldest first. */
export async function deliveriesOf(db: Tx, notificationIds: readonly string[]): Promise<DeliveryRow[]> {
  if (notificationIds.length === 0) return [];
  return db
    .select()
    .from(channelDeliveries)
    .where(inArray(channelDeliveries.notificationId, [...notificationIds]))
    .orderBy(asc(channelDeliveries.createdAt), asc(channelDeliveries.event), asc(channelDeliveries.channelName));
}

