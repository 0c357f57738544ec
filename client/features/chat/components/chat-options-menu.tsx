import { Download, EllipsisVertical, Share2, SlidersHorizontal } from 'lucide-react';
import { DropdownMenu } from 'radix-ui';

type Props = {
  /** Export needs a chat with messages. */
  canExport: boolean;
  onExport(format: 'md' | 'json'): void;
  /** Opens the chat's settings (system prompt, temperature, presets); absent: not offered. */
  onSettings?: () => void;
  /** Opens Share (a link to the chat, and the user's shared links; issue 32); absent: not offered. */
  onShare?: () => void;
};

const ITEM =
  'flex cursor-default items-center gap-2 rounded-md px-3 py-2 text-sm text-slate-800 outline-none select-none data-[disabled]:pointer-events-none data-[disabled]:opacity-50 data-[highlighted]:bg-slate-100';

/** The open chat's menu: its settings, share it as a link, export it as a file. */
export function ChatOptionsMenu({ canExport, onExport, onSettings, onShare }: Props) {
  return (
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger
        aria-label="Chat options"
        title="Chat options"
        className="inline-flex size-10 items-center justify-center rounded-md text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-brand-600"
      >
        <EllipsisVertical aria-hidden="true" className="size-5" />
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content align="end" sideOffset={4} className="z-50 min-w-52 rounded-lg border border-slate-200 bg-white p-1 shadow-lg">
          {onSettings && (
            <DropdownMenu.Item className={ITEM} onSelect={onSettings}>
              <SlidersHorizontal aria-hidden="true" className="size-4" /> Chat settings
            </DropdownMenu.Item>
          )}
          {onShare && (
            <DropdownMenu.Item className={ITEM} onSelect={onShare}>
              <Share2 aria-hidden="true" className="size-4" /> Share…
            </DropdownMenu.Item>
          )}
          <DropdownMenu.Item className={ITEM} disabled={!canExport} onSelect={() => onExport('md')}>
            <Download aria-hidden="true" className="size-4" /> Export as Markdown
          </DropdownMenu.Item>
          <DropdownMenu.Item className={ITEM} disabled={!canExport} onSelect={() => onExport('json')}>
            <Download aria-hidden="true" className="size-4" /> Export as JSON
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
