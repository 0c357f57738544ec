import { and, desc, eq } from 'drizzle-orm';
import type { TProposalStatus } from '../../../contracts/assistant-tools.ts';
import type { Db } from '../../db/client.ts';
import { agentProposals } from '../../db/schema.ts';

export type ProposalRow = typeof agentProposals.$inferSelect;
export type NewProposal = Omit<typeof agentProposals.$inferInsert, 'id' | 'status' | 'createdAt' | 'decidedAt' | 'resultAgentId'>;

/** Most proposals one list answers (newest first): a pending list longer than this is an assistant gone astray. */
export const PROPOSALS_LISTED = 100;

// Every read is scoped by owner: another user's proposal is indistinguishable from a missing one.
const owned = (id: string, userId: string) => and(eq(agentProposals.id, id), eq(agentProposals.userId, userId));

export async function insertProposal(db: Db, values: NewProposal): Promise<ProposalRow> {
  const [row] = await db.insert(agentProposals).values(values).returning();
  return row!;
}

export async function findProposal(db: Db, id: string, userId: string): Promise<ProposalRow | undefined> {
  const [row] = await db.select().from(agentProposals).where(owned(id, userId));
  return row;
}

export async function listProposals(db: Db, userId: string, status: TProposalStatus | undefined): Promise<ProposalRow[]> {
  return db
    .select()
    .from(agentProposals)
    .where(status ? and(eq(agentProposals.userId, userId), eq(agentProposals.status, status)) : eq(agentProposals.userId, userId))
    .orderBy(desc(agentProposals.createdAt), desc(agentProposals.id))
    .limit(PROPOSALS_LISTED);
}

/**
 * Takes a pending proposal for a decision: only one of any number of concurrent decisions finds
 * it pending, so a proposal is applied or discarded once. undefined when it was not pending (or
 * is not the user's).
 */
export async function decideProposal(db: Db, id: string, userId: string, status: Exclude<TProposalStatus, 'pending'>, at: Date): Promise<ProposalRow | undefined> {
  const [row] = await db
    .update(agentProposals)
    .set({ status, decidedAt: at })
    .where(and(owned(id, userId), eq(agentProposals.status, 'pending')))
    .returning();
  return row;
}

/** An apply that failed after taking the proposal gives it back, pending as before. */
export async function reopenProposal(db: Db, id: string): Promise<void> {
  await db.update(agentProposals).set({ status: 'pending', decidedAt: null }).where(eq(agentProposals.id, id));
}

export async function setResultAgent(db: Db, id: string, agentId: string): Promise<ProposalRow> {
  const [row] = await db.update(agentProposals).set({ resultAgentId: agentId }).where(eq(agentProposals.id, id)).returning();
  return row!;
}
