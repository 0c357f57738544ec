import { describe, expect, it } from 'vitest';
import { applyEdit, markdownEdit, type MarkdownCommand } from './markdown-commands.ts';

/** Runs a command on text where `[` and `]` mark the selection; returns the result marked the same way. */
function run(command: MarkdownCommand, marked: string): string {
  const start = marked.indexOf('[');
  const end = marked.indexOf(']') - 1;
  const text = marked.slice(0, start) + marked.slice(start + 1, end + 1) + marked.slice(end + 2);
  const edit = markdownEdit(command, text, { start, end });
  const after = applyEdit(text, edit);
  return `${after.slice(0, edit.selectFrom)}[${after.slice(edit.selectFrom, edit.selectTo)}]${after.slice(edit.selectTo)}`;
}

// The selection is written between the first `[` and the first `]`: texts below avoid brackets
// before it, so links are checked with explicit offsets.
describe('markdownEdit', () => {
  it.each<[MarkdownCommand, string, string]>([
    ['bold', 'make [this] strong', 'make **[this]** strong'],
    ['bold', 'empty [] here', 'empty **[bold text]** here'],
    ['bold', 'undo **[this]** now', 'undo [this] now'],
    ['italic', 'make [this] lean', 'make _[this]_ lean'],
    ['italic', 'undo _[this]_ now', 'undo [this] now'],
    ['code', 'call [run()] now', 'call `[run()]` now'],
    ['code', 'before\n[a = 1\nb = 2]\nafter', 'before\n```\n[a = 1\nb = 2]\n```\nafter'],
    ['heading', 'Intro\nTi[]tle\nBody', 'Intro\n[## Title]\nBody'],
    ['heading', '## Ti[]tle', '[Title]'],
    ['heading', '# Ti[]tle', '[Title]'],
    ['quote', '[one\ntwo]', '[> one\n> two]'],
    ['quote', '[> one\n> two]', '[one\ntwo]'],
    ['bulletList', 'x\n[a\nb]\ny', 'x\n[- a\n- b]\ny'],
    ['bulletList', '[- a\n- b]', '[a\nb]'],
    ['numberedList', '[a\nb\nc]', '[1. a\n2. b\n3. c]'],
    ['numberedList', '[- a\n- b]', '[1. a\n2. b]'],
    ['numberedList', '[1. a\n2. b]', '[a\nb]'],
    ['bulletList', '[1. a\n2. b]', '[- a\n- b]'],
    // A selection that ends at the start of the next line (a triple click) stops before it.
    ['bulletList', '[a\n]b', '[- a]\nb'],
  ])('%s: %j becomes %j', (command, before, after) => {
    expect(run(command, before)).toBe(after);
  });

  it('link: the selected text becomes the link text and the URL is selected to be typed', () => {
    const edit = markdownEdit('link', 'see the docs', { start: 8, end: 12 });
    const after = applyEdit('see the docs', edit);
    expect(after).toBe('see the [docs](https://)');
    expect(after.slice(edit.selectFrom, edit.selectTo)).toBe('https://');
  });

  it('link: a selected URL becomes the target and its text is selected', () => {
    const text = 'go https://example.com now';
    const edit = markdownEdit('link', text, { start: 3, end: 22 });
    const after = applyEdit(text, edit);
    expect(after).toBe('go [link text](https://example.com) now');
    expect(after.slice(edit.selectFrom, edit.selectTo)).toBe('link text');
  });

  it('link: with nothing selected, writes a link whose text is selected', () => {
    const edit = markdownEdit('link', 'x ', { start: 2, end: 2 });
    const after = applyEdit('x ', edit);
    expect(after).toBe('x [link text](https://)');
    expect(after.slice(edit.selectFrom, edit.selectTo)).toBe('link text');
  });

  it('takes a backwards selection (end before start) as the same range', () => {
    expect(applyEdit('a word', markdownEdit('bold', 'a word', { start: 6, end: 2 }))).toBe('a **word**');
  });
});
