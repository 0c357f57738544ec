/**
 * The words of the answer being streamed, outside React's state: the screen's state takes the
 * answer when it starts and when it ends; in between only the answer's own view reads this, so a
 * streamed word renders that one view (and not the chat, its sidebar and its saving).
 */
export type LiveAnswer = { id: string | null; content: string };

export type LiveAnswerStore = {
  get(): LiveAnswer;
  set(next: LiveAnswer): void;
  subscribe(listener: () => void): () => void;
};

export function createLiveAnswerStore(): LiveAnswerStore {
  let state: LiveAnswer = { id: null, content: '' };
  const listeners = new Set<() => void>();
  return {
    get: () => state,
    set(next) {
      state = next;
      for (const listener of listeners) listener();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
