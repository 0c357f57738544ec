import { AlertCircle, LoaderCircle, X } from 'lucide-react';
import { useState } from 'react';
import type { Attachment } from '../hooks/use-attachments.ts';

/**
 * The images attached to the question being written (docs/decisions/0055): a thumbnail each, its
 * upload's state, and a button to take it off. One the server refused shows why, in its words
 * (docs/decisions/0064), read out when it appears, instead of a thumbnail the browser may not draw.
 */
export function ImageAttachments({ items, onRemove, disabled }: { items: readonly Attachment[]; onRemove(key: string): void; disabled: boolean }) {
  if (items.length === 0) return null;
  return (
    <ul aria-label="Images for this question" className="mx-auto mb-2 flex max-w-3xl flex-wrap gap-2">
      {items.map((item, i) => {
        const label = `Image ${i + 1}: ${item.name}`;
        const remove = <RemoveButton label={`Remove image ${i + 1}: ${item.name}`} onClick={() => onRemove(item.key)} disabled={disabled} />;
        if (item.status === 'failed') {
          return (
            <li key={item.key} className="relative flex w-64 max-w-full gap-2 rounded-lg border border-red-300 bg-red-50 py-2 pr-9 pl-2 text-xs leading-snug text-red-900">
              <AlertCircle aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
              <div role="alert" className="min-w-0">
                <p className="font-semibold">
                  Not uploaded: <span className="font-normal break-words">{item.name}</span>
                </p>
                <p className="mt-0.5 break-words">{item.error}</p>
              </div>
              {remove}
            </li>
          );
        }
        return (
          <li key={item.key} className="relative size-20 overflow-hidden rounded-lg border border-slate-300 bg-slate-50">
            <Thumbnail src={item.preview} label={label} />
            {item.status === 'uploading' && (
              <span className="absolute inset-0 flex items-center justify-center bg-white/70 text-slate-700">
                <LoaderCircle aria-hidden="true" className="size-5 animate-spin" />
                <span className="sr-only">Uploading</span>
              </span>
            )}
            {remove}
          </li>
        );
      })}
    </ul>
  );
}

/** The picture as the browser reads it; a file it cannot draw (the server says why) keeps only its name. */
function Thumbnail({ src, label }: { src: string | null; label: string }) {
  const [failed, setFailed] = useState<string | null>(null);
  if (!src || failed === src) return <span className="sr-only">{label}</span>;
  return <img src={src} alt={label} onError={() => setFailed(src)} className="size-full object-cover" />;
}

function RemoveButton({ label, onClick, disabled }: { label: string; onClick(): void; disabled: boolean }) {
  return (
    <button
      type="button"
      onClick={onClick}
      disabled={disabled}
      aria-label={label}
      className="absolute top-0.5 right-0.5 inline-flex size-6 items-center justify-center rounded-full bg-slate-900/75 text-white hover:bg-slate-900 focus-visible:outline-2 focus-visible:outline-brand-600 disabled:opacity-60"
    >
      <X aria-hidden="true" className="size-3.5" />
    </button>
  );
}
