import type { HTMLAttributes } from 'react';

export type BadgeVariant = 'neutral' | 'brand' | 'success' | 'warning' | 'danger';

// Text colours are the 700/800 shades on their 50/100 backgrounds: AA contrast at badge size.
const VARIANTS: Record<BadgeVariant, string> = {
  neutral: 'bg-slate-100 text-slate-700',
  brand: 'bg-brand-50 text-brand-700',
  success: 'bg-emerald-100 text-emerald-800',
  warning: 'bg-amber-100 text-amber-900',
  danger: 'bg-red-100 text-red-800',
};

/** A short label on one line; `wrap` for text people write (an article's category), which may
 * be longer than the line and then wraps, a long word anywhere. */
export function Badge({ variant = 'neutral', wrap = false, className = '', ...props }: HTMLAttributes<HTMLSpanElement> & { variant?: BadgeVariant; wrap?: boolean }) {
  return (
    <span
      className={`inline-flex items-center gap-1 rounded-full px-2.5 py-0.5 text-xs font-medium ${wrap ? 'max-w-full wrap-anywhere' : 'whitespace-nowrap'} ${VARIANTS[variant]} ${className}`}
      {...props}
    />
  );
}
