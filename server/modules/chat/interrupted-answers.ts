import type { FastifyBaseLogger } from 'fastify';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS, type TChatProvider } from '../../../contracts/chat.ts';
import type { Db } from '../../db/client.ts';
import { deleteReservation, insertChatUsage } from './chat.repo.ts';
import { endLapsedAnswer, firstLeaseEnd, lockLapsedAnswers, type LapsedAnswer } from './conversations.repo.ts';
import { WRITER_GONE_NOTE } from './conversations.service.ts';
import { estimateTextTokens } from './token-estimate.ts';

/**
 * Answers whose writing process died (docs/decisions/0061). An answer kept in a chat is written
 * by one process, which saves its text every second and renews its lease (`streaming_until`,
 * docs/decisions/0056); its usage is recorded when it ends. A process killed mid-answer (kill -9,
 * a crash, the machine gone) leaves the row marked as being written, its budget reservation
 * held, and no usage: the tokens the provider billed would vanish from Usage and, once the
 * reservation expires, from the budget. The sweep settles such answers: usage recorded as
 * estimated (the input reserved for it and the text kept), outcome 'interrupted', the
 * reservation freed, the answer ended as far as it was saved with a note saying so.
 *
 * Several web processes share one PostgreSQL: an answer is another process's to settle only once
 * its lease has run out, which a live writer never lets happen (it renews every second, 15 s
 * ahead); rows are taken with FOR UPDATE SKIP LOCKED, so two sweeps settle each once; and an
 * answer this process writes itself is never settled, whatever its lease says.
 */

/** Answers settled in one transaction; more wait for the next sweep. */
const SWEEP_BATCH = 100;
/** How often a process looks for answers other processes left (besides once at its start). */
export const SWEEP_EVERY_MS = 60_000;
/** A sweep waiting for a lease to end comes this long after it. */
const LEASE_MARGIN_MS = 500;

export type InterruptedAnswersDeps = {
  db: Db;
  now: () => Date;
  /** How long a writer's lease lasts: roughly when its last save was. */
  leaseMs: number;
  /** Whether this process is writing that answer now (its registry of live answers). */
  isLiveHere(userId: string, chatId: string, answerId: string): boolean;
};

export function createInterruptedAnswers({ db, now, leaseMs, isLiveHere }: InterruptedAnswersDeps) {
  /** Settles the answers whose writer died, up to a batch; resolves with how many. */
  async function settle(): Promise<number> {
    return db.transaction(async (tx) => {
      const at = now();
      const lapsed = (await lockLapsedAnswers(tx, at, SWEEP_BATCH)).filter((row) => !isLiveHere(row.userId, row.chatId, row.id));
      for (const row of lapsed) {
        if (row.unsettledInputTokens !== null) await insertChatUsage(tx, usageOf(row));
        if (row.reservationId !== null) await deleteReservation(tx, row.reservationId, row.userId, at);
        await endLapsedAnswer(tx, row.conversationId, row.id, { note: WRITER_GONE_NOTE, finish: 'interrupted' });
      }
      return lapsed.length;
    });
  }

  /** The usage of an answer whose writer died: its reserved input and the text it kept, estimated. */
  function usageOf(row: LapsedAnswer) {
    const provider = CHAT_PROVIDERS.includes(row.provider as TChatProvider) ? (row.provider as TChatProvider) : null;
    // An image model's answer may have been drawn (and billed per image) before the process died.
    const image = provider !== null && CHAT_PROVIDER_INFO[provider].models.some((m) => m.id === row.model && m.image === true);
    const lastSaved = (row.streamingUntil?.getTime() ?? row.createdAt.getTime()) - leaseMs;
    return {
      userId: row.userId,
      provider: row.provider,
      model: row.model ?? 'unknown',
      inputTokens: row.unsettledInputTokens ?? 0,
      outputTokens: image ? 0 : estimateTextTokens(row.content),
      images: image ? 1 : 0,
      durationMs: Math.max(0, lastSaved - row.createdAt.getTime()),
      outcome: 'interrupted' as const,
      estimated: true,
      error: 'the server stopped before the answer was complete',
      // The day it was spent, whose budget it belongs to.
      createdAt: row.createdAt,
    };
  }

  /**
   * Sweeps once now (the process is starting: what a dead process left, whose lease has passed),
   * once more when the first lease still running then ends (a process restarted at once after
   * being killed finds its own answers still leased: this process writes none yet, so every lease
   * is another's, alive or dead), then every SWEEP_EVERY_MS (answers other processes left). A
   * failed sweep is logged and tried again at the next.
   */
  function start(log: FastifyBaseLogger): { stop(): Promise<void> } {
    let stopped = false;
    let running: Promise<void> = Promise.resolve();
    let timer: NodeJS.Timeout | undefined;
    const sweep = () => {
      running = settle()
        .then((settled) => {
          if (settled > 0) log.warn({ settled }, 'chat answers left unfinished by a process that stopped were settled (usage estimated)');
        })
        .catch((err: unknown) => log.warn({ err }, 'could not settle the chat answers left by a process that stopped'));
      return running;
    };
    const next = (ms: number) => {
      if (stopped) return;
      timer = setTimeout(() => void sweep().then(() => next(SWEEP_EVERY_MS)), ms);
      timer.unref();
    };
    const firstFollowUp = async () => {
      const until = await firstLeaseEnd(db).catch(() => null);
      const wait = until ? until.getTime() - now().getTime() + LEASE_MARGIN_MS : SWEEP_EVERY_MS;
      return Math.min(Math.max(wait, LEASE_MARGIN_MS), until ? leaseMs + LEASE_MARGIN_MS : SWEEP_EVERY_MS);
    };
    void sweep()
      .then(firstFollowUp)
      .then(next);
    return {
      async stop() {
        stopped = true;
        clearTimeout(timer);
        await running;
      },
    };
  }

  return { settle, start };
}

export type InterruptedAnswers = ReturnType<typeof createInterruptedAnswers>;
