/**
 * The Markdown editor's toolbar commands as pure functions of the text and its selection, so
 * what each one writes is tested without a browser. An edit replaces `from`..`to` with `insert`
 * and then selects `selectFrom`..`selectTo` (offsets in the text after the edit).
 */

export type Selection = { start: number; end: number };
export type TextEdit = { from: number; to: number; insert: string; selectFrom: number; selectTo: number };

export type MarkdownCommand = 'bold' | 'italic' | 'heading' | 'link' | 'quote' | 'code' | 'bulletList' | 'numberedList';

/** Wraps the selection in `mark` (or removes the mark when the selection already sits inside
 * one); with nothing selected, writes `placeholder` wrapped and selects it to be typed over. */
function wrap(text: string, { start, end }: Selection, mark: string, placeholder: string): TextEdit {
  const before = text.slice(start - mark.length, start);
  const after = text.slice(end, end + mark.length);
  if (start >= mark.length && before === mark && after === mark) {
    const inner = text.slice(start, end);
    const from = start - mark.length;
    return { from, to: end + mark.length, insert: inner, selectFrom: from, selectTo: from + inner.length };
  }
  const inner = start === end ? placeholder : text.slice(start, end);
  return { from: start, to: end, insert: `${mark}${inner}${mark}`, selectFrom: start + mark.length, selectTo: start + mark.length + inner.length };
}

const URL_LIKE = /^(https?:\/\/|mailto:|\/)\S*$/i;

/** `[text](url)`: the selected text becomes the link's text and the URL is selected to be typed;
 * a selected URL becomes the link's target and its text is selected instead. */
function link(text: string, { start, end }: Selection): TextEdit {
  const selected = text.slice(start, end);
  if (URL_LIKE.test(selected)) {
    const label = 'link text';
    return { from: start, to: end, insert: `[${label}](${selected})`, selectFrom: start + 1, selectTo: start + 1 + label.length };
  }
  const label = selected || 'link text';
  const url = 'https://';
  const insert = `[${label}](${url})`;
  const urlAt = start + label.length + 3;
  return selected
    ? { from: start, to: end, insert, selectFrom: urlAt, selectTo: urlAt + url.length }
    : { from: start, to: end, insert, selectFrom: start + 1, selectTo: start + 1 + label.length };
}

/** Inline code for a selection within a line, a fenced block for several lines. */
function code(text: string, selection: Selection): TextEdit {
  const { start, end } = selection;
  const selected = text.slice(start, end);
  if (!selected.includes('\n')) return wrap(text, selection, '`', 'code');
  const lead = start === 0 || text[start - 1] === '\n' ? '' : '\n';
  const trail = end === text.length || text[end] === '\n' ? '' : '\n';
  const body = selected.endsWith('\n') ? selected.slice(0, -1) : selected;
  const insert = `${lead}\`\`\`\n${body}\n\`\`\`${trail}`;
  const bodyAt = start + lead.length + 4;
  return { from: start, to: end, insert, selectFrom: bodyAt, selectTo: bodyAt + body.length };
}

/** Each line the selection touches gets `prefix(index)` in place of any marker `replaces`
 * matches (a bullet becomes a number); when every one already has it (by `pattern`), it is taken
 * off instead. The edited lines are selected afterwards. */
function prefixLines(text: string, { start, end }: Selection, pattern: RegExp, prefix: (index: number) => string, replaces = pattern): TextEdit {
  const from = text.lastIndexOf('\n', start - 1) + 1;
  // A selection ending at the very start of a line (after a triple click) does not take that line.
  const last = end > start && text[end - 1] === '\n' ? end - 1 : end;
  const lineEnd = text.indexOf('\n', last);
  const to = lineEnd === -1 ? text.length : lineEnd;
  const lines = text.slice(from, to).split('\n');
  const allPrefixed = lines.every((line) => pattern.test(line));
  const edited = allPrefixed ? lines.map((line) => line.replace(pattern, '')) : lines.map((line, i) => `${prefix(i)}${line.replace(replaces, '')}`);
  const insert = edited.join('\n');
  return { from, to, insert, selectFrom: from, selectTo: from + insert.length };
}

/** A bulleted or numbered list item's marker. */
const LIST_MARKER = /^([-*+]|\d+[.)]) /;

/** The edit a toolbar button or shortcut makes to `text` with `selection`. */
export function markdownEdit(command: MarkdownCommand, text: string, selection: Selection): TextEdit {
  const ordered = { start: Math.min(selection.start, selection.end), end: Math.max(selection.start, selection.end) };
  switch (command) {
    case 'bold':
      return wrap(text, ordered, '**', 'bold text');
    case 'italic':
      return wrap(text, ordered, '_', 'italic text');
    case 'code':
      return code(text, ordered);
    case 'link':
      return link(text, ordered);
    case 'heading':
      return prefixLines(text, ordered, /^#{1,6} /, () => '## ');
    case 'quote':
      return prefixLines(text, ordered, /^> ?/, () => '> ');
    case 'bulletList':
      return prefixLines(text, ordered, /^[-*+] /, () => '- ', LIST_MARKER);
    case 'numberedList':
      return prefixLines(text, ordered, /^\d+[.)] /, (i) => `${i + 1}. `, LIST_MARKER);
  }
}

/** Applies an edit as in `markdownEdit` to a string: for tests and for the fallback path. */
export function applyEdit(text: string, edit: TextEdit): string {
  return text.slice(0, edit.from) + edit.insert + text.slice(edit.to);
}
