import { eq } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { documentPassages, documents, projects, users } from '../db/schema.ts';
import type { SessionUser } from '../lib/http/types.ts';

/**
 * Documents and passages written straight to the database, for retrieval's tests: the passages'
 * text and place are exactly what a test reasons about (ingest's own tests cover extraction).
 */
export async function seedDocument(
  db: Db,
  userId: string,
  input: { name: string; passages: (string | { text: string; page?: number; heading?: string })[]; projectId?: string | null; conversationId?: string | null; status?: 'ready' | 'no-text' },
): Promise<{ id: string; passageIds: string[] }> {
  const [doc] = await db
    .insert(documents)
    .values({
      userId,
      name: input.name,
      type: 'text',
      bytes: 1,
      status: input.status ?? 'ready',
      passages: input.passages.length,
      projectId: input.projectId ?? null,
      conversationId: input.conversationId ?? null,
    })
    .returning({ id: documents.id });
  if (input.passages.length === 0) return { id: doc!.id, passageIds: [] };
  const rows = await db
    .insert(documentPassages)
    .values(
      input.passages.map((p, ord) => {
        const passage = typeof p === 'string' ? { text: p } : p;
        return { documentId: doc!.id, userId, ord, text: passage.text, page: passage.page ?? null, heading: passage.heading ?? null };
      }),
    )
    .returning({ id: documentPassages.id, ord: documentPassages.ord });
  return { id: doc!.id, passageIds: rows.sort((a, b) => a.ord - b.ord).map((r) => r.id) };
}

export async function seedProject(db: Db, userId: string, name: string): Promise<string> {
  const [row] = await db.insert(projects).values({ userId, name }).returning({ id: projects.id });
  return row!.id;
}

/** The signed-in user's row as the session gives it to services. */
export async function sessionUser(db: Db, email: string): Promise<SessionUser> {
  const [row] = await db.select().from(users).where(eq(users.email, email));
  if (!row) throw new Error(`no user ${email}`);
  return { id: row.id, provider: row.provider, subject: row.subject, email: row.email, name: row.name, profilePicture: row.profilePicture, role: row.role, createdAt: row.createdAt };
}
