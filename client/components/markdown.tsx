import Markdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { articleImageSources, CONTENT_IMAGE_SIZES, parseArticleImageUrl } from '../../contracts/article-image-urls.ts';

// Markdown from people (articles written by admins) and from AI models (chat answers) is
// rendered safely: raw HTML is never interpreted (no rehype-raw; react-markdown shows it as text), URLs
// keep only the http(s), mailto and relative forms, and images need an http(s) source.

const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);
const RELATIVE_BASE = 'https://relative.invalid/';

/** The URL when it is http:, https:, mailto: or relative; '' otherwise (javascript:, data:,
 * vbscript:, ...). Parsed as the browser will parse it, so tabs, newlines and odd case in the
 * scheme (`java\tscript:`) are seen through. */
export function safeUrl(url: string): string {
  try {
    return SAFE_PROTOCOLS.has(new URL(url, RELATIVE_BASE).protocol) ? url : '';
  } catch {
    return '';
  }
}

/** The page's own address on the server, which renders an article page for the browser to
 * hydrate (client/prerender.tsx sets it before each render): links and images resolve against
 * it as they will against the page in the browser. */
let serverPageUrl = 'http://localhost/';

export function setServerPageUrl(url: string): void {
  serverPageUrl = url;
}

const pageUrl = () => (typeof window === 'undefined' ? serverPageUrl : window.location.href);

const resolve = (url: string): URL | null => {
  try {
    return new URL(url, pageUrl());
  } catch {
    return null;
  }
};

/** http(s) and on another origin: opened in a new tab without giving it this window. */
function isExternal(href: string): boolean {
  const url = resolve(href);
  return url !== null && (url.protocol === 'http:' || url.protocol === 'https:') && url.origin !== new URL(pageUrl()).origin;
}

/** The elements in our typography (article scale); a caller may override some. */
export const markdownComponents: Components = {
  h1: ({ node: _node, ...props }) => <h2 className="mt-10 mb-4 text-3xl font-bold text-slate-900" {...props} />,
  h2: ({ node: _node, ...props }) => <h2 className="mt-10 mb-4 text-2xl font-bold text-slate-900" {...props} />,
  h3: ({ node: _node, ...props }) => <h3 className="mt-8 mb-3 text-xl font-semibold text-slate-900" {...props} />,
  h4: ({ node: _node, ...props }) => <h4 className="mt-6 mb-2 text-lg font-semibold text-slate-900" {...props} />,
  h5: ({ node: _node, ...props }) => <h5 className="mt-6 mb-2 font-semibold text-slate-900" {...props} />,
  h6: ({ node: _node, ...props }) => <h6 className="mt-6 mb-2 font-semibold text-slate-700" {...props} />,
  p: ({ node: _node, ...props }) => <p className="my-4 leading-7" {...props} />,
  ul: ({ node: _node, ...props }) => <ul className="my-4 list-disc space-y-1 pl-6 marker:text-slate-400" {...props} />,
  ol: ({ node: _node, ...props }) => <ol className="my-4 list-decimal space-y-1 pl-6 marker:text-slate-500" {...props} />,
  li: ({ node: _node, ...props }) => <li className="leading-7 [&>input]:mr-2" {...props} />,
  blockquote: ({ node: _node, ...props }) => <blockquote className="my-6 border-l-4 border-brand-200 pl-4 text-slate-600 italic" {...props} />,
  hr: () => <hr className="my-10 border-slate-200" />,
  a: ({ node: _node, href = '', ...props }) =>
    href ? (
      <a
        href={href}
        className="font-medium text-brand-700 underline underline-offset-2 hover:text-brand-800"
        {...(isExternal(href) ? { target: '_blank', rel: 'noopener noreferrer' } : {})}
        {...props}
      />
    ) : (
      // An unsafe URL was removed: keep the text, drop the link.
      <span>{props.children}</span>
    ),
  img: ({ node: _node, src, alt }) => {
    const url = typeof src === 'string' && src ? resolve(src) : null;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return alt ? <span>{alt}</span> : null;
    // Our uploaded images (docs/decisions/0099): every width, and the size the URL's fragment gives.
    const ours = parseArticleImageUrl(src as string);
    if (ours?.width && ours.height) {
      const image = articleImageSources({ id: ours.id, width: ours.width, height: ours.height });
      return <img {...image} alt={alt ?? ''} sizes={CONTENT_IMAGE_SIZES} loading="lazy" decoding="async" className="my-6 h-auto max-w-full rounded-lg" />;
    }
    return <img src={src as string} alt={alt ?? ''} loading="lazy" decoding="async" referrerPolicy="no-referrer" className="my-6 h-auto max-w-full rounded-lg" />;
  },
  pre: ({ node: _node, ...props }) => (
    <pre
      className="my-6 overflow-x-auto rounded-lg bg-slate-900 p-4 text-sm leading-6 text-slate-100 [&_code]:bg-transparent [&_code]:p-0 [&_code]:text-inherit"
      {...props}
    />
  ),
  code: ({ node: _node, ...props }) => <code className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-[0.9em] text-slate-800" {...props} />,
  table: ({ node: _node, ...props }) => (
    // A wide table scrolls sideways inside its box rather than widening the page.
    <div className="my-6 overflow-x-auto" data-scroll-x>
      <table className="w-full border-collapse text-left text-sm" {...props} />
    </div>
  ),
  thead: ({ node: _node, ...props }) => <thead className="border-b-2 border-slate-300 bg-slate-50" {...props} />,
  th: ({ node: _node, ...props }) => <th className="px-3 py-2 font-semibold text-slate-900" {...props} />,
  td: ({ node: _node, ...props }) => <td className="border-t border-slate-200 px-3 py-2" {...props} />,
  strong: ({ node: _node, ...props }) => <strong className="font-semibold text-slate-900" {...props} />,
};

type SafeMarkdownProps = {
  children: string;
  /** Element overrides on top of markdownComponents. */
  components?: Components;
  className?: string;
};

/** GitHub-flavoured Markdown (tables, task lists, strikethrough, autolinks), safely: no raw
 * HTML, safe URLs only. */
export function SafeMarkdown({ children, components, className }: SafeMarkdownProps) {
  return (
    // A long URL or word breaks rather than widening the page (a phone is 390 px wide).
    <div className={`wrap-break-word ${className ?? ''}`}>
      <Markdown remarkPlugins={[remarkGfm]} urlTransform={safeUrl} components={components ? { ...markdownComponents, ...components } : markdownComponents}>
        {children}
      </Markdown>
    </div>
  );
}

/** Article Markdown at reading size. */
export function ArticleMarkdown({ children }: { children: string }) {
  return <SafeMarkdown className="text-base text-slate-700 sm:text-lg">{children}</SafeMarkdown>;
}

/** An article's body: its Markdown at reading size (the article page's part that loads apart). */
export function ArticleMarkdownBody({ content }: { content: string }) {
  return <ArticleMarkdown>{content}</ArticleMarkdown>;
}
