import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import type { TChatProvider, TChatUsage, TChatUsagePurpose } from '../../../contracts/chat.ts';
import {
  budgetTotals,
  deleteReservation,
  extendReservation,
  insertChatUsage,
  insertReservation,
  lockUserBudget,
  reservedTokensOf,
  resizeReservation,
  type BudgetTotals,
  type NewChatUsage,
  type Tx,
} from './chat.repo.ts';
import { MESSAGE_OVERHEAD_TOKENS } from './token-estimate.ts';

/**
 * The daily chat budgets (DESIGN section 11: reserved before work, settled after;
 * docs/decisions/0011). A call reserves its estimated input plus the most output it may
 * produce (the provider is told that maximum), or the one image it may generate, under a
 * per-user lock, so parallel calls can never together spend past the limit. When the call ends
 * its real usage is written and the reservation deleted, in one transaction.
 */

/** The smallest answer worth asking for (OpenAI refuses a maximum below 16). */
export const MIN_ANSWER_TOKENS = 16;
/** A one-character message and its smallest answer: with less left, the day's budget is used up. */
const SMALLEST_CALL_TOKENS = MESSAGE_OVERHEAD_TOKENS + 1 + MIN_ANSWER_TOKENS;
/** How long a reservation holds without renewal: a process that dies mid-call frees it then. */
const RESERVATION_LEASE_MS = 60_000;
/** Retry-After when the budget is held by the user's own calls in flight. */
const HELD_RETRY_SECONDS = 10;

/** 0 = unlimited. */
export type BudgetLimits = { tokens: number; images: number };

export type BudgetAsk = { kind: 'text'; inputTokens: number; maxOutputTokens: number } | { kind: 'image' };

export type BudgetGrant = { ok: true; tokens: number; images: number; maxOutputTokens: number | null };
export type BudgetRefusal = {
  ok: false;
  reason: 'tokens_used_up' | 'input_too_large' | 'tokens_held' | 'images_used_up' | 'images_held';
  limit: number;
  left: number;
  needed: number;
};

/**
 * Whether the ask fits what is left of the day. A text answer gets at most what remains after
 * its input: min(the model's maximum, left - input), so even a full answer stays within budget.
 */
export function decide(limits: BudgetLimits, totals: BudgetTotals, ask: BudgetAsk): BudgetGrant | BudgetRefusal {
  if (ask.kind === 'image') {
    if (limits.images === 0) return { ok: true, tokens: 0, images: 1, maxOutputTokens: null };
    const left = Math.max(0, limits.images - totals.spentImages - totals.reservedImages);
    if (totals.spentImages >= limits.images) return { ok: false, reason: 'images_used_up', limit: limits.images, left: 0, needed: 1 };
    if (left < 1) return { ok: false, reason: 'images_held', limit: limits.images, left, needed: 1 };
    return { ok: true, tokens: 0, images: 1, maxOutputTokens: null };
  }
  if (limits.tokens === 0) return { ok: true, tokens: 0, images: 0, maxOutputTokens: ask.maxOutputTokens };
  const left = Math.max(0, limits.tokens - totals.spentTokens - totals.reservedTokens);
  const refuse = (reason: BudgetRefusal['reason']): BudgetRefusal => ({ ok: false, reason, limit: limits.tokens, left, needed: ask.inputTokens });
  if (limits.tokens - totals.spentTokens < SMALLEST_CALL_TOKENS) return refuse('tokens_used_up');
  const room = left - ask.inputTokens;
  if (room >= MIN_ANSWER_TOKENS) {
    const maxOutputTokens = Math.min(ask.maxOutputTokens, room);
    return { ok: true, tokens: ask.inputTokens + maxOutputTokens, images: 0, maxOutputTokens };
  }
  // Would it fit once the user's calls in flight have settled? Then it is only held, not too big.
  const fitsLater = limits.tokens - totals.spentTokens - ask.inputTokens >= MIN_ANSWER_TOKENS;
  return refuse(totals.reservedTokens > 0 && fitsLater ? 'tokens_held' : 'input_too_large');
}

function startOfUtcDay(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}

const number = (n: number) => n.toLocaleString('en-US');
const images = (n: number) => `${number(n)} image${n === 1 ? '' : 's'}`;

/** The 429 for a refusal: what the budget is, what is left, and when it resets (00:00 UTC). */
export function refusalMessage(refusal: BudgetRefusal, at: Date): { message: string; retryAfterSeconds: number } {
  const untilReset = Math.ceil((startOfUtcDay(at).getTime() + 86_400_000 - at.getTime()) / 1000);
  const minutes = Math.max(1, Math.ceil(untilReset / 60));
  const resets = `It resets at 00:00 UTC (in ${Math.floor(minutes / 60)} h ${minutes % 60} min).`;
  const held = { retryAfterSeconds: Math.min(HELD_RETRY_SECONDS, untilReset) };
  const { limit, left, needed } = refusal;
  switch (refusal.reason) {
    case 'tokens_used_up':
      return { message: `Your daily AI budget of ${number(limit)} tokens is used up. ${resets}`, retryAfterSeconds: untilReset };
    case 'input_too_large':
      return {
        message: `This conversation needs about ${number(needed)} tokens, but only ${number(left)} of your daily AI budget of ${number(limit)} tokens are left. Start a new chat or send less text. ${resets}`,
        retryAfterSeconds: untilReset,
      };
    case 'tokens_held':
      return {
        message: `Your answers still in progress hold the rest of your daily AI budget of ${number(limit)} tokens (${number(left)} left, this conversation needs about ${number(needed)}). Try again when they finish. ${resets}`,
        ...held,
      };
    case 'images_used_up':
      return { message: `Your daily image budget of ${images(limit)} is used up. ${resets}`, retryAfterSeconds: untilReset };
    case 'images_held':
      return { message: `Images still being generated hold the rest of your daily image budget of ${images(limit)}. Try again when they finish. ${resets}`, ...held };
  }
}

