import type { HTMLAttributes } from 'react';

type CardElement = 'div' | 'article' | 'section' | 'li';

/** A white, bordered surface. `as` picks the element so lists of cards keep their semantics. */
export function Card({ as: Tag = 'div', className = '', ...props }: HTMLAttributes<HTMLElement> & { as?: CardElement }) {
  return <Tag className={`rounded-xl border border-slate-200 bg-white shadow-sm ${className}`} {...props} />;
}
