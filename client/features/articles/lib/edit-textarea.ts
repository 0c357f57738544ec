import type { TextEdit } from './markdown-commands.ts';

/**
 * Makes `edit` in the textarea as if typed, so the browser's undo (Ctrl/Cmd+Z) takes it back:
 * `execCommand('insertText')` is the one way to keep a textarea's undo stack (still supported
 * by Chromium, Firefox and Safari for editable fields, though the API is marked obsolete).
 * Where it does nothing (a browser without it, jsdom) the text is set with setRangeText, which
 * loses undo for this edit. Either way an `input` event follows, so react-hook-form and the
 * preview see the new value.
 */
export function editTextarea(textarea: HTMLTextAreaElement, edit: TextEdit): void {
  textarea.focus();
  textarea.setSelectionRange(edit.from, edit.to);
  const before = textarea.value;
  const inserted = typeof document.execCommand === 'function' && execInsert(edit.insert) && textarea.value !== before;
  if (!inserted && edit.insert !== textarea.value.slice(edit.from, edit.to)) {
    // setRangeText writes past React's value tracker, so the input event below reaches onChange.
    textarea.setRangeText(edit.insert, edit.from, edit.to, 'end');
    textarea.dispatchEvent(new Event('input', { bubbles: true }));
  }
  textarea.setSelectionRange(edit.selectFrom, edit.selectTo);
}

function execInsert(insert: string): boolean {
  try {
    // An empty insertText is a no-op in some browsers; deleting the selection is the same edit.
    return insert === '' ? document.execCommand('delete') : document.execCommand('insertText', false, insert);
  } catch {
    return false;
  }
}
