import '../../../lib/zod-csp.ts';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS, usageTotals, type TChatProvider, type TChatUsagePurpose, type TChatUsageReport, type TChatUsageRow } from '../../../../contracts/chat.ts';
import { Card } from '../../../components/ui/card.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';

export const USAGE_DAYS = [7, 30, 90] as const;
export const usageKey = (days: number) => [`/api/admin/usage?days=${days}`] as const;

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 4 });
const count = new Intl.NumberFormat('en-US');

/** Cost in USD: cents, or four decimals for the fractions of a cent small calls cost. */
export const formatUsd = (value: number): string => usd.format(value);

/** Alert briefs (docs/decisions/0044), condition drafts (docs/decisions/0075) and documents' embeddings (docs/decisions/0081) spend the same budget as chats; their rows say so. */
const PURPOSE_NOTE: Partial<Record<TChatUsagePurpose, string>> = { 'alert-brief': 'Alert briefs', 'condition-draft': 'Condition drafts', embedding: 'Embeddings' };
const rowKey = (row: TChatUsageRow) => `${row.user.id}|${row.provider}|${row.model}|${row.purpose}`;

const providerLabel = (id: string) => (CHAT_PROVIDERS.includes(id as TChatProvider) ? CHAT_PROVIDER_INFO[id as TChatProvider].label : id);

type Row = Partial<TChatUsageRow> & { userId?: string; email?: string; name?: string };

/** The rows, whether the server nests the user ({user: {...}}) or flattens it. */
function normalise(data: unknown): { rows: TChatUsageRow[]; totals: TChatUsageReport['totals'] } {
  const raw: Row[] = Array.isArray(data) ? data : data && typeof data === 'object' && 'rows' in data && Array.isArray(data.rows) ? data.rows : [];
  const rows = raw.map((r) => ({
    user: r.user ?? { id: r.userId ?? '', email: r.email ?? '', name: r.name ?? '' },
    provider: r.provider ?? '',
    model: r.model ?? '',
    purpose: r.purpose ?? 'chat',
    requests: r.requests ?? 0,
    failed: r.failed ?? 0,
    stopped: r.stopped ?? 0,
    estimated: r.estimated ?? 0,
    inputTokens: r.inputTokens ?? 0,
    outputTokens: r.outputTokens ?? 0,
    images: r.images ?? 0,
    costUsd: r.costUsd ?? 0,
  }));
  return { rows, totals: usageTotals(rows) };
}


/** What became of a row's calls besides answering: failed, stopped by the person, tokens estimated (docs/decisions/0061). */
function callNotes(row: { failed?: number; stopped?: number; estimated?: number }): string[] {
  return [
    ...(row.failed ? [`${count.format(row.failed)} failed`] : []),
    ...(row.stopped ? [`${count.format(row.stopped)} stopped`] : []),
    ...(row.estimated ? [`${count.format(row.estimated)} estimated`] : []),
  ];
}

const TH = 'px-4 py-3 font-semibold';
const NUM = 'px-4 py-3 text-right tabular-nums whitespace-nowrap';

