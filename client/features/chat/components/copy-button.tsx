import { Check, Copy } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { notify } from '../../../lib/notify.ts';

/** SPEC section 9: the check mark stays 2 seconds. */
export const COPY_CONFIRM_MS = 2000;

/** Copies text to the clipboard; shows a check mark (and says 'Copied' to screen readers) for
 * 2 seconds. */
export function CopyButton({ text, label, className = '' }: { text: string; label: string; className?: string }) {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const onCopy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch (err) {
      console.error('Could not copy to the clipboard:', err);
      notify.error('Copy failed', 'Your browser did not allow copying to the clipboard.');
      return;
    }
    setCopied(true);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), COPY_CONFIRM_MS);
  };

  return (
    <button
      type="button"
      onClick={onCopy}
      aria-label={copied ? 'Copied' : label}
      title={copied ? 'Copied' : label}
      className={`inline-flex size-8 items-center justify-center rounded-md focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 ${className}`}
    >
      {copied ? <Check aria-hidden="true" data-testid="copied" className="size-4 text-emerald-600" /> : <Copy aria-hidden="true" className="size-4" />}
    </button>
  );
}
