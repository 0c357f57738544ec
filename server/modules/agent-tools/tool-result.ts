import { TOOL_LIMITS } from '../../../contracts/assistant-tools.ts';
import { formatLimit } from '../../../contracts/number-format.ts';

/**
 * What the model reads of a tool's outcome (docs/decisions/0076): always JSON, `{"data": ...}` or
 * `{"error": "..."}`, so any text that came from a user-controlled field or from outside (an
 * agent's name, a condition's message, a market's name) reaches it only as a JSON string value,
 * never as prose of its own turn.
 */

export const errorForModel = (message: string) => JSON.stringify({ error: message });

/**
 * `{"data": ...}`, at most `max` characters. A longer result is cut, still as JSON: its text up to
 * the limit as one string, with a note saying it was cut and how to ask for less, so the model
 * neither reads a broken document nor mistakes a part for the whole.
 */
export function dataForModel(data: unknown, max: number = TOOL_LIMITS.maxResultChars): string {
  const whole = JSON.stringify({ data });
  if (whole.length <= max) return whole;
  const note = `The result was ${formatLimit(whole.length)} characters, more than the ${formatLimit(max)} a tool may answer, so it was cut: ask for fewer items for the rest.`;
  const room = max - JSON.stringify({ cut: note, partialData: '' }).length;
  // Cut the text, then shorten further while its escaping makes it longer than the room.
  let text = whole.slice(0, Math.max(0, room));
  let answer = JSON.stringify({ cut: note, partialData: text });
  while (answer.length > max && text.length > 0) {
    text = text.slice(0, Math.max(0, text.length - (answer.length - max) - 1));
    answer = JSON.stringify({ cut: note, partialData: text });
  }
  return answer;
}
