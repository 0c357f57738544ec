import { AlertCircle, LoaderCircle, X } from 'lucide-react';
import type { Attachment } from '../hooks/use-attachments.ts';

/**
 * The images attached to the question being written (docs/decisions/0055): a thumbnail each, its
 * upload's state, and a button to take it off.
 */
export function ImageAttachments({ items, onRemove, disabled }: { items: readonly Attachment[]; onRemove(key: string): void; disabled: boolean }) {
  if (items.length === 0) return null;
  return (
    <ul aria-label="Images for this question" className="mx-auto mb-2 flex max-w-3xl flex-wrap gap-2">
      {items.map((item, i) => {
        const label = `Image ${i + 1}: ${item.name}`;
        return (
          <li key={item.key} className="relative size-20 overflow-hidden rounded-lg border border-slate-300 bg-slate-50">
            {item.preview ? <img src={item.preview} alt={label} className="size-full object-cover" /> : <span className="sr-only">{label}</span>}
            {item.status === 'uploading' && (
              <span className="absolute inset-0 flex items-center justify-center bg-white/70 text-slate-700">
                <LoaderCircle aria-hidden="true" className="size-5 animate-spin" />
                <span className="sr-only">Uploading</span>
              </span>
            )}
            {item.status === 'failed' && (
              <span className="absolute inset-x-0 bottom-0 flex items-center gap-1 bg-red-50/95 px-1 py-0.5 text-[0.65rem] leading-tight text-red-800" title={item.error}>
                <AlertCircle aria-hidden="true" className="size-3" />
                <span>Not uploaded</span>
                <span className="sr-only">: {item.error}</span>
              </span>
            )}
            <button
              type="button"
              onClick={() => onRemove(item.key)}
              disabled={disabled}
              aria-label={`Remove image ${i + 1}: ${item.name}`}
              className="absolute top-0.5 right-0.5 inline-flex size-6 items-center justify-center rounded-full bg-slate-900/75 text-white hover:bg-slate-900 focus-visible:outline-2 focus-visible:outline-brand-600 disabled:opacity-60"
            >
              <X aria-hidden="true" className="size-3.5" />
            </button>
          </li>
        );
      })}
    </ul>
  );
}
