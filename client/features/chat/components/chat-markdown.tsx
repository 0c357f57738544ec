import { memo, useMemo, type ComponentProps, type ComponentType } from 'react';
import type { Components, ExtraProps } from 'react-markdown';
import { SafeMarkdown, markdownComponents, safeUrl } from '../../../components/markdown.tsx';
import { markdownBlocks } from '../lib/markdown-blocks.ts';
import { CodeBlock } from './code-block.tsx';
import { citationNumber, linkCitations } from '../lib/citation-links.ts';
import { CitationButton, useAnswerSources } from './answer-sources.tsx';

type HastNode = { type: string; value?: string; tagName?: string; properties?: Record<string, unknown>; children?: HastNode[] };

const textOf = (node: HastNode): string => (node.type === 'text' ? (node.value ?? '') : (node.children ?? []).map(textOf).join(''));

/** The code element's text and `language-xxx` class of a fenced block's <pre>. */
function codeOf(node: ExtraProps['node']): { code: string; language: string | null } {
  const code = (node as HastNode | undefined)?.children?.find((child) => child.type === 'element' && child.tagName === 'code');
  if (!code) return { code: node ? textOf(node as HastNode) : '', language: null };
  const classes = code.properties?.className;
  const languageClass = Array.isArray(classes) ? classes.find((c): c is string => typeof c === 'string' && c.startsWith('language-')) : undefined;
  return { code: textOf(code).replace(/\n$/, ''), language: languageClass ? languageClass.slice('language-'.length).toLowerCase() : null };
}

// Answers are sized for the chat (the article scale is too large) and code blocks get the
// highlighter. Images in an answer are not loaded: a model (or a prompt injected into it) could
// point them anywhere; they show as links instead. Generated images come separately.
const components: Components = {
  h1: ({ node: _node, ...props }) => <h2 className="mt-4 mb-2 text-xl font-bold text-slate-900" {...props} />,
  h2: ({ node: _node, ...props }) => <h3 className="mt-4 mb-2 text-lg font-bold text-slate-900" {...props} />,
  h3: ({ node: _node, ...props }) => <h4 className="mt-3 mb-2 font-semibold text-slate-900" {...props} />,
  p: ({ node: _node, ...props }) => <p className="my-2 leading-7" {...props} />,
  ul: ({ node: _node, ...props }) => <ul className="my-2 list-disc space-y-1 pl-6 marker:text-slate-400" {...props} />,
  ol: ({ node: _node, ...props }) => <ol className="my-2 list-decimal space-y-1 pl-6 marker:text-slate-500" {...props} />,
  pre: ({ node }) => {
    const { code, language } = codeOf(node);
    return <CodeBlock code={code} language={language} />;
  },
  img: ({ node: _node, src, alt }) => {
    const url = typeof src === 'string' ? safeUrl(src) : '';
    const text = alt || 'image';
    return url ? (
      <a href={url} target="_blank" rel="noopener noreferrer" className="font-medium text-brand-700 underline underline-offset-2">
        {text}
      </a>
    ) : (
      <span>{text}</span>
    );
  },
};

/** Any other link in an answer, as Markdown shows links everywhere. */
const MarkdownLink = markdownComponents.a as ComponentType<ComponentProps<'a'> & ExtraProps>;

/** While a block is still being written its code is left plain: highlighting it again for every
 * word is most of what a streamed word would cost. It is highlighted once the block is done. */
const liveComponents: Components = {
  ...components,
  pre: ({ node }) => {
    const { code, language } = codeOf(node);
    return <CodeBlock code={code} language={language} highlight={false} />;
  },
};

/** An assistant's answer: GitHub-flavoured Markdown, safely, with highlighted code blocks. */
export function ChatMarkdown({ children, live = false }: { children: string; live?: boolean }) {
  // An answer with sources (issue 32): each [n] it cites is a button opening that source.
  const sources = useAnswerSources();
  const count = sources?.count ?? 0;
  const base = live ? liveComponents : components;
  const withCitations = useMemo<Components | null>(
    () =>
      count === 0
        ? null
        : {
            ...base,
            a: (props) => {
              const n = citationNumber(props.href);
              return n !== null ? <CitationButton n={n} /> : <MarkdownLink {...props} />;
            },
          },
    [base, count],
  );
  return (
    <SafeMarkdown components={withCitations ?? base} className="text-[15px] text-slate-800 [&>*:first-child]:mt-0 [&>*:last-child]:mb-0">
      {count > 0 ? linkCitations(children, count) : children}
    </SafeMarkdown>
  );
}

const FinishedBlock = memo(function FinishedBlock({ text }: { text: string }) {
  return <ChatMarkdown>{text}</ChatMarkdown>;
});

/**
 * An answer as it streams: its finished blocks render once each, and only the last, still
 * growing, is parsed again for each new word (lib/markdown-blocks.ts). When the answer ends it
 * is rendered whole by ChatMarkdown.
 */
export function StreamingMarkdown({ children }: { children: string }) {
  const blocks = markdownBlocks(children);
  return (
    <div className="space-y-3">
      {blocks.map((block, i) =>
        i < blocks.length - 1 ? (
          <FinishedBlock key={i} text={block} />
        ) : (
          <ChatMarkdown key={i} live>
            {block}
          </ChatMarkdown>
        ),
      )}
    </div>
  );
}