/** A granted reservation; `id` is null when nothing needed holding (unlimited budget). */
export type Reservation = { id: string | null; userId: string; maxOutputTokens: number | null };

export function createChatBudget({ db, limits, now, leaseMs = RESERVATION_LEASE_MS }: { db: Db; limits: BudgetLimits; now: () => Date; leaseMs?: number }) {
  /** Reserves the ask for the user, or says why not. Takes the per-user lock only when a limit applies. */
  async function reserve(userId: string, ask: BudgetAsk): Promise<Reservation | BudgetRefusal> {
    const limited = ask.kind === 'image' ? limits.images > 0 : limits.tokens > 0;
    if (!limited) {
      return { id: null, userId, maxOutputTokens: ask.kind === 'text' ? ask.maxOutputTokens : null };
    }
    const at = now();
    return db.transaction(async (tx) => {
      await lockUserBudget(tx, userId);
      const decision = decide(limits, await budgetTotals(tx, userId, startOfUtcDay(at), at), ask);
      if (!decision.ok) return decision;
      const id = await insertReservation(tx, { userId, tokens: decision.tokens, images: decision.images, expiresAt: new Date(at.getTime() + leaseMs) });
      return { id, userId, maxOutputTokens: decision.maxOutputTokens };
    });
  }

  /**
   * The next provider call of an answer that takes several (a tool loop, docs/decisions/0076): the
   * answer's one reservation is made to hold what its calls so far spent (`ask.inputTokens`
   * counts it, with the next call's input) plus the next call's output, decided under the same
   * lock as `reserve` with the reservation's own holding left out. Refused: the reservation is
   * left as it was, and the caller settles it at once.
   */
  async function reserveNext(reservation: Reservation, ask: Extract<BudgetAsk, { kind: 'text' }>): Promise<Reservation | BudgetRefusal> {
    if (limits.tokens === 0 || reservation.id === null) return { ...reservation, maxOutputTokens: ask.maxOutputTokens };
    const held = reservation.id;
    const at = now();
    return db.transaction(async (tx) => {
      await lockUserBudget(tx, reservation.userId);
      const totals = await budgetTotals(tx, reservation.userId, startOfUtcDay(at), at);
      const own = await reservedTokensOf(tx, held);
      const decision = decide(limits, { ...totals, reservedTokens: Math.max(0, totals.reservedTokens - own) }, ask);
      if (!decision.ok) return decision;
      const expiresAt = new Date(at.getTime() + leaseMs);
      const id = (await resizeReservation(tx, held, decision.tokens, expiresAt)) ? held : await insertReservation(tx, { userId: reservation.userId, tokens: decision.tokens, images: 0, expiresAt });
      return { id, userId: reservation.userId, maxOutputTokens: decision.maxOutputTokens };
    });
  }

  /**
   * Keeps the reservation alive while its call runs (a stream may outlast the lease); stop it
   * when the call ends. A failed renewal is logged: the call goes on.
   */
  function hold(reservation: Reservation | (() => Reservation | null), log: FastifyBaseLogger): { stop(): void } {
    // A tool loop's reservation may be made again between its calls: the current one is renewed.
    const current = typeof reservation === 'function' ? reservation : () => reservation;
    if (current()?.id == null) return { stop() {} };
    const timer = setInterval(() => {
      const id = current()?.id;
      if (id == null) return;
      extendReservation(db, id, new Date(now().getTime() + leaseMs)).catch((err: unknown) => log.warn({ err }, 'could not renew a chat budget reservation'));
    }, leaseMs / 3);
    timer.unref();
    return { stop: () => clearInterval(timer) };
  }

  /**
   * Writes the call's usage and frees its reservation at once, so the two never both count or both
   * miss. `claim`, run first in the same transaction, says whether the usage is still this call's
   * to record (an answer kept in a chat: the sweep may have settled it when its writer seemed dead;
   * docs/decisions/0061).
   */
  async function settle(reservation: Reservation | null, usage: NewChatUsage, claim?: (tx: Tx) => Promise<boolean>): Promise<void> {
    const id = reservation?.id ?? null;
    if (id === null && !claim) return insertChatUsage(db, usage);
    await db.transaction(async (tx) => {
      if (!claim || (await claim(tx))) await insertChatUsage(tx, usage);
      if (id !== null) await deleteReservation(tx, id, reservation!.userId, now());
    });
  }

  /** Frees a reservation whose call recorded nothing (it failed before it could). */
  async function release(reservation: Reservation): Promise<void> {
    if (reservation.id !== null) await deleteReservation(db, reservation.id, reservation.userId, now());
  }

  /**
   * How a one-shot text call outside a chat (an alert's brief, a condition's draft) records its
   * usage: `record(reservation, outcome, usage, durationMs, error)` settles with the call's fixed
   * facts, and a refusal before any call is recorded with a null reservation.
   */
  function usageRecorder(call: { userId: string; provider: TChatProvider; model: string; purpose: TChatUsagePurpose }) {
    return (reservation: Reservation | null, outcome: 'ok' | 'error' | 'rejected', usage: TChatUsage | null, durationMs: number, error: string | null, estimated = false) =>
      settle(reservation, {
        ...call,
        inputTokens: usage?.inputTokens ?? 0,
        outputTokens: usage?.outputTokens ?? 0,
        images: 0,
        durationMs: Math.round(durationMs),
        outcome,
        estimated,
        error,
        createdAt: now(),
      });
  }

  return { reserve, reserveNext, hold, settle, release, usageRecorder };
}

export type ChatBudget = ReturnType<typeof createChatBudget>;
