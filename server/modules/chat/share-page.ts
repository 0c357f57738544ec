import rehypeSanitize, { defaultSchema } from 'rehype-sanitize';
import rehypeStringify from 'rehype-stringify';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { CHAT_PROVIDER_INFO } from '../../../contracts/chat.ts';
import type { TCitation } from '../../../contracts/documents.ts';
import { escapeHtml } from '../../lib/http/html.ts';
import type { SharedConversation, SharedMessage } from './share-links.service.ts';

/**
 * The shared page's Content-Security-Policy: no script at all, nothing loaded from elsewhere;
 * images from this origin only (the snapshot's, through the share's image route); the page's
 * one style element inline.
 */
export const SHARE_PAGE_CSP =
  "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const STYLE = `body{font:16px/1.6 system-ui,sans-serif;color:#0f172a;background:#f8fafc;margin:0}
main{max-width:48rem;margin:0 auto;padding:2rem 1rem}
header p{color:#475569;margin:.25rem 0 1.5rem}
article{background:#fff;border:1px solid #e2e8f0;border-radius:.75rem;padding:1rem 1.25rem;margin:1rem 0}
article.user{background:#eef2ff}
h2.who{font-size:.875rem;color:#334155;margin:0 0 .5rem}
pre{overflow-x:auto;background:#0f172a;color:#f8fafc;padding:.75rem;border-radius:.5rem}
code{font-family:ui-monospace,monospace}
table{border-collapse:collapse}td,th{border:1px solid #cbd5e1;padding:.25rem .5rem}
img.shared{max-width:100%;height:auto;border-radius:.5rem}
.note{color:#475569;font-style:italic}
ol.sources{font-size:.875rem;color:#334155}
footer{color:#64748b;font-size:.875rem;margin-top:2rem}`;

/**
 * Markdown as the app renders it (GFM), safe for a page of its own: raw HTML in the text is
 * dropped (remark-rehype without allowDangerousHtml), then the tree is sanitised with GitHub's
 * schema (no script, no event attributes, http(s) and mailto links only), and images from the
 * text are removed (they would load from anywhere; the CSP would block them too).
 */
const markdownToHtml = unified()
  .use(remarkParse)
  .use(remarkGfm)
  .use(remarkRehype)
  .use(rehypeSanitize, { ...defaultSchema, tagNames: (defaultSchema.tagNames ?? []).filter((tag) => tag !== 'img') })
  .use(rehypeStringify);

function markdown(text: string): string {
  // Links leave without the page's address (its token).
  return String(markdownToHtml.processSync(text)).replace(/<a /g, '<a rel="nofollow noopener noreferrer" ');
}

function sources(citations: TCitation[]): string {
  const items = citations.map((c) => {
    const label =
      c.kind === 'web'
        ? /^https?:\/\//i.test(c.url)
          ? `<a href="${escapeHtml(c.url)}" rel="nofollow noopener noreferrer">${escapeHtml(c.title || c.url)}</a>`
          : escapeHtml(c.title || c.url)
        : escapeHtml(`${c.fileName}${c.page !== null ? `, page ${c.page}` : ''}${c.sheet ? `, sheet ${c.sheet}` : ''}${c.heading ? ` — ${c.heading}` : ''}`);
    return `<li value="${c.n}">${label}</li>`;
  });
  return `<ol class="sources" aria-label="Sources">${items.join('')}</ol>`;
}

function message(m: SharedMessage, assistant: string, imageUrl: (id: string) => string): string {
  const who = m.role === 'user' ? 'Question' : `${assistant}${m.model ? ` (${m.model})` : ''}`;
  const images = (m.imageIds ?? []).map((id) => `<img class="shared" src="${escapeHtml(imageUrl(id))}" alt="An image of the chat">`).join('');
  return [
    `<article class="${m.role === 'user' ? 'user' : 'assistant'}">`,
    `<h2 class="who">${escapeHtml(who)}</h2>`,
    markdown(m.content),
    images,
    m.citations?.length ? sources(m.citations) : '',
    m.note ? `<p class="note">${escapeHtml(m.note)}</p>` : '',
    '</article>',
  ].join('');
}

function document(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex, nofollow"><meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body><main>${body}</main></body></html>`;
}

/** The whole page: a document of its own, not the app (it loads none of the app's scripts). */
export function renderSharePage(shared: SharedConversation, { siteName, imageUrl }: { siteName: string; imageUrl: (id: string) => string }): string {
  const assistant = CHAT_PROVIDER_INFO[shared.provider]?.label ?? shared.provider;
  const title = shared.title || 'Shared chat';
  const header = `<header><h1>${escapeHtml(title)}</h1><p>${escapeHtml(`A chat with ${assistant}, shared read-only on ${shared.createdAt.toISOString().slice(0, 10)}.`)}</p></header>`;
  const footer = `<footer>${escapeHtml(`Shared from ${siteName}. Answers by AI assistants can be wrong.`)}</footer>`;
  return document(`${title} · ${siteName}`, `${header}${shared.messages.map((m) => message(m, assistant, imageUrl)).join('')}${footer}`);
}

/** The page a link that is unknown or revoked answers with (404). */
export function renderShareNotFound(siteName: string): string {
  return document(
    `Link not found · ${siteName}`,
    '<h1>This link does not work</h1><p>The shared chat was not found: the link may be mistyped, or its owner revoked it.</p>',
  );
}
