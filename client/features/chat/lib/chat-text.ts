/** SPEC section 8: an unexpected failure's toast. */
export const FAILED_TOAST = ['Error', 'Failed to send message. Please try again.'] as const;

/** The note under an answer the user stopped. */
export const STOPPED_NOTE = '(stopped)';

export const cutShortNote = (message: string) => `The answer was cut short: ${message}`;
export const UNEXPECTED_CUT_NOTE = 'The answer was cut short by an unexpected error.';

/** SPEC: 'Sorry, I encountered an error: {message}. Please try again later.' (without a
 * doubled full stop when the server's message ends with one). */
export const sorryMessage = (message: string) => `Sorry, I encountered an error: ${message.replace(/\.+$/, '')}. Please try again later.`;

/** A message's id in this browser (the server keeps it, unique within its chat). */
export const messageId = () => `m-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
