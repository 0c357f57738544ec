import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { CHAT_LIMITS, type TChatProviderInfo } from '../../../../contracts/chat.ts';
import { notify } from '../../../lib/notify.ts';
import { ChatRequestError, MISSING_KEY_TEXT, sendChat } from '../api/chat-api.ts';
import type { ChatMessage } from '../lib/chat-storage.ts';
import { FAILED_TOAST, STOPPED_NOTE, UNEXPECTED_CUT_NOTE, cutShortNote, messageId, sorryMessage } from '../lib/chat-text.ts';
import type { ChatVariant } from '../lib/chat-variant.ts';

export type ChatSend = {
  /** A request is in flight (SPEC: the input and Send are disabled). */
  pending: boolean;
  /** The answer being streamed, once its first words have arrived. */
  streamingId: string | null;
  /** The provider has no key: SPEC's 'API Configuration Error' panel. */
  configError: boolean;
  /** Grok's 'Error: {message}' under the input. */
  inlineError: string | null;
  /** Sends a message; false when it is not sent (empty, or a request is pending). */
  send(text: string): boolean;
  stop(): void;
  /** Forgets the request in flight (aborted; its answer is ignored) and any error shown. */
  reset(): void;
};

type Options = {
  info: TChatProviderInfo;
  variant: ChatVariant;
  messages: ChatMessage[];
  model: string;
  update(change: (previous: ChatMessage[]) => ChatMessage[]): void;
};

/**
 * Sending a message and reading its answer as it streams (SPEC sections 4 and 8, DESIGN 6):
 * the pending state, Stop (the partial answer stays, marked), and where each kind of failure
 * shows. `send` and `stop` keep their identity across renders, so the composer does not
 * re-render for every streamed word.
 */
export function useChatSend({ info, variant, messages, model, update }: Options): ChatSend {
  const [pending, setPending] = useState(false);
  const [streamingId, setStreamingId] = useState<string | null>(null);
  const [configError, setConfigError] = useState(false);
  const [inlineError, setInlineError] = useState<string | null>(null);
  const abortRef = useRef<AbortController | null>(null);
  /** Bumped when the open chat changes: a reply still arriving for the old one is ignored. */
  const generation = useRef(0);
  const busy = useRef(false);
  const latest = useRef({ info, variant, messages, model, update });
  useLayoutEffect(() => {
    latest.current = { info, variant, messages, model, update };
  });
  // Leaving the screen stops the answer (the server stops the provider's call with it).
  useEffect(() => () => abortRef.current?.abort(), []);

  const run = useCallback(async (conversation: ChatMessage[]) => {
    const { info, variant, model, update } = latest.current;
    const turn = ++generation.current;
    const live = () => generation.current === turn;
    busy.current = true;
    setPending(true);
    setInlineError(null);
    setConfigError(false);

    const answerId = messageId();
    const answerModel = model;
    let answer = '';
    let started = false;
    /** Adds the answer, or updates it once it is there (updaters run later, so check the list). */
    const showAnswer = (fields: Partial<ChatMessage>) =>
      update((list) =>
        list.some((m) => m.id === answerId)
          ? list.map((m) => (m.id === answerId ? { ...m, ...fields } : m))
          : [...list, { id: answerId, role: 'assistant', content: '', timestamp: new Date().toISOString(), model: answerModel, ...fields }],
      );

    const controller = new AbortController();
    abortRef.current = controller;
    const request = conversation
      .filter((m) => !m.failed && m.content.trim() !== '')
      .slice(-CHAT_LIMITS.maxMessages)
      .map((m) => (variant.sendsTimestamps ? { role: m.role, content: m.content, timestamp: m.timestamp } : { role: m.role, content: m.content }));

    try {
      const result = await sendChat(
        info.endpoint,
        { messages: request, model: answerModel },
        {
          signal: controller.signal,
          onDelta: (delta) => {
            if (!live()) return;
            answer += delta;
            if (!started) setStreamingId(answerId);
            started = true;
            showAnswer({ content: answer });
          },
        },
      );
      if (!live()) return;
      if (result.content || result.images.length > 0 || started) {
        showAnswer({ content: result.content || answer, model: result.model, ...(result.images.length > 0 ? { images: result.images } : {}) });
      } else {
        throw new ChatRequestError('The assistant returned an empty answer');
      }
    } catch (err) {
      if (!live()) return;
      const underInput = variant.errors === 'under-input';
      if (controller.signal.aborted) {
        // Stopped: the partial answer stays, marked.
        showAnswer({ content: answer, note: STOPPED_NOTE });
      } else if (err instanceof ChatRequestError) {
        if (answer) {
          showAnswer({ note: cutShortNote(err.message) });
          if (underInput) setInlineError(err.message);
        } else if (err.message.includes(MISSING_KEY_TEXT)) {
          setConfigError(true);
        } else if (underInput) {
          setInlineError(err.message);
        } else {
          update((list) => [...list, { id: answerId, role: 'assistant', content: sorryMessage(err.message), timestamp: new Date().toISOString(), failed: true }]);
        }
      } else {
        console.error('Chat request failed unexpectedly:', err);
        if (answer) showAnswer({ note: UNEXPECTED_CUT_NOTE });
        notify.error(...FAILED_TOAST);
      }
    } finally {
      if (live()) {
        abortRef.current = null;
        busy.current = false;
        setPending(false);
        setStreamingId(null);
      }
    }
  }, []);

  const send = useCallback(
    (input: string): boolean => {
      const text = input.trim();
      if (!text || busy.current) return false;
      const userMessage: ChatMessage = { id: messageId(), role: 'user', content: text, timestamp: new Date().toISOString() };
      const conversation = [...latest.current.messages, userMessage];
      latest.current.update(() => conversation);
      void run(conversation);
      return true;
    },
    [run],
  );

  const stop = useCallback(() => abortRef.current?.abort(), []);

  const reset = useCallback(() => {
    abortRef.current?.abort();
    abortRef.current = null;
    generation.current++;
    busy.current = false;
    setPending(false);
    setStreamingId(null);
    setInlineError(null);
    setConfigError(false);
  }, []);

  return { pending, streamingId, configError, inlineError, send, stop, reset };
}
