import { useEffect } from 'react';
import { Toaster as Sonner } from 'sonner';
import { TOAST_DURATION_MS, TOAST_VISIBLE_MAX } from '../../../contracts/constants.ts';

/** SPEC: one toast visible at a time, 5 s each. `onMounted` fires once sonner listens. */
export default function Toaster({ onMounted }: { onMounted: () => void }) {
  useEffect(onMounted, [onMounted]);
  return <Sonner visibleToasts={TOAST_VISIBLE_MAX} duration={TOAST_DURATION_MS} richColors closeButton position="bottom-right" />;
}
