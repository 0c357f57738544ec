import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { projects } from '../../db/schema.ts';

/** Any connection or transaction: repo functions run inside the caller's transaction. */
type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

export type ProjectRow = typeof projects.$inferSelect;
/** A project with how many chats and knowledge documents it holds. */
export type CountedProject = ProjectRow & { chats: number; documents: number };

// Qualified by hand: in a select list drizzle names a column without its table.
const chatsIn = sql<number>`(select count(*) from "chat_conversations" c where c."project_id" = "projects"."id")`.mapWith(Number);
const documentsIn = sql<number>`(select count(*) from "documents" d where d."project_id" = "projects"."id")`.mapWith(Number);

/** The user's projects by name (any case), with their counts. */
export async function listProjects(db: Tx, userId: string): Promise<CountedProject[]> {
  return db
    .select({ project: projects, chats: chatsIn, documents: documentsIn })
    .from(projects)
    .where(eq(projects.userId, userId))
    .orderBy(asc(sql`lower(${projects.name})`), asc(projects.id))
    .then((rows) => rows.map((r) => ({ ...r.project, chats: r.chats, documents: r.documents })));
}

/** The user's project with this id, with its counts; none for another user's. */
export async function findProject(db: Tx, userId: string, id: string): Promise<CountedProject | undefined> {
  const [row] = await db
    .select({ project: projects, chats: chatsIn, documents: documentsIn })
    .from(projects)
    .where(and(eq(projects.id, id), eq(projects.userId, userId)));
  return row ? { ...row.project, chats: row.chats, documents: row.documents } : undefined;
}

export async function countProjects(db: Tx, userId: string): Promise<number> {
  const [row] = await db.select({ n: count() }).from(projects).where(eq(projects.userId, userId));
  return row?.n ?? 0;
}

/** Another of the user's projects with this name (any case), or none. */
export async function projectNamed(db: Tx, userId: string, name: string, exceptId?: string): Promise<ProjectRow | undefined> {
  const [row] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.userId, userId), sql`lower(${projects.name}) = lower(${name})`, exceptId ? sql`${projects.id} <> ${exceptId}` : undefined));
  return row;
}

export async function insertProject(db: Tx, row: typeof projects.$inferInsert): Promise<ProjectRow> {
  const [created] = await db.insert(projects).values(row).returning();
  return created!;
}

export async function updateProject(
  db: Tx,
  userId: string,
  id: string,
  fields: Partial<Pick<ProjectRow, 'name' | 'instructions' | 'defaultProvider' | 'defaultModel' | 'updatedAt'>>,
): Promise<boolean> {
  const rows = await db
    .update(projects)
    .set(fields)
    .where(and(eq(projects.id, id), eq(projects.userId, userId)))
    .returning({ id: projects.id });
  return rows.length > 0;
}

/** Deletes the project: its knowledge documents go with it (FK cascade), its chats stay, outside any project (FK set null). */
export async function deleteProject(db: Tx, userId: string, id: string): Promise<boolean> {
  const removed = await db
    .delete(projects)
    .where(and(eq(projects.id, id), eq(projects.userId, userId)))
    .returning({ id: projects.id });
  return removed.length > 0;
}
