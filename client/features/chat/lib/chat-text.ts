/** SPEC section 8: an unexpected failure's toast. */
export const FAILED_TOAST = ['Error', 'Failed to send message. Please try again.'] as const;

/** The notes under an answer the user stopped, or a failure cut short: the server keeps the same (contracts). */
export { STOPPED_NOTE, cutShortNote } from '../../../../contracts/chat.ts';

/** The note under an answer this chat left while it was still arriving: the server goes on
 * writing it (docs/decisions/0056), and the chat shows all of it when opened again. */
export const LEFT_NOTE = '(still being written when you left this chat: open it again to see all of it)';
export const UNEXPECTED_CUT_NOTE = 'The answer was cut short by an unexpected error.';

/** SPEC: 'Sorry, I encountered an error: {message}. Please try again later.' (without a
 * doubled full stop when the server's message ends with one). */
export const sorryMessage = (message: string) => `Sorry, I encountered an error: ${message.replace(/\.+$/, '')}. Please try again later.`;

/** A message's id in this browser (the server keeps it, unique within its chat). */
export const messageId = () => `m-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
