import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { CHAT_IMAGE_LIMITS, CHAT_LIMITS, CONTINUE_PROMPT, chatImageId, mayContinue, type TChatModel, type TChatProviderInfo, type TChatRequest } from '../../../../contracts/chat.ts';
import { notify } from '../../../lib/notify.ts';
import { DOCUMENT_LIMITS } from '../../../../contracts/documents.ts';
import type { TToolStep } from '../../../../contracts/assistant-tools.ts';
import { ChatRequestError, MISSING_KEY_TEXT, joinAnswer, sendChat, stopAnswer, type AnswerReader, type AnswerSources, type ChatResult } from '../api/chat-api.ts';
import { sessionTitle, type ChatMessage, type ChatSettings, type QuestionDocument } from '../lib/chat-storage.ts';
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
  /** Sends a message (and the images it shows: our image URLs) after the branch in view; false
   * when it is not sent (empty, or a request is pending). */
  send(text: string, images?: readonly string[], documents?: readonly QuestionDocument[]): boolean;
  /** Joins an answer of the open chat that the server is writing (after a reload, or from
   * another tab; docs/decisions/0056): what came so far, then the rest. False when busy. */
  attach(answerId: string): boolean;
  /** A new answer to a question of the branch in view (regenerate, or retry after Stop or an
   * error): a version beside the answers it already has. */
  answer(questionId: string): boolean;
  /** After an answer cut at its length limit: asks the assistant to go on from where it stopped
   * (CONTINUE_PROMPT, a question of its own after it; docs/decisions/0061). False when it cannot. */
  continueAnswer(answerId: string): boolean;
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
  /** The open chat: where the server keeps the answer (docs/decisions/0056). */
  chatId: string;
  branch: readonly BranchItem[];
  model: string;
  /** The models on offer (which see images). */
  models: readonly TChatModel[];
  settings: ChatSettings;
  /** "Use my agents" is offered here (an admin, on a model that calls tools; issue 31): the request says whether it is on. */
  agentsOffered?: boolean;
  /** The server has a search engine (issue 32): the request says when the chat's "Search the web" is on. */
  webSearchOffered?: boolean;
  update(change: (tree: ChatTree) => ChatTree): void;
};

/** A step replaces the one with its id (its end after its start), or comes after the others. */
export function withStep(steps: readonly TToolStep[] | undefined, step: TToolStep): TToolStep[] {
  const list = steps ?? [];
  const at = list.findIndex((s) => s.id === step.id);
  return at === -1 ? [...list, step] : list.with(at, step);
}

/**
 * The messages a model is sent: none of our own error messages or empty ones, the last 100. The
 * questions' stored images go with them to a model that sees images, the newest first, 16 at
 * most (the server's limit for a request); a model that reads text only gets the text.
 */
export function requestMessages(conversation: readonly ChatMessage[], variant: ChatVariant, sendsImages = true) {
  const kept = conversation.filter((m) => !m.failed && m.content.trim() !== '').slice(-CHAT_LIMITS.maxMessages);
  const imagesOf = new Map<ChatMessage, string[]>();
  let room: number = CHAT_IMAGE_LIMITS.maxPerRequest;
  for (const m of sendsImages ? [...kept].reverse() : []) {
    if (m.role !== 'user' || room === 0) continue;
    const ids = (m.images ?? []).flatMap((src) => chatImageId(src) ?? []).slice(0, Math.min(room, CHAT_IMAGE_LIMITS.maxPerMessage));
    room -= ids.length;
    if (ids.length > 0) imagesOf.set(m, ids);
  }
  return kept.map((m) => ({
    role: m.role,
    content: m.content,
    ...(variant.sendsTimestamps ? { timestamp: m.timestamp } : {}),
    ...(imagesOf.has(m) ? { images: imagesOf.get(m)! } : {}),
    // A question's documents are searched for every later answer of the chat (issue 32).
    ...(m.role === 'user' && m.documents?.length ? { documents: m.documents.map((d) => d.id).slice(0, DOCUMENT_LIMITS.maxPerMessage) } : {}),
  }));
}

