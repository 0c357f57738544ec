import { useEffect, useState } from 'react';
import { CopyButton } from './copy-button.tsx';
import type * as HighlighterModule from '../lib/highlighter.ts';

type Highlighter = typeof HighlighterModule;

let loading: Promise<Highlighter> | null = null;
/** highlight.js loads with the first code block, once. */
const loadHighlighter = (): Promise<Highlighter> => (loading ??= import('../lib/highlighter.ts'));

/** A fenced code block of an answer: its language, a copy button and syntax colours once the
 * highlighter has loaded (plain text until then, for languages it does not know, and while the
 * block is still streaming: `highlight` false). */
export function CodeBlock({ code, language, highlight = true }: { code: string; language: string | null; highlight?: boolean }) {
  const [highlighted, setHighlighted] = useState<{ code: string; language: string; html: string | null } | null>(null);

  useEffect(() => {
    if (!language || !highlight) return;
    let live = true;
    loadHighlighter()
      .then(({ highlight }) => {
        if (live) setHighlighted({ code, language, html: highlight(code, language) });
      })
      .catch((err: unknown) => console.error('Could not load the code highlighter:', err));
    return () => {
      live = false;
    };
  }, [code, language, highlight]);

  const html = highlighted && highlighted.code === code && highlighted.language === language ? highlighted.html : null;
  return (
    <div className="my-3 overflow-hidden rounded-lg bg-slate-900 text-slate-100">
      <div className="flex items-center justify-between border-b border-slate-700 py-1 pr-1 pl-3 text-xs text-slate-300">
        <span>{language ?? 'code'}</span>
        <CopyButton text={code} label="Copy code" className="text-slate-300 hover:bg-slate-800 hover:text-white focus-visible:outline-white" />
      </div>
      <pre className="overflow-x-auto p-3 text-sm leading-6">
        {html !== null ? (
          // highlight.js escapes the code: the HTML is its own spans around escaped text.
          <code className={`hljs language-${language} !bg-transparent !p-0`} dangerouslySetInnerHTML={{ __html: html }} />
        ) : (
          <code>{code}</code>
        )}
      </pre>
    </div>
  );
}
