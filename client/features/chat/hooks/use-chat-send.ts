import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { CHAT_LIMITS, type TChatProviderInfo } from '../../../../contracts/chat.ts';
import { notify } from '../../../lib/notify.ts';
import { ChatRequestError, MISSING_KEY_TEXT, sendChat } from '../api/chat-api.ts';
import type { ChatMessage, ChatSettings } from '../lib/chat-storage.ts';
import { createLiveAnswerStore, type LiveAnswer, type LiveAnswerStore } from '../lib/live-answer.ts';
import { FAILED_TOAST, STOPPED_NOTE, UNEXPECTED_CUT_NOTE, cutShortNote, messageId, sorryMessage } from '../lib/chat-text.ts';
import type { ChatVariant } from '../lib/chat-variant.ts';
import type { BranchItem, ChatTree } from './use-chat-session.ts';

export type ChatSend = {
  /** A request is in flight (SPEC: the input and Send are disabled). */
  pending: boolean;
  /** The answer being streamed, once its first words have arrived. */
  streamingId: string | null;
  /** The provider has no key: SPEC's 'API Configuration Error' panel. */
  configError: boolean;
  /** Grok's 'Error: {message}' under the input. */
  inlineError: string | null;
  /** Sends a message after the branch in view; false when it is not sent (empty, or a request is pending). */
  send(text: string): boolean;
  /** A new answer to a question of the branch in view (regenerate, or retry after Stop or an
   * error): a version beside the answers it already has. */
  answer(questionId: string): boolean;
  /** Sends an edited question as a new version of it; the chat goes on from there. */
  edit(questionId: string, text: string): boolean;
  stop(): void;
  /** Forgets the request in flight (aborted; its answer is ignored) and any error shown; gives
   * the answer it was streaming, as far as it got, for the chat it belongs to. */
  reset(): LiveAnswer | null;
  /** The words of the answer being streamed (read by that answer's view alone). */
  live: LiveAnswerStore;
};

type Options = {
  info: TChatProviderInfo;
  variant: ChatVariant;
  branch: readonly BranchItem[];
  model: string;
  settings: ChatSettings;
  update(change: (tree: ChatTree) => ChatTree): void;
};

/** The messages a model is sent: none of our own error messages or empty ones, the last 100. */
function requestMessages(conversation: readonly ChatMessage[], variant: ChatVariant) {
  return conversation
    .filter((m) => !m.failed && m.content.trim() !== '')
    .slice(-CHAT_LIMITS.maxMessages)
    .map((m) => (variant.sendsTimestamps ? { role: m.role, content: m.content, timestamp: m.timestamp } : { role: m.role, content: m.content }));
}

/** How often, at most, the answer's view takes the words that came: 20 times a second. */
const LIVE_UPDATE_MS = 50;
const nextFrame = (run: () => void): number => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(run) : window.setTimeout(run, 16));
const cancelFrame = (id: number) => (typeof cancelAnimationFrame === 'function' ? cancelAnimationFrame(id) : window.clearTimeout(id));

/** The branch in view from its first message to `id` (none for null; null when `id` is not in it). */
function messagesUpTo(branch: readonly BranchItem[], id: string | null): ChatMessage[] | null {
  if (id === null) return [];
  const at = branch.findIndex((b) => b.message.id === id);
  return at < 0 ? null : branch.slice(0, at + 1).map((b) => b.message);
}

/**
 * Sending a message and reading its answer as it streams (SPEC sections 4 and 8, DESIGN 6), and
 * the answers that replace one (docs/decisions/0048): regenerate, retry, edit. The pending state,
 * Stop (the partial answer stays, marked), and where each kind of failure shows. Every action
 * keeps its identity across renders, so nothing re-renders for it on every streamed word.
 */