/** An answer's sources as its message keeps them (issue 32). */
const sourcesFields = (sources: AnswerSources | undefined): Pick<ChatMessage, 'citations' | 'sourcesNote'> => ({
  ...(sources?.citations.length ? { citations: sources.citations } : {}),
  ...(sources?.note ? { sourcesNote: sources.note } : {}),
});

/** How long Stop waits for the server to end the answer (so what is shown is what is kept) before it stops reading. */
const STOP_GRACE_MS = 3_000;

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
export function useChatSend({ info, variant, chatId, branch, model, models, settings, agentsOffered = false, webSearchOffered = false, update }: Options): ChatSend {
  const [pending, setPending] = useState(false);
  const [streamingId, setStreamingId] = useState<string | null>(null);
  const [configError, setConfigError] = useState(false);
  const [inlineError, setInlineError] = useState<string | null>(null);
  const abortRef = useRef<AbortController | null>(null);
  /** The answer being read: where the server keeps it, so Stop can reach it. */
  const keptRef = useRef<{ chatId: string; answerId: string; started: () => boolean } | null>(null);
  /** Bumped when the open chat changes: a reply still arriving for the old one is ignored. */
  const generation = useRef(0);
  const busy = useRef(false);
  const [live] = useState(createLiveAnswerStore);
  const latest = useRef({ info, variant, chatId, branch, model, models, settings, agentsOffered, webSearchOffered, update });
  useLayoutEffect(() => {
    latest.current = { info, variant, chatId, branch, model, models, settings, agentsOffered, webSearchOffered, update };
  });
  // Leaving the screen stops reading the answer; the server goes on writing it into the chat
  // (docs/decisions/0056), where the screen finds it again.
  useEffect(() => () => abortRef.current?.abort(), []);

  /**
   * Reads an answer as it streams and shows it, as the newest answer to `questionId`: a new one
   * (`request` posts the question) or one the server is writing already (`request` joins it).
   * `previousLeaf`: the branch to show again when no answer comes (a retry that failed before any
   * text leaves the answer it was to replace). `kept`: where the server keeps the answer, for Stop.
   */
  const follow = useCallback(
    async (
      request: (reader: AnswerReader) => Promise<ChatResult>,
      { answerId, questionId, answerModel, previousLeaf, kept, joining }: { answerId: string; questionId: string; answerModel: string; previousLeaf: string | null; kept: { chatId: string } | null; joining: boolean },
    ) => {
      const { variant, update } = latest.current;
      const turn = ++generation.current;
      const isLive = () => generation.current === turn;
      busy.current = true;
      setPending(true);
      setInlineError(null);
      setConfigError(false);

      let answer = '';
      let started = false;
      let steps: TToolStep[] = [];
      let sources: AnswerSources | undefined;
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
      keptRef.current = kept ? { chatId: kept.chatId, answerId, started: () => started } : null;
      if (joining) {
        setStreamingId(answerId);
        showAnswer({ streaming: true });
      }

      const begin = () => {
        setStreamingId(answerId);
        started = true;
        live.set({ id: answerId, content: answer });
      };
      try {
        const result = await request({
          signal: controller.signal,
          onDelta: (delta) => {
            if (!isLive()) return;
            answer += delta;
            if (!started) {
              begin();
              showAnswer({ content: answer, streaming: true }); // the first words at once
            } else if (!frame) {
              frame = window.setTimeout(() => {
                frame = nextFrame(showSoFar);
              }, LIVE_UPDATE_MS);
            }
          },
          // A tool step shows at once where it happened (steps are few: each renders the answer).
          onStep: (step) => {
            if (!isLive()) return;
            steps = withStep(steps, step);
            if (!started) begin();
            showAnswer({ content: answer, toolSteps: steps, streaming: true });
          },
          // The sources come before the text (issue 32): kept for the answer's [n], shown with it.
          onSources: (found) => {
            if (isLive()) sources = found;
          },
        });
        flushFrame();
        if (!isLive()) return;
        // An answer with a note is kept whatever it holds: the note says why it is not whole (or empty).
        if (result.content || result.images.length > 0 || started || result.note) {
          showAnswer({
            ...(steps.length > 0 ? { toolSteps: steps } : {}),
            content: result.content || answer,
            model: result.model,
            streaming: undefined,
            finish: result.finish,
            note: result.note,
            ...(result.images.length > 0 ? { images: result.images } : {}),
            ...sourcesFields(result.sources ?? sources),
          });
        } else {
          throw new ChatRequestError('The assistant returned an empty answer');
        }
      } catch (err) {
        flushFrame();
        if (!isLive()) return;
        const underInput = variant.errors === 'under-input';
        const noAnswer = () => {
          if (joining) update((tree) => ({ ...tree, messages: tree.messages.filter((m) => m.id !== answerId), leafId: tree.leafId === answerId ? questionId : tree.leafId }));
          else if (previousLeaf) showBranch(previousLeaf);
        };
        if (controller.signal.aborted || (err instanceof ChatRequestError && err.stopped)) {
          // Stopped: the partial answer stays, marked.
          showAnswer({ content: answer, note: STOPPED_NOTE, finish: 'stopped', streaming: undefined, ...sourcesFields(sources) });
        } else if (joining && err instanceof ChatRequestError && err.status === 404) {
          // Gone meanwhile (it failed before any text): the chat as the server holds it.
          noAnswer();
        } else if (err instanceof ChatRequestError) {
          if (answer) {
            // Cut short (the connection lost, a failure): the text stays with why, and Retry.
            showAnswer({ content: answer, note: cutShortNote(err.message), finish: err.finish, streaming: undefined, ...sourcesFields(sources) });
            if (underInput) setInlineError(err.message);
          } else if (err.message.includes(MISSING_KEY_TEXT)) {
            noAnswer();
            setConfigError(true);
          } else if (underInput) {
            noAnswer();
            setInlineError(err.message);
          } else {
            showAnswer({ content: sorryMessage(err.message), failed: true, model: undefined, streaming: undefined });
          }
        } else {
          console.error('Chat request failed unexpectedly:', err);
          if (answer) showAnswer({ content: answer, note: UNEXPECTED_CUT_NOTE, finish: 'failed', streaming: undefined });
          else noAnswer();
          notify.error(...FAILED_TOAST);
        }
      } finally {
        flushFrame();
        if (isLive()) {
          live.set({ id: null, content: '' });
          abortRef.current = null;
          keptRef.current = null;
          busy.current = false;
          setPending(false);
          setStreamingId(null);
        }
      }
    },
    [live],
  );

  /** Asks for an answer to the last message of `conversation` (a question), kept by the server in the open chat. */
  const run = useCallback(
    (conversation: ChatMessage[], previousLeaf: string | null) => {
      const { info, variant, chatId, model, models, settings } = latest.current;
      const question = conversation.at(-1)!;
      const answerId = messageId();
      const system = settings.systemPrompt.trim();
      const body: TChatRequest = {
        messages: requestMessages(conversation, variant, models.find((m) => m.id === model)?.vision !== undefined),
        model,
        ...(system ? { system } : {}),
        ...(settings.temperature !== null ? { temperature: settings.temperature } : {}),
        // On by default where it is offered; never sent where it is not (the server refuses it there).
        ...(latest.current.agentsOffered ? { useAgents: settings.useAgents ?? true } : {}),
        // "Search the web" (issue 32): sent only where the server offers it (it refuses it elsewhere).
        ...(latest.current.webSearchOffered && settings.webSearch ? { webSearch: true } : {}),
        // A chat in a project (issue 32): its instructions and knowledge apply; a chat the server makes starts in it.
        ...(settings.projectId ? { projectId: settings.projectId } : {}),
        // The chat's title (SPEC: its first question) for a chat the server does not hold yet.
        answer: { chatId, id: answerId, questionId: question.id, questionParentId: question.parentId ?? null, title: sessionTitle(conversation).slice(0, 200) },
      };
      return follow((reader) => sendChat(info.endpoint, body, reader), {
        answerId,
        questionId: question.id,
        answerModel: model,
        previousLeaf,
        kept: { chatId },
        joining: false,
      });
    },
    [follow],
  );

  const attach = useCallback(
    (answerId: string): boolean => {
      const { chatId, branch } = latest.current;
      const message = branch.find((b) => b.message.id === answerId)?.message;
      if (busy.current || !message || message.role !== 'assistant' || !message.parentId) return false;
      const answerModel = message.model ?? latest.current.model;
      void follow((reader) => joinAnswer(chatId, answerId, answerModel, reader), {
        answerId,
        questionId: message.parentId,
        answerModel,
        previousLeaf: null,
        kept: { chatId },
        joining: true,
      });
      return true;
    },
    [follow],
  );

  /** A new question after `parentId`, shown as the branch's end, then its answer. */
  const ask = useCallback(
    (text: string, parentId: string | null, images: readonly string[] = [], documents: readonly QuestionDocument[] = []): boolean => {
      const content = text.trim();
      const before = messagesUpTo(latest.current.branch, parentId);
      if (!content || busy.current || before === null) return false;
      const question: ChatMessage = {
        id: messageId(),
        parentId,
        role: 'user',
        content,
        timestamp: new Date().toISOString(),
        ...(images.length > 0 ? { images: [...images] } : {}),
        ...(documents.length > 0 ? { documents: [...documents] } : {}),
      };
      latest.current.update((tree) => ({ messages: [...tree.messages, question], leafId: question.id }));
      void run([...before, question], null);
      return true;
    },
    [run],
  );

  const send = useCallback(
    (text: string, images?: readonly string[], documents?: readonly QuestionDocument[]) => ask(text, latest.current.branch.at(-1)?.message.id ?? null, images, documents),
    [ask],
  );

  // An edited question shows the images and carries the documents of the question it replaces.
  const edit = useCallback(
    (questionId: string, text: string) => {
      const question = latest.current.branch.find((b) => b.message.id === questionId)?.message;
      return question?.role === 'user' ? ask(text, question.parentId ?? null, question.images ?? [], question.documents ?? []) : false;
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

  const continueAnswer = useCallback(
    (answerId: string) => {
      const cut = latest.current.branch.find((b) => b.message.id === answerId)?.message;
      return cut?.role === 'assistant' && mayContinue(cut) ? ask(CONTINUE_PROMPT, answerId) : false;
    },
    [ask],
  );

  /**
   * Stop: the server ends the answer wherever it is being written and the stream then ends,
   * stopped, with what was kept. Should the server not answer, or the answer not end soon, the
   * screen stops reading anyway. Before the first words the answer may not have started on the
   * server: reading stops at once (the server does not start an answer whose request is gone)
   * and Stop is asked once more a moment later.
   */
  const stop = useCallback(() => {
    const controller = abortRef.current;
    const kept = keptRef.current;
    if (!controller) return;
    if (!kept) return controller.abort();
    const ask = () => stopAnswer(kept.chatId, kept.answerId);
    if (!kept.started()) {
      controller.abort();
      void ask().catch(() => new Promise((resolve) => setTimeout(resolve, 500)).then(ask).catch(() => {}));
      return;
    }
    ask().catch(() => controller.abort());
    setTimeout(() => controller.abort(), STOP_GRACE_MS);
  }, []);

  const reset = useCallback((): LiveAnswer | null => {
    const { id, content } = live.get();
    live.set({ id: null, content: '' });
    abortRef.current?.abort();
    abortRef.current = null;
    keptRef.current = null;
    generation.current++;
    busy.current = false;
    setPending(false);
    setStreamingId(null);
    setInlineError(null);
    setConfigError(false);
    return id ? { id, content } : null;
  }, [live]);

  return { pending, streamingId, configError, inlineError, send, attach, answer, continueAnswer, edit, stop, reset, live };
}
