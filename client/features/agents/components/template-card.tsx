import { useId, useState } from 'react';
import { defaultValue } from '../../../../contracts/agent-parameters.ts';
import type { TAgentTemplate } from '../../../../contracts/agents.ts';
import { Badge, type BadgeVariant } from '../../../components/ui/badge.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Dialog } from '../../../components/ui/dialog.tsx';
import { thresholdLabel, thresholdValueText } from '../../../../contracts/alert-thresholds.ts';
import { formatValue, frequencyLabel } from '../lib/agent-format.ts';
import { serverSources } from '../lib/server-sources.ts';
import { Row } from './form-controls.tsx';
import { watchedMarketLabel } from '../../../../contracts/watchlist.ts';

export const COMPLEXITY: Record<TAgentTemplate['complexity'], BadgeVariant> = { Basic: 'success', Medium: 'warning', Advanced: 'brand' };
export const TYPE_LABEL: Record<TAgentTemplate['type'], string> = { stock: 'Stock', crypto: 'Crypto', other: 'Other' };

/** A template in the grid: what it is, with 'Use template' and a Details dialog. */
export function TemplateCard({ template, onUse }: { template: TAgentTemplate; onUse(template: TAgentTemplate): void }) {
  const id = useId();
  const [details, setDetails] = useState(false);
  return (
    <Card as="li" aria-labelledby={id} className="flex flex-col p-5">
      <div className="flex items-start justify-between gap-3">
        <h3 id={id} className="text-lg font-semibold text-slate-900">
          {template.name}
        </h3>
        <Badge variant={COMPLEXITY[template.complexity] ?? 'neutral'}>{template.complexity}</Badge>
      </div>
      <p className="mt-1 text-sm text-slate-600">{TYPE_LABEL[template.type] ?? template.type}</p>
      <p className="mt-3 grow text-sm text-slate-700">{template.description}</p>
      <div className="mt-4 flex flex-wrap gap-2">
        <Button onClick={() => onUse(template)}>Use template</Button>
        <Button variant="outline" onClick={() => setDetails(true)}>
          Details
        </Button>
      </div>
      <Dialog
        open={details}
        onOpenChange={setDetails}
        size="lg"
        title={template.name}
        description={template.description}
        footer={
          <Button
            onClick={() => {
              setDetails(false);
              onUse(template);
            }}
          >
            Use Template
          </Button>
        }
      >
        <TemplateDetails template={template} />
      </Dialog>
    </Card>
  );
}

function TemplateDetails({ template }: { template: TAgentTemplate }) {
  const { schedule, notifications, parameters } = template.defaultConfig;
  // The defaults a new agent starts with on this server (a switch needing a missing source is off).
  const sources = serverSources();
  return (
    <div className="mt-4 space-y-5">
      <section>
        <h3 className="text-sm font-semibold text-slate-900">Parameters</h3>
        <ul className="mt-2 space-y-2">
          {Object.entries(parameters).map(([key, p]) => (
            <li key={key} className="text-sm">
              <span className="font-medium text-slate-900">{p.label}</span> <span className="text-slate-600">({p.type})</span>
              <span className="block text-slate-700">{p.description}</span>
              <span className="block text-slate-600">Default: {formatValue(defaultValue(p, sources), p)}</span>
            </li>
          ))}
        </ul>
      </section>
      <section>
        <h3 className="text-sm font-semibold text-slate-900">Schedule</h3>
        <dl className="divide-y divide-slate-100">
          <Row term="Frequency">{frequencyLabel(schedule.frequency)}</Row>
          <Row term="Active days">{schedule.daysActive.join(', ')}</Row>
          {schedule.activeHours && (
            <Row term="Active hours">
              {schedule.activeHours.start} – {schedule.activeHours.end}
            </Row>
          )}
        </dl>
      </section>
      <section>
        <h3 className="text-sm font-semibold text-slate-900">Thresholds</h3>
        {notifications.thresholds.length ? (
          <ul className="mt-2 space-y-1 text-sm text-slate-700">
            {notifications.thresholds.map((t, i) => (
              <li key={i}>
                {thresholdLabel(t.type)}: {thresholdValueText(t.type, t.value)} — {t.message}
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-2 text-sm text-slate-600">No thresholds configured</p>
        )}
      </section>
      {template.defaultConfig.watchlist && (
        <section>
          <h3 className="text-sm font-semibold text-slate-900">Watchlist</h3>
          <p className="mt-2 text-sm text-slate-700">{template.defaultConfig.watchlist.map(watchedMarketLabel).join(', ')} (change it in the wizard)</p>
        </section>
      )}
      <section>
        <h3 className="text-sm font-semibold text-slate-900">Decision rules</h3>
        {template.implementation.decisionRules.length ? (
          <ul className="mt-2 space-y-1 text-sm text-slate-700">
            {template.implementation.decisionRules.map((rule) => (
              <li key={rule.name}>
                <span className="font-medium text-slate-900">{rule.name}:</span> {rule.description}
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-2 text-sm text-slate-600">None: only the conditions and alert thresholds you set decide.</p>
        )}
      </section>
    </div>
  );
}
