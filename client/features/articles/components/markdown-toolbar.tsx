import { Bold, Code, Heading2, Italic, Link, List, ListOrdered, Quote, type LucideIcon } from 'lucide-react';
import { useRef, useState, type KeyboardEvent } from 'react';
import type { MarkdownCommand } from '../lib/markdown-commands.ts';

type Tool = { command: MarkdownCommand; label: string; icon: LucideIcon; key?: string };

/** The toolbar's buttons in order; `key` is the letter of a Ctrl/Cmd shortcut. */
const TOOLS: readonly Tool[] = [
  { command: 'bold', label: 'Bold', icon: Bold, key: 'B' },
  { command: 'italic', label: 'Italic', icon: Italic, key: 'I' },
  { command: 'heading', label: 'Heading', icon: Heading2 },
  { command: 'link', label: 'Link', icon: Link, key: 'K' },
  { command: 'quote', label: 'Quote', icon: Quote },
  { command: 'code', label: 'Code', icon: Code },
  { command: 'bulletList', label: 'Bulleted list', icon: List },
  { command: 'numberedList', label: 'Numbered list', icon: ListOrdered },
];

/** The command a key press asks for (Ctrl+B, Ctrl+I, Ctrl+K; Cmd on a Mac), or null. */
export function shortcutCommand(event: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'altKey' | 'shiftKey'>): MarkdownCommand | null {
  if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) return null;
  return TOOLS.find((tool) => tool.key !== undefined && tool.key === event.key.toUpperCase())?.command ?? null;
}

const onMac = () => typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent);

/**
 * The formatting toolbar over the Markdown editor: one tab stop, arrow keys (and Home, End)
 * move between its buttons (the ARIA toolbar pattern's roving tabindex). Each button says its
 * shortcut in its title and in aria-keyshortcuts.
 */
export function MarkdownToolbar({ controls, onCommand }: { controls: string; onCommand(command: MarkdownCommand): void }) {
  const [active, setActive] = useState(0);
  const buttons = useRef<Array<HTMLButtonElement | null>>([]);
  const mac = onMac();

  const move = (event: KeyboardEvent<HTMLDivElement>) => {
    const last = TOOLS.length - 1;
    const next = { ArrowRight: active === last ? 0 : active + 1, ArrowLeft: active === 0 ? last : active - 1, Home: 0, End: last }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    setActive(next);
    buttons.current[next]?.focus();
  };

  return (
    <div role="toolbar" aria-label="Formatting" aria-controls={controls} onKeyDown={move} className="mt-1.5 flex flex-wrap gap-0.5 rounded-t-md border border-b-0 border-slate-300 bg-slate-50 p-1">
      {TOOLS.map(({ command, label, icon: Icon, key }, index) => (
        <button
          key={command}
          ref={(el) => {
            buttons.current[index] = el;
          }}
          type="button"
          tabIndex={index === active ? 0 : -1}
          aria-label={label}
          title={key ? `${label} (${mac ? `⌘${key}` : `Ctrl+${key}`})` : label}
          aria-keyshortcuts={key ? `Control+${key} Meta+${key}` : undefined}
          onFocus={() => setActive(index)}
          onClick={() => onCommand(command)}
          className="inline-flex size-9 items-center justify-center rounded text-slate-700 hover:bg-slate-200 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-600"
        >
          <Icon className="size-4" aria-hidden="true" />
        </button>
      ))}
    </div>
  );
}
