import { useId } from 'react';
import type { TAgentTemplate } from '../../../../contracts/agents.ts';
import { Badge } from '../../../components/ui/badge.tsx';
import { Dialog } from '../../../components/ui/dialog.tsx';
import { COMPLEXITY, TYPE_LABEL } from './template-card.tsx';

type Props = { open: boolean; onOpenChange(open: boolean): void; templates: readonly TAgentTemplate[]; onPick(template: TAgentTemplate): void };

/** 'Choose a Template': the first step of Create Agent, before SPEC's 'Name Your New Agent'. */
export function TemplatePickerDialog({ open, onOpenChange, templates, onPick }: Props) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange} size="lg" title="Choose a Template" description="What should your new agent do? You can change its settings later.">
      <ul aria-label="Templates" className="mt-4 space-y-3">
        {templates.map((template) => (
          <TemplateChoice key={template.id} template={template} onPick={onPick} />
        ))}
      </ul>
    </Dialog>
  );
}

function TemplateChoice({ template, onPick }: { template: TAgentTemplate; onPick(template: TAgentTemplate): void }) {
  const id = useId();
  // The button's name is its visible text (the template's name); its ::after covers the card,
  // so a click anywhere on it picks the template. The rest describes the button.
  return (
    <li className="relative rounded-lg border border-slate-200 p-4 focus-within:border-brand-600 hover:border-brand-600 hover:bg-brand-50">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <button
          type="button"
          aria-describedby={`${id}-meta ${id}-description`}
          onClick={() => onPick(template)}
          className="rounded text-left font-semibold text-slate-900 after:absolute after:inset-0 after:content-[''] focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
        >
          {template.name}
        </button>
        <span id={`${id}-meta`} className="flex items-center gap-2 text-sm text-slate-600">
          {TYPE_LABEL[template.type] ?? template.type}
          <Badge variant={COMPLEXITY[template.complexity] ?? 'neutral'}>{template.complexity}</Badge>
        </span>
      </div>
      <p id={`${id}-description`} className="mt-1 text-sm text-slate-700">
        {template.description}
      </p>
    </li>
  );
}
