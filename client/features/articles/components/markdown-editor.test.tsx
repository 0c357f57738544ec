import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { corpusMarkdown, fullCorpus, markdownShows, XSS_MARKER } from '../../../../tests/e2e/support/xss-corpus.ts';
import { stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import CreateArticlePage from './create-article-page.tsx';

// The Create Article form's content field: a Markdown editor with a toolbar, shortcuts and a
// live preview drawn by the public article's renderer.

beforeEach(() => localStorage.clear());

const ADMIN = signedInAs('admin', { id: '00000000-0000-4000-8000-0000000000ad' });

function renderEditor() {
  stubFetch({});
  renderWithProviders(<CreateArticlePage />, { auth: ADMIN, path: '/create-article' });
  const content = screen.getByRole('textbox', { name: 'Content' }) as HTMLTextAreaElement;
  const preview = screen.getByRole('region', { name: 'Preview' });
  return { content, preview };
}

/** Writes `text` into the content and selects `selected` (its first occurrence). */
function writeAndSelect(content: HTMLTextAreaElement, text: string, selected = '') {
  fireEvent.change(content, { target: { value: text } });
  const at = selected ? text.indexOf(selected) : text.length;
  content.focus();
  content.setSelectionRange(at, at + selected.length);
}

const tool = (name: string) => within(screen.getByRole('toolbar', { name: 'Formatting' })).getByRole('button', { name });

describe('the Markdown editor', () => {
  it('has a labelled toolbar whose buttons say their shortcuts, controlling the content', () => {
    const { content } = renderEditor();
    const toolbar = screen.getByRole('toolbar', { name: 'Formatting' });
    expect(toolbar).toHaveAttribute('aria-controls', content.id);
    expect(within(toolbar).getAllByRole('button').map((b) => b.getAttribute('aria-label'))).toEqual([
      'Bold',
      'Italic',
      'Heading',
      'Link',
      'Quote',
      'Code',
      'Bulleted list',
      'Numbered list',
    ]);
    expect(tool('Bold')).toHaveAttribute('aria-keyshortcuts', 'Control+B Meta+B');
    expect(tool('Bold')).toHaveAttribute('title', 'Bold (Ctrl+B)');
    expect(tool('Italic')).toHaveAttribute('aria-keyshortcuts', 'Control+I Meta+I');
    expect(tool('Link')).toHaveAttribute('title', 'Link (Ctrl+K)');
    expect(tool('Quote')).not.toHaveAttribute('aria-keyshortcuts');
  });

  it.each([
    ['Bold', 'Make this strong', 'this', 'Make **this** strong'],
    ['Italic', 'Make this lean', 'this', 'Make _this_ lean'],
    ['Heading', 'A title', 'title', '## A title'],
    ['Link', 'Read the docs', 'docs', 'Read the [docs](https://)'],
    ['Quote', 'Said once', 'once', '> Said once'],
    ['Code', 'Call run() now', 'run()', 'Call `run()` now'],
    ['Bulleted list', 'one\ntwo', 'one\ntwo', '- one\n- two'],
    ['Numbered list', 'one\ntwo', 'one\ntwo', '1. one\n2. two'],
  ])('%s applies to the selection', async (button, text, selected, expected) => {
    const { content } = renderEditor();
    writeAndSelect(content, text, selected);
    await userEvent.click(tool(button));
    expect(content).toHaveValue(expected);
    expect(content).toHaveFocus();
  });

  it('Ctrl+B, Ctrl+I and Cmd+K format the selection from the keyboard', async () => {
    const { content } = renderEditor();
    writeAndSelect(content, 'one two three', 'one');
    await userEvent.keyboard('{Control>}b{/Control}');
    expect(content).toHaveValue('**one** two three');

    content.setSelectionRange(8, 11);
    await userEvent.keyboard('{Control>}i{/Control}');
    expect(content).toHaveValue('**one** _two_ three');

    const at = content.value.indexOf('three');
    content.setSelectionRange(at, at + 5);
    await userEvent.keyboard('{Meta>}k{/Meta}');
    expect(content).toHaveValue('**one** _two_ [three](https://)');
    // The URL is selected, to be typed over.
    expect(content.value.slice(content.selectionStart, content.selectionEnd)).toBe('https://');
    await userEvent.keyboard('https://example.com');
    expect(content).toHaveValue('**one** _two_ [three](https://example.com)');
  });

  it('is one tab stop; the arrow keys, Home and End move along the toolbar', async () => {
    renderEditor();
    const buttons = within(screen.getByRole('toolbar', { name: 'Formatting' })).getAllByRole('button');
    expect(buttons.filter((b) => b.tabIndex === 0)).toEqual([buttons[0]]);
    buttons[0]!.focus();
    await userEvent.keyboard('{ArrowRight}');
    expect(tool('Italic')).toHaveFocus();
    await userEvent.keyboard('{ArrowLeft}{ArrowLeft}');
    expect(tool('Numbered list')).toHaveFocus();
    await userEvent.keyboard('{Home}');
    expect(tool('Bold')).toHaveFocus();
    await userEvent.keyboard('{End}');
    expect(tool('Numbered list')).toHaveFocus();
    expect(buttons.filter((b) => b.tabIndex === 0)).toEqual([tool('Numbered list')]);
    await userEvent.keyboard('{Enter}');
    expect(screen.getByRole('textbox', { name: 'Content' })).toHaveValue('1. ');
  });

  it('previews the Markdown as the article page renders it, as it is typed', async () => {
    const { content, preview } = renderEditor();
    expect(preview).toHaveTextContent('Nothing to preview yet.');
    fireEvent.change(content, { target: { value: '# Why automate\n\nSome **strong** words and a [link](https://example.org).\n\n- one\n- two' } });
    // The article's scale: a Markdown h1 is the page's h2 under the article's title.
    expect(await within(preview).findByRole('heading', { level: 2, name: 'Why automate' })).toBeInTheDocument();
    expect(within(preview).getByText('strong').tagName).toBe('STRONG');
    expect(within(preview).getByRole('link', { name: 'link' })).toHaveAttribute('href', 'https://example.org');
    expect(within(preview).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['one', 'two']);
  });

  it('keeps the XSS corpus inert in the preview: shown as text, no script, handler or unsafe URL', async () => {
    const marker = vi.fn();
    vi.stubGlobal(XSS_MARKER, marker);
    const corpus = fullCorpus('preview');
    const { content, preview } = renderEditor();
    fireEvent.change(content, { target: { value: corpusMarkdown('Corpus', corpus) } });
    await within(preview).findByRole('heading', { name: 'Corpus' });

    const normalise = (text: string) => text.replace(/\s+/g, ' ').trim();
    const shown = normalise(preview.textContent ?? '');
    for (const payload of corpus) expect(shown, payload.id).toContain(normalise(markdownShows(payload)));

    const findings: string[] = [];
    for (const el of preview.querySelectorAll('*')) {
      if (['script', 'style', 'iframe', 'object', 'embed', 'svg', 'math', 'form', 'base', 'meta', 'link', 'input', 'template'].includes(el.localName)) findings.push(`<${el.localName}>`);
      for (const { name, value } of el.attributes) {
        if (name.startsWith('on') || name === 'srcdoc' || name === 'style') findings.push(`${name} on <${el.localName}>`);
        if (['href', 'src', 'action', 'formaction', 'xlink:href', 'data'].includes(name) && !['http:', 'https:', 'mailto:'].includes(new URL(value, 'https://site.test/').protocol)) {
          findings.push(`${name}="${value}" on <${el.localName}>`);
        }
      }
    }
    expect(findings).toEqual([]);
    expect(marker).not.toHaveBeenCalled();
  });
});
