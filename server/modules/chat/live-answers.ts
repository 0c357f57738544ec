import type { TToolStep } from '../../../contracts/assistant-tools.ts';
import type { TChatStreamEvent } from '../../../contracts/chat.ts';

/** Writes one event to one browser; resolves when it may take more (or at once when it is gone). */
export type AnswerListener = (event: TChatStreamEvent) => Promise<void>;

/** Why an answer was stopped by us rather than ended by its provider. */
export type StopReason = 'stop' | 'shutdown' | 'limit';

/**
 * An answer this process is writing (docs/decisions/0056): the text so far, the browsers
 * following it, and the means to stop it. Keyed by its owner, chat and id: only the owner's
 * requests can find it.
 */
export type LiveAnswer = {
  readonly userId: string;
  readonly chatId: string;
  readonly answerId: string;
  /** The text so far. */
  text: string;
  /** The tool steps so far (issue 31): each as last sent, running or ended, in the order they began. */
  toolSteps: TToolStep[];
  /** The sources it may cite (issue 32), sent before its first delta and first to anyone who joins. */
  citations: Extract<TChatStreamEvent, { event: 'citations' }> | null;
  /** The last event (done or error) once the answer has ended. */
  end: TChatStreamEvent | null;
  /** Aborts the provider call. */
  readonly controller: AbortController;
  stopReason: StopReason | null;
  /** Resolves once the answer has ended and every follower has been told. */
  readonly ended: Promise<void>;
};

type Entry = LiveAnswer & { listeners: Set<AnswerListener>; resolveEnded(): void };

/**
 * The answers this process is writing, each with its followers: the browser that asked, and any
 * that joined later (a reload, a second tab). A follower that goes away leaves the answer running;
 * only Stop, the process closing or the answer's own limits end it early.
 */
export function createLiveAnswers() {
  const answers = new Map<string, Entry>();
  const keyOf = (userId: string, chatId: string, answerId: string) => `${userId}\u0000${chatId}\u0000${answerId}`;

  /** A new answer, or null when one with this key is being written already. */
  function open(userId: string, chatId: string, answerId: string): LiveAnswer | null {
    const key = keyOf(userId, chatId, answerId);
    if (answers.has(key)) return null;
    let resolveEnded!: () => void;
    const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
    const entry: Entry = { userId, chatId, answerId, text: '', toolSteps: [], citations: null, end: null, controller: new AbortController(), stopReason: null, ended, listeners: new Set(), resolveEnded };
    answers.set(key, entry);
    return entry;
  }

  function find(userId: string, chatId: string, answerId: string): LiveAnswer | undefined {
    return answers.get(keyOf(userId, chatId, answerId));
  }

  const entryOf = (answer: LiveAnswer) => answers.get(keyOf(answer.userId, answer.chatId, answer.answerId));

  /** Hands an event to every follower (a failing one is dropped); `done` or `error` ends the answer. */
  async function publish(answer: LiveAnswer, event: TChatStreamEvent): Promise<void> {
    const entry = entryOf(answer);
    if (!entry || entry.end) return;
    if (event.event === 'delta') entry.text += event.data.text;
    else if (event.event === 'tool') upsertStep(entry.toolSteps, event.data);
    else if (event.event === 'citations') entry.citations = event;
    else {
      entry.end = event;
      answers.delete(keyOf(answer.userId, answer.chatId, answer.answerId));
    }
    await Promise.all(
      [...entry.listeners].map((listener) =>
        listener(event).catch(() => {
          entry.listeners.delete(listener);
        }),
      ),
    );
    if (entry.end) {
      entry.listeners.clear();
      entry.resolveEnded();
    }
  }

  /**
   * Follows an answer: first everything so far, its sources, then the text as one delta and then each tool step as it stands
   * (in the same tick as joining, so no word or step is lost, sent twice or sent out of order),
   * then each event as it comes. Resolves when the answer has ended, or when `gone` fires (the
   * browser left; the answer goes on).
   */
  async function follow(answer: LiveAnswer, listener: AnswerListener, gone: AbortSignal): Promise<void> {
    const entry = answer as Entry;
    const soFar = (): TChatStreamEvent[] => [...(entry.citations ? [entry.citations] : []), ...(entry.text ? [{ event: 'delta' as const, data: { text: entry.text } }] : []), ...entry.toolSteps.map((step) => ({ event: 'tool' as const, data: step }))];
    if (entry.end) {
      for (const event of soFar()) await listener(event);
      return listener(entry.end);
    }
    entry.listeners.add(listener);
    // Each write starts now, in order; only waiting for them is left for later.
    const first = Promise.all(soFar().map((event) => listener(event)));
    const left = new Promise<void>((resolve) => {
      if (gone.aborted) resolve();
      else gone.addEventListener('abort', () => resolve(), { once: true });
    });
    await first;
    await Promise.race([entry.ended, left]);
    entry.listeners.delete(listener);
  }

  /** Stops an answer (its provider call is aborted; the answer ends as far as it got). */
  function stop(answer: LiveAnswer, reason: StopReason): void {
    const entry = entryOf(answer);
    if (!entry || entry.end || entry.controller.signal.aborted) return;
    entry.stopReason = reason;
    entry.controller.abort(new Error(reason));
  }

  /** Stops every answer (the process is closing) and waits until each has ended and been stored. */
  async function closeAll(): Promise<void> {
    const all = [...answers.values()];
    for (const answer of all) stop(answer, 'shutdown');
    await Promise.all(all.map((a) => a.ended));
  }

  return { open, find, publish, follow, stop, closeAll, size: () => answers.size };
}

export type LiveAnswers = ReturnType<typeof createLiveAnswers>;

/** A step replaces the one with its id (its end after its start), or comes after the others. */
export function upsertStep(steps: TToolStep[], step: TToolStep): void {
  const at = steps.findIndex((s) => s.id === step.id);
  if (at === -1) steps.push(step);
  else steps[at] = step;
}
