import { createContext, useContext, useLayoutEffect, useSyncExternalStore } from 'react';
import type { LiveAnswer, LiveAnswerStore } from '../lib/live-answer.ts';
import { StreamingMarkdown } from './chat-markdown.tsx';

type LiveAnswerContextValue = {
  store: LiveAnswerStore | null;
  /** Keeps the newest words in view (unless the reader scrolled up). */
  follow(): void;
};

export const LiveAnswerContext = createContext<LiveAnswerContextValue>({ store: null, follow: () => {} });

const NONE: LiveAnswer = { id: null, content: '' };
const never = () => () => {};

/**
 * The text of the answer being streamed: the only view that renders for each new word (the
 * chat's state holds the answer's start and, when it ends, all of it). Until its words arrive
 * here it shows what the chat holds.
 */
export function LiveAnswerText({ id, fallback, from = 0 }: { id: string; fallback: string; /** Only the text from here (what follows the answer's last tool step). */ from?: number }) {
  const { store, follow } = useContext(LiveAnswerContext);
  const live = useSyncExternalStore(store?.subscribe ?? never, () => store?.get() ?? NONE);
  const content = (live.id === id ? live.content : fallback).slice(from);
  useLayoutEffect(follow, [content, follow]);
  return content ? <StreamingMarkdown>{content}</StreamingMarkdown> : null;
}
