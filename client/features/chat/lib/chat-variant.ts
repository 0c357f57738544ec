import type { TChatProviderInfo } from '../../../../contracts/chat.ts';

/**
 * How a chat screen behaves where SPEC's screens differ (section 2, 5 and 8): Grok's screen sends
 * through a single-line form, says 'Thinking...', shows a failure as 'Error: {message}' under
 * the input and can hide its sidebar on wide screens; the others take a multi-line box (Enter
 * sends, Shift+Enter adds a line), show animated dots and answer a failure in the chat. One
 * record per variant, read by the screen's parts; nothing else asks which assistant it is.
 */
export type ChatVariant = {
  /** 'line': a single-line input; 'box': a multi-line box where Enter sends. */
  input: 'line' | 'box';
  placeholder(label: string): string;
  /** Each message is sent with its timestamp (SPEC section 7: Grok's calls keep it). */
  sendsTimestamps: boolean;
  /** While waiting for the first words: 'Thinking...' or three bouncing dots. */
  waiting: 'thinking' | 'dots';
  /** A failed request: 'Error: {message}' under the input, or SPEC's 'Sorry, ...' answer in the chat. */
  errors: 'under-input' | 'in-chat';
  /** The history toggle's name, and whether it also hides the sidebar on wide screens. */
  sidebarToggle: { label: string; onWideScreens: boolean };
};

export const CHAT_VARIANTS: Record<TChatProviderInfo['variant'], ChatVariant> = {
  standard: {
    input: 'box',
    placeholder: (label) => `Message ${label}... (Enter to send, Shift+Enter for a new line)`,
    sendsTimestamps: false,
    waiting: 'dots',
    errors: 'in-chat',
    sidebarToggle: { label: 'Show chat history', onWideScreens: false },
  },
  grok: {
    input: 'line',
    placeholder: (label) => `Ask ${label} anything...`,
    sendsTimestamps: true,
    waiting: 'thinking',
    errors: 'under-input',
    sidebarToggle: { label: 'Toggle chat history sidebar', onWideScreens: true },
  },
};

export const chatVariant = (info: TChatProviderInfo): ChatVariant => CHAT_VARIANTS[info.variant];
