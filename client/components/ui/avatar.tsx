import { useState } from 'react';

const SIZES = { sm: 'size-8 text-sm', lg: 'size-16 text-2xl' } as const;

/**
 * The user's photo, or the first letter of the name, or 'U' (SPEC). Decorative unless `label`
 * is given (inside a labelled button the photo adds nothing for a screen reader).
 */
export function Avatar({ name, src, size = 'sm', label }: { name: string; src?: string | null; size?: keyof typeof SIZES; label?: string }) {
  const [failedSrc, setFailedSrc] = useState<string | null>(null);
  const classes = `${SIZES[size]} shrink-0 rounded-full`;
  if (src && failedSrc !== src) {
    return (
      <img
        src={src}
        alt={label ?? ''}
        className={`${classes} object-cover`}
        referrerPolicy="no-referrer"
        decoding="async"
        onError={() => setFailedSrc(src)}
      />
    );
  }
  const initial = (name.trim().charAt(0) || 'U').toUpperCase();
  return (
    <span
      className={`${classes} inline-flex items-center justify-center bg-brand-600 font-semibold text-white`}
      {...(label ? { role: 'img', 'aria-label': label } : { 'aria-hidden': true })}
    >
      {initial}
    </span>
  );
}