export function useChatSend({ info, variant, branch, model, settings, update }: Options): ChatSend {
  const [pending, setPending] = useState(false);
  const [streamingId, setStreamingId] = useState<string | null>(null);
  const [configError, setConfigError] = useState(false);
  const [inlineError, setInlineError] = useState<string | null>(null);
  const abortRef = useRef<AbortController | null>(null);
  /** Bumped when the open chat changes: a reply still arriving for the old one is ignored. */
  const generation = useRef(0);
  const busy = useRef(false);
  const [live] = useState(createLiveAnswerStore);
  const latest = useRef({ info, variant, branch, model, settings, update });
  useLayoutEffect(() => {
    latest.current = { info, variant, branch, model, settings, update };
  });
  // Leaving the screen stops the answer (the server stops the provider's call with it).
  useEffect(() => () => abortRef.current?.abort(), []);

  /**
   * Asks for an answer to the last message of `conversation` (a question) and shows it as it
   * streams, as that question's newest answer. `previousLeaf`: the branch to show again when no
   * answer comes (a retry that failed before any text leaves the answer it was to replace).
   */
  const run = useCallback(async (conversation: ChatMessage[], previousLeaf: string | null) => {
    const { info, variant, model, settings, update } = latest.current;
    const questionId = conversation.at(-1)!.id;
    const turn = ++generation.current;
    const isLive = () => generation.current === turn;
    busy.current = true;
    setPending(true);
    setInlineError(null);
    setConfigError(false);

    const answerId = messageId();
    const answerModel = model;
    let answer = '';
    let started = false;
    /** Adds the answer and shows it, or updates it once it is there (updaters run later, so check the list). */
    const showAnswer = (fields: Partial<ChatMessage>) =>
      update((tree) => {
        const at = tree.messages.findLastIndex((m) => m.id === answerId);
        if (at >= 0) return { ...tree, messages: tree.messages.with(at, { ...tree.messages[at]!, ...fields }) };
        const added: ChatMessage = { id: answerId, parentId: questionId, role: 'assistant', content: '', timestamp: new Date().toISOString(), model: answerModel, ...fields };
        return { messages: [...tree.messages, added], leafId: answerId };
      });
    const showBranch = (leafId: string | null) => update((tree) => ({ ...tree, leafId }));

    // Words arrive faster than anyone reads them (100 a second and more): the answer's view is
    // given every word that came since at most 20 times a second, each time in the next frame (as
    // the AI SDK's useChat throttles). The chat's state holds the answer from its first words and
    // takes the rest when it ends.
    let frame = 0;
    const showSoFar = () => {
      frame = 0;
      if (isLive()) live.set({ id: answerId, content: answer });
    };
    const flushFrame = () => {
      // The pending update is a timer or a frame request: cancelling an id of the other kind is a no-op.
      if (frame) {
        window.clearTimeout(frame);
        cancelFrame(frame);
      }
      frame = 0;
    };

    const controller = new AbortController();
    abortRef.current = controller;
    const system = settings.systemPrompt.trim();
    const body = {
      messages: requestMessages(conversation, variant),
      model: answerModel,
      ...(system ? { system } : {}),
      ...(settings.temperature !== null ? { temperature: settings.temperature } : {}),
    };

    try {
      const result = await sendChat(info.endpoint, body, {
        signal: controller.signal,
        onDelta: (delta) => {
          if (!isLive()) return;
          answer += delta;
          if (!started) {
            setStreamingId(answerId);
            started = true;
            live.set({ id: answerId, content: answer });
            showAnswer({ content: answer, streaming: true }); // the first words at once
          } else if (!frame) {
            frame = window.setTimeout(() => {
              frame = nextFrame(showSoFar);
            }, LIVE_UPDATE_MS);
          }
        },
      });
      flushFrame();
      if (!isLive()) return;
      if (result.content || result.images.length > 0 || started) {
        showAnswer({ content: result.content || answer, model: result.model, streaming: undefined, ...(result.images.length > 0 ? { images: result.images } : {}) });
      } else {
        throw new ChatRequestError('The assistant returned an empty answer');
      }
    } catch (err) {
      flushFrame();
      if (!isLive()) return;
      const underInput = variant.errors === 'under-input';
      const noAnswer = () => {
        if (previousLeaf) showBranch(previousLeaf);
      };
      if (controller.signal.aborted) {
        // Stopped: the partial answer stays, marked.
        showAnswer({ content: answer, note: STOPPED_NOTE, streaming: undefined });
      } else if (err instanceof ChatRequestError) {
        if (answer) {
          showAnswer({ content: answer, note: cutShortNote(err.message), streaming: undefined });
          if (underInput) setInlineError(err.message);
        } else if (err.message.includes(MISSING_KEY_TEXT)) {
          noAnswer();
          setConfigError(true);
        } else if (underInput) {
          noAnswer();
          setInlineError(err.message);
        } else {
          showAnswer({ content: sorryMessage(err.message), failed: true, model: undefined });
        }
      } else {
        console.error('Chat request failed unexpectedly:', err);
        if (answer) showAnswer({ content: answer, note: UNEXPECTED_CUT_NOTE, streaming: undefined });
        else noAnswer();
        notify.error(...FAILED_TOAST);
      }
    } finally {
      flushFrame();
      if (isLive()) {
        live.set({ id: null, content: '' });
        abortRef.current = null;
        busy.current = false;
        setPending(false);
        setStreamingId(null);
      }
    }
  }, [live]);

  /** A new question after `parentId`, shown as the branch's end, then its answer. */
  const ask = useCallback(
    (text: string, parentId: string | null): boolean => {
      const content = text.trim();
      const before = messagesUpTo(latest.current.branch, parentId);
      if (!content || busy.current || before === null) return false;
      const question: ChatMessage = { id: messageId(), parentId, role: 'user', content, timestamp: new Date().toISOString() };
      latest.current.update((tree) => ({ messages: [...tree.messages, question], leafId: question.id }));
      void run([...before, question], null);
      return true;
    },
    [run],
  );

  const send = useCallback((text: string) => ask(text, latest.current.branch.at(-1)?.message.id ?? null), [ask]);

  const edit = useCallback(
    (questionId: string, text: string) => {
      const question = latest.current.branch.find((b) => b.message.id === questionId)?.message;
      return question?.role === 'user' ? ask(text, question.parentId ?? null) : false;
    },
    [ask],
  );

  const answer = useCallback(
    (questionId: string) => {
      const conversation = messagesUpTo(latest.current.branch, questionId);
      if (busy.current || !conversation || conversation.at(-1)?.role !== 'user') return false;
      const previousLeaf = latest.current.branch.at(-1)?.message.id ?? null;
      latest.current.update((tree) => ({ ...tree, leafId: questionId }));
      void run(conversation, previousLeaf === questionId ? null : previousLeaf);
      return true;
    },
    [run],
  );

  const stop = useCallback(() => abortRef.current?.abort(), []);

  const reset = useCallback((): LiveAnswer | null => {
    const { id, content } = live.get();
    live.set({ id: null, content: '' });
    abortRef.current?.abort();
    abortRef.current = null;
    generation.current++;
    busy.current = false;
    setPending(false);
    setStreamingId(null);
    setInlineError(null);
    setConfigError(false);
    return id ? { id, content } : null;
  }, [live]);

  return { pending, streamingId, configError, inlineError, send, answer, edit, stop, reset, live };
}
