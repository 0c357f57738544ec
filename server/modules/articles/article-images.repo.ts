import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { articleImages, articleImageVariants, articleRevisions, articles } from '../../db/schema.ts';

export type ArticleImageRow = typeof articleImages.$inferSelect;
export type NewArticleImage = Omit<typeof articleImages.$inferInsert, 'id' | 'createdAt'>;
export type NewVariant = Omit<typeof articleImageVariants.$inferInsert, 'imageId'>;

export async function findImageBySha256(db: Db, sha256: string): Promise<ArticleImageRow | undefined> {
  const [row] = await db.select().from(articleImages).where(eq(articleImages.sha256, sha256));
  return row;
}

export async function findImage(db: Db, id: string): Promise<ArticleImageRow | undefined> {
  const [row] = await db.select().from(articleImages).where(eq(articleImages.id, id));
  return row;
}

/** Stores an image and its variants; the same upload stored meanwhile (same SHA-256) is answered instead. */
export async function insertImage(db: Db, image: NewArticleImage, variants: NewVariant[]): Promise<ArticleImageRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(articleImages).values(image).onConflictDoNothing({ target: articleImages.sha256 }).returning();
    if (!row) return (await findImageBySha256(tx as unknown as Db, image.sha256))!;
    await tx.insert(articleImageVariants).values(variants.map((variant) => ({ ...variant, imageId: row.id })));
    return row;
  });
}

export async function findVariant(db: Db, imageId: string, width: number, contentType: string): Promise<{ contentType: string; bytes: Buffer } | undefined> {
  const [row] = await db
    .select({ contentType: articleImageVariants.contentType, bytes: articleImageVariants.bytes })
    .from(articleImageVariants)
    .where(and(eq(articleImageVariants.imageId, imageId), eq(articleImageVariants.width, width), eq(articleImageVariants.contentType, contentType)));
  return row;
}

/**
 * Deletes the images created before `before` that no article uses: not a cover, not named in
 * any article's content, nor in any kept revision (whose fields hold the content and the cover).
 * Ids are UUIDs, so finding one in a text cannot match another image. Returns how many went.
 */
export async function deleteUnusedImages(db: Db, before: Date): Promise<number> {
  const id = sql`${articleImages.id}::text`;
  const gone = await db
    .delete(articleImages)
    .where(
      and(
        lt(articleImages.createdAt, before),
        sql`not exists (select 1 from ${articles} where ${articles.coverImageId} = ${articleImages.id} or strpos(${articles.content}, ${id}) > 0)`,
        sql`not exists (select 1 from ${articleRevisions} where strpos(${articleRevisions.fields}::text, ${id}) > 0)`,
      ),
    )
    .returning({ id: articleImages.id });
  return gone.length;
}
