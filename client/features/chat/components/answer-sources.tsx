import { useQuery } from '@tanstack/react-query';
import { ExternalLink, FileText } from 'lucide-react';
import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import type { TCitation } from '../../../../contracts/documents.ts';
import { Dialog } from '../../../components/ui/dialog.tsx';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { getPassage } from '../api/chat-api.ts';

/** The sources of the answer being shown (issue 32): how many its [n] may point at, and how to open one. */
type SourcesValue = { count: number; open(n: number): void };
const SourcesContext = createContext<SourcesValue | null>(null);

/** The answer's sources for its Markdown, which makes each cited [n] a button; null outside an answer with sources. */
export const useAnswerSources = () => useContext(SourcesContext);

/** Where a passage sits in its file, in words: "page 3, sheet Totals, Payment terms". */
export function whereIn(c: { page: number | null; sheet: string | null; heading: string | null }): string {
  return [c.page !== null ? `page ${c.page}` : null, c.sheet !== null ? `sheet ${c.sheet}` : null, c.heading].filter(Boolean).join(', ');
}

const citationLabel = (c: TCitation) => (c.kind === 'web' ? c.title || c.url : [c.fileName, whereIn(c)].filter(Boolean).join(', '));

/**
 * An answer with sources (issue 32, docs/decisions/0081): its text (given here so its [n] open
 * the source), then how the sources were found when that limits the answer, and the list of
 * sources, each a button opening it: a document's passage with its file, page and the text
 * around it, or a web page's title and address.
 */
export function AnswerSources({ citations, note, children }: { citations: readonly TCitation[]; note?: string; children: ReactNode }) {
  const [opened, setOpened] = useState<TCitation | null>(null);
  const open = useCallback((n: number) => setOpened(citations.find((c) => c.n === n) ?? null), [citations]);
  const value = useMemo(() => ({ count: citations.reduce((max, c) => Math.max(max, c.n), 0), open }), [citations, open]);
  return (
    <SourcesContext.Provider value={value}>
      {children}
      {note && <p className="mt-2 text-sm text-amber-800 italic">{note}</p>}
      {citations.length > 0 && (
        <section aria-label="Sources" className="mt-3 border-t border-slate-200 pt-2">
          <h3 className="text-xs font-semibold tracking-wide text-slate-600 uppercase">Sources</h3>
          <ol className="mt-1 space-y-1 text-sm">
            {citations.map((c) => (
              <li key={c.n}>
                <button
                  type="button"
                  onClick={() => setOpened(c)}
                  className="inline-flex max-w-full items-start gap-1.5 rounded text-left text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-brand-600"
                >
                  <span className="shrink-0 font-medium">[{c.n}]</span>
                  {c.kind === 'web' ? <ExternalLink aria-hidden="true" className="mt-0.5 size-3.5 shrink-0" /> : <FileText aria-hidden="true" className="mt-0.5 size-3.5 shrink-0" />}
                  <span className="min-w-0 wrap-anywhere">{citationLabel(c)}</span>
                </button>
              </li>
            ))}
          </ol>
        </section>
      )}
      <SourceDialog citation={opened} onClose={() => setOpened(null)} />
    </SourcesContext.Provider>
  );
}

/** A cited [n] in an answer's text: a button opening its source. */
export function CitationButton({ n }: { n: number }) {
  const sources = useAnswerSources();
  if (!sources) return <span>[{n}]</span>;
  return (
    <button
      type="button"
      onClick={() => sources.open(n)}
      aria-label={`Source ${n}`}
      className="mx-0.5 rounded px-0.5 align-super text-xs font-semibold text-brand-700 hover:bg-brand-50 hover:underline focus-visible:outline-2 focus-visible:outline-brand-600"
    >
      [{n}]
    </button>
  );
}

function SourceDialog({ citation, onClose }: { citation: TCitation | null; onClose(): void }) {
  return (
    <Dialog
      open={citation !== null}
      onOpenChange={(open) => !open && onClose()}
      size="lg"
      title={citation ? `Source ${citation.n}: ${citation.kind === 'web' ? citation.title || citation.url : citation.fileName}` : ''}
      description={citation?.kind === 'web' ? 'A web page the answer read.' : citation ? ['A passage of your document', whereIn(citation)].filter(Boolean).join(', ') + '.' : ''}
    >
      {citation?.kind === 'web' && (
        <div className="mt-4 space-y-3 text-sm">
          <p className="whitespace-pre-wrap text-slate-800">{citation.snippet}</p>
          <a href={citation.url} target="_blank" rel="noopener noreferrer" className="inline-flex max-w-full items-center gap-1 font-medium text-brand-700 underline underline-offset-2">
            <span className="wrap-anywhere">{citation.url}</span>
            <ExternalLink aria-hidden="true" className="size-3.5 shrink-0" />
            <span className="sr-only">(opens in a new tab)</span>
          </a>
        </div>
      )}
      {citation?.kind === 'document' && <PassageText passageId={citation.passageId} />}
    </Dialog>
  );
}

/** The cited passage, marked, with the text before and after it. */
function PassageText({ passageId }: { passageId: string }) {
  const passage = useQuery({ queryKey: ['/api/documents/passages', passageId], queryFn: ({ signal }) => getPassage(passageId, signal), retry: false });
  if (passage.isPending) return <Spinner label="Loading the passage" className="mt-4" />;
  if (passage.isError) return <LoadFailed className="mt-4" what="The passage" error={passage.error} onRetry={() => void passage.refetch()} />;
  const { before, text, after } = passage.data;
  return (
    <div className="mt-4 max-h-[60dvh] overflow-y-auto rounded-lg border border-slate-200 bg-slate-50 p-3 text-sm leading-6 whitespace-pre-wrap text-slate-700">
      {before && <span>{before} </span>}
      <mark className="rounded bg-amber-100 px-0.5 text-slate-900">{text}</mark>
      {after && <span> {after}</span>}
    </div>
  );
}
