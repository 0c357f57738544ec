/** A grey pulsing placeholder block; hidden from assistive technology (announce loading on the
 * container instead). The pulse stops under prefers-reduced-motion. */
export function Skeleton({ className = '' }: { className?: string }) {
  return <div aria-hidden="true" className={`animate-pulse rounded-md bg-slate-200 motion-reduce:animate-none ${className}`} />;
}
