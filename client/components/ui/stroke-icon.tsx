import type { ReactNode } from 'react';

/**
 * A 24x24 line icon drawn inline (lucide's geometry and stroke style). Used on the landing
 * page's critical path instead of lucide-react, whose runtime would cost the page's JavaScript
 * budget more than the few icons it draws; lazy screens use lucide-react freely.
 */
export function StrokeIcon({ children, className = 'size-6' }: { children: ReactNode; className?: string }) {
  return (
    <svg
      xmlns="http://www.w3.org/2000/svg"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      className={className}
    >
      {children}
    </svg>
  );
}
