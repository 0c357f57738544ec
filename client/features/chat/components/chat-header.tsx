import { ArrowLeft, PanelLeft } from 'lucide-react';
import { memo, type Ref } from 'react';
import { Link } from 'react-router';
import type { TChatModel } from '../../../../contracts/chat.ts';
import { Button } from '../../../components/ui/button.tsx';
import { ChatOptionsMenu } from './chat-options-menu.tsx';
import { UseAgentsSwitch } from './use-agents-switch.tsx';

type Props = {
  titleId: string;
  label: string;
  models: readonly TChatModel[];
  model: string;
  onModelChange(id: string): void;
  /** The model cannot change while an answer is pending. */
  pending: boolean;
  sidebarId: string;
  sidebarShown: boolean;
  toggleLabel: string;
  /** The toggle is only for small screens (a drawer); else it hides the sidebar on wide ones too. */
  toggleOnWideScreens: boolean;
  onToggleSidebar(): void;
  toggleRef: Ref<HTMLButtonElement>;
  /** The chat's menu: export (once it has messages) and settings. */
  canExport: boolean;
  onExport(format: 'md' | 'json'): void;
  onSettings?: () => void;
  /** Opens Share (issue 32). */
  onShare?: () => void;
  /** "Use my agents" (issue 31): offered to an admin on a model that calls tools; absent otherwise. */
  agents?: { on: boolean; onChange(on: boolean): void } | null;
};

/** SPEC's chat header: back to the dashboard, the history toggle, the title and the model; then
 * the chat's menu. */
export const ChatHeader = memo(function ChatHeader(props: Props) {
  const { titleId, label, models, model, onModelChange, pending, sidebarId, sidebarShown, toggleLabel, toggleOnWideScreens, onToggleSidebar, toggleRef, canExport, onExport, onSettings, onShare, agents } = props;
  return (
    <header className="flex flex-wrap items-center gap-2 border-b border-slate-200 px-3 py-2 sm:px-4">
      <Link
        to="/dashboard"
        aria-label="Back to Dashboard"
        title="Back to Dashboard"
        className="inline-flex size-10 items-center justify-center rounded-md text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-brand-600"
      >
        <ArrowLeft aria-hidden="true" className="size-5" />
      </Link>
      <Button
        ref={toggleRef}
        variant="ghost"
        size="icon"
        onClick={onToggleSidebar}
        aria-controls={sidebarId}
        aria-expanded={sidebarShown}
        aria-label={toggleLabel}
        className={toggleOnWideScreens ? '' : 'lg:hidden'}
      >
        <PanelLeft aria-hidden="true" className="size-5" />
      </Button>
      <h1 id={titleId} className="mr-auto text-lg font-semibold text-slate-900">
        Chat with {label}
      </h1>
      <label className="flex items-center gap-2 text-sm text-slate-700">
        <span>Model</span>
        <select
          value={model}
          onChange={(event) => onModelChange(event.target.value)}
          disabled={pending}
          className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-600 disabled:opacity-60"
        >
          {models.map((m) => (
            <option key={m.id} value={m.id}>
              {m.note ? `${m.label} (${m.note})` : m.label}
            </option>
          ))}
        </select>
      </label>
      {agents && <UseAgentsSwitch checked={agents.on} onCheckedChange={agents.onChange} disabled={pending} />}
      <ChatOptionsMenu canExport={canExport} onExport={onExport} onSettings={onSettings} onShare={onShare} />
    </header>
  );
});
