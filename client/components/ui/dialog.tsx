import { Dialog as RadixDialog } from 'radix-ui';
import { useRef, type ReactNode } from 'react';

export const DialogClose = RadixDialog.Close;

type DialogProps = {
  open: boolean;
  onOpenChange(open: boolean): void;
  title: ReactNode;
  /** Read out with the title when the dialog opens. */
  description: ReactNode;
  children?: ReactNode;
  /** Actions at the bottom, right-aligned on wide screens. Wrap a closing button in DialogClose. */
  footer?: ReactNode;
  /** Width on wide screens: md (forms, confirmations) unless told; lg and xl for wizards and
   * details; full for a view that wants the whole window (a large chart): its height too, its
   * body a column whose children may grow into the room left (flex-1), so nothing scrolls. */
  size?: 'md' | 'lg' | 'xl' | 'full';
};

const SIZES = { md: 'max-w-md', lg: 'max-w-2xl', xl: 'max-w-3xl', full: 'flex h-[90dvh] max-w-none flex-col' } as const;

/** A modal dialog (Radix: focus trap, Escape and outside click close) with an accessible title
 * and description and a close button. It is opened by state, so one dialog can serve several
 * buttons: focus returns to whichever element had it when the dialog opened. */
export function Dialog({ open, onOpenChange, title, description, children, footer, size = 'md' }: DialogProps) {
  const returnFocus = useRef<HTMLElement | null>(null);
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className="fixed inset-0 z-50 bg-slate-900/50" />
        <RadixDialog.Content
          onOpenAutoFocus={() => {
            returnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
          }}
          onCloseAutoFocus={(event) => {
            // Radix would focus a Dialog.Trigger, which a state-opened dialog does not have.
            event.preventDefault();
            returnFocus.current?.focus();
          }}
          className={`fixed top-1/2 left-1/2 z-50 max-h-[90dvh] w-[calc(100%-2rem)] ${SIZES[size]} -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-xl bg-white p-6 shadow-xl focus:outline-none`}>
          <RadixDialog.Title className="pr-8 text-lg font-semibold text-slate-900">{title}</RadixDialog.Title>
          <RadixDialog.Description className="mt-2 text-sm text-slate-600">{description}</RadixDialog.Description>
          {children}
          {footer && <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">{footer}</div>}
          <RadixDialog.Close
            aria-label="Close"
            className="absolute top-4 right-4 rounded-md p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-600"
          >
            <svg aria-hidden="true" viewBox="0 0 24 24" className="size-5" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round">
              <path d="M18 6 6 18M6 6l12 12" />
            </svg>
          </RadixDialog.Close>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}