/** /admin/usage (admin): AI requests, tokens, images and estimated cost per user, provider and model. */
export default function UsagePage() {
  usePageTitle('Usage');
  const [days, setDays] = useState<number>(30);
  const selectId = useId();
  const usage = useQuery({ queryKey: usageKey(days), select: normalise });

  return (
    <div className="mx-auto max-w-6xl px-4 py-10 sm:px-6 lg:px-8">
      <div className="flex flex-wrap items-end justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold text-slate-900">Usage</h1>
          <p className="mt-2 text-slate-600">AI chat requests, alert briefs and condition drafts, tokens, generated images and estimated cost (list prices, not a bill) per user and model.</p>
        </div>
        <div className="flex items-center gap-2">
          <label htmlFor={selectId} className="text-sm font-medium text-slate-700">
            Period
          </label>
          <select
            id={selectId}
            value={days}
            onChange={(event) => setDays(Number(event.target.value))}
            className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-600"
          >
            {USAGE_DAYS.map((d) => (
              <option key={d} value={d}>
                Last {d} days
              </option>
            ))}
          </select>
        </div>
      </div>

      {usage.isPending ? (
        <div className="mt-10 flex justify-center">
          <Spinner label="Loading usage" />
        </div>
      ) : usage.isError ? (
        <LoadFailed what="Usage" error={usage.error} onRetry={() => void usage.refetch()} />
      ) : usage.data.rows.length === 0 ? (
        <p className="mt-8 text-slate-600">No AI usage in the last {days} days.</p>
      ) : (
        <>
          {usage.data.rows.some((row) => row.estimated > 0) && (
            <p className="mt-6 text-sm text-slate-600">
              Estimated: calls whose provider reported no token counts (a server that does not report them, an answer whose connection was lost, one a server was writing when it stopped); their tokens are our estimate from the text.
            </p>
          )}
          <Card className="mt-8 overflow-x-auto">
            {/* A phone gets one block per user and model, its figures below; wider screens the table. */}
            <ul aria-label={`AI usage in the last ${days} days`} className="divide-y divide-slate-200 sm:hidden">
              {usage.data.rows.map((row) => (
                <li key={rowKey(row)} className="p-4 text-sm">
                  <p className="font-medium break-words text-slate-900">{row.user.name || row.user.email}</p>
                  {row.user.name && <p className="text-xs break-all text-slate-600">{row.user.email}</p>}
                  <p className="mt-1 text-slate-700">
                    {providerLabel(row.provider)} · <span className="font-mono text-xs break-all">{row.model}</span>
                    {PURPOSE_NOTE[row.purpose] && <span className="text-xs text-slate-600"> · {PURPOSE_NOTE[row.purpose]}</span>}
                  </p>
                  <Figures figures={row} />
                </li>
              ))}
              <li className="bg-slate-50 p-4 text-sm">
                <p className="font-semibold text-slate-900">Total</p>
                <Figures figures={usage.data.totals} />
              </li>
            </ul>
            <table className="hidden w-full text-left text-sm sm:table">
              <caption className="sr-only">AI usage in the last {days} days</caption>
              <thead className="border-b border-slate-200 bg-slate-50 text-slate-700">
                <tr>
                  <th scope="col" className={TH}>User</th>
                  <th scope="col" className={TH}>Provider</th>
                  <th scope="col" className={TH}>Model</th>
                  <th scope="col" className={`${TH} text-right`}>Requests</th>
                  <th scope="col" className={`${TH} text-right`}>Input tokens</th>
                  <th scope="col" className={`${TH} text-right`}>Output tokens</th>
                  <th scope="col" className={`${TH} text-right`}>Images</th>
                  <th scope="col" className={`${TH} text-right`}>Cost</th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-200">
                {usage.data.rows.map((row) => (
                  <tr key={rowKey(row)}>
                    <th scope="row" className="px-4 py-3 font-medium text-slate-900">
                      <span className="block">{row.user.name || row.user.email}</span>
                      {row.user.name && <span className="block text-xs font-normal break-all text-slate-600">{row.user.email}</span>}
                    </th>
                    <td className="px-4 py-3 text-slate-700">{providerLabel(row.provider)}</td>
                    <td className="px-4 py-3 font-mono text-xs text-slate-700">
                      {row.model}
                      {PURPOSE_NOTE[row.purpose] && <span className="block font-sans text-slate-600">{PURPOSE_NOTE[row.purpose]}</span>}
                    </td>
                    <td className={NUM}>
                      {count.format(row.requests)}
                      {callNotes(row).map((note) => (
                        <span key={note} className="block text-xs text-slate-600">
                          {note}
                        </span>
                      ))}
                    </td>
                    <td className={NUM}>{count.format(row.inputTokens)}</td>
                    <td className={NUM}>{count.format(row.outputTokens)}</td>
                    <td className={NUM}>{count.format(row.images)}</td>
                    <td className={NUM}>{formatUsd(row.costUsd)}</td>
                  </tr>
                ))}
              </tbody>
              <tfoot className="border-t-2 border-slate-300 bg-slate-50 font-semibold text-slate-900">
                <tr>
                  <th scope="row" colSpan={3} className="px-4 py-3">
                    Total
                  </th>
                  <td className={NUM}>{count.format(usage.data.totals.requests)}</td>
                  <td className={NUM}>{count.format(usage.data.totals.inputTokens)}</td>
                  <td className={NUM}>{count.format(usage.data.totals.outputTokens)}</td>
                  <td className={NUM}>{count.format(usage.data.totals.images)}</td>
                  <td className={NUM}>{formatUsd(usage.data.totals.costUsd)}</td>
                </tr>
              </tfoot>
            </table>
          </Card>
        </>
      )}
    </div>
  );
}

/** The numbers of a row or of the total, labelled, for the phone's blocks. */
function Figures({ figures }: { figures: TChatUsageReport['totals'] & { failed?: number; stopped?: number; estimated?: number } }) {
  const notes = callNotes(figures);
  const items: Array<[string, string]> = [
    ['Requests', `${count.format(figures.requests)}${notes.length > 0 ? ` (${notes.join(', ')})` : ''}`],
    ['Input tokens', count.format(figures.inputTokens)],
    ['Output tokens', count.format(figures.outputTokens)],
    ['Images', count.format(figures.images)],
    ['Cost', formatUsd(figures.costUsd)],
  ];
  return (
    <dl className="mt-2 grid grid-cols-2 gap-x-4 gap-y-1">
      {items.map(([term, value]) => (
        <div key={term} className="flex justify-between gap-2">
          <dt className="text-slate-600">{term}</dt>
          <dd className="font-medium text-slate-900 tabular-nums">{value}</dd>
        </div>
      ))}
    </dl>
  );
}
