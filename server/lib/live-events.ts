import type { TLiveEvent } from '../../contracts/events.ts';

/**
 * What producers (runtime, agents, notifications) are given to tell a user's open consoles that
 * something of theirs changed (docs/decisions/0042; server/modules/events makes them). Called
 * after the change is committed; never throws and never waits: a lost event costs a refetch,
 * never a failed run or request.
 */
export type EventPublisher = { publish(userId: string, event: TLiveEvent): void };

/** For producers whose tests do not care, and processes nobody watches. */
export const NO_EVENTS: EventPublisher = { publish() {} };
