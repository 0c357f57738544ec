import { Tabs } from 'radix-ui';
import { useState } from 'react';
import type { TParameterValue } from '../../../../contracts/agent-parameters.ts';
import { defaultAgentConfig, type TAgentConfig, type TAgentTemplate, type TNotifications } from '../../../../contracts/agents.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Dialog } from '../../../components/ui/dialog.tsx';
import { thresholdLabel, thresholdValueText } from '../../../../contracts/alert-thresholds.ts';
import { formatValue, frequencyLabel } from '../lib/agent-format.ts';
import { browserTimeZone } from '../api/agents-api.ts';
import { Row, SwitchField } from './form-controls.tsx';
import { ParameterField } from './parameter-field.tsx';
import { SignalsList } from './signals-list.tsx';
import { ScheduleFields, toDraft, type TScheduleDraft } from './schedule-fields.tsx';
import { TabList, TabPanel } from './tabs.tsx';
import { ThresholdsEditor } from './thresholds-editor.tsx';

export const WIZARD_STEPS = [
  { value: 'schedule', label: 'Schedule' },
  { value: 'parameters', label: 'Parameters' },
  { value: 'notifications', label: 'Notifications' },
  { value: 'review', label: 'Review' },
] as const;
type TStep = (typeof WIZARD_STEPS)[number]['value'];

/** The configuration the wizard submits: the schedule carries the browser's time zone, since
 * active hours are entered in local time. */
export function buildConfig(schedule: TScheduleDraft, notifications: TNotifications, parameters: Record<string, TParameterValue>): TAgentConfig {
  return {
    schedule: { frequency: schedule.frequency || 'hourly', daysActive: schedule.daysActive, activeHours: schedule.activeHours, timeZone: browserTimeZone() },
    notifications,
    parameters,
  };
}

type Props = {
  open: boolean;
  onOpenChange(open: boolean): void;
  template: TAgentTemplate;
  name: string;
  pending: boolean;
  onCreate(config: TAgentConfig): void;
};

/** 'Configure Your Agent': the template's defaults, in four steps that may be visited in any order. */
export function AgentWizard({ open, onOpenChange, template, name, pending, onCreate }: Props) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange} size="xl" title="Configure Your Agent" description={`Set up ${name}, based on ${template.name}.`}>
      {/* Mounted only while open: each opening starts from the template's defaults. */}
      <WizardBody key={`${template.id}:${name}`} template={template} name={name} pending={pending} onCreate={onCreate} onCancel={() => onOpenChange(false)} />
    </Dialog>
  );
}

function WizardBody({ template, name, pending, onCreate, onCancel }: Omit<Props, 'open' | 'onOpenChange'> & { onCancel(): void }) {
  const [step, setStep] = useState<TStep>('schedule');
  const [schedule, setSchedule] = useState(() => toDraft(template.defaultConfig.schedule));
  const [parameters, setParameters] = useState(() => defaultAgentConfig(template).parameters);
  const [notifications, setNotifications] = useState<TNotifications>(() => structuredClone(template.defaultConfig.notifications));
  const index = WIZARD_STEPS.findIndex((s) => s.value === step);
  const go = (offset: number) => setStep(WIZARD_STEPS[index + offset]!.value);
  const definitions = Object.entries(template.defaultConfig.parameters);

  return (
    <Tabs.Root value={step} onValueChange={(value) => setStep(value as TStep)} className="mt-4">
      <TabList label="Configuration steps" tabs={WIZARD_STEPS} />
      <TabPanel value="schedule">
        <ScheduleFields value={schedule} onChange={setSchedule} />
      </TabPanel>
      <TabPanel value="parameters">
        <div className="space-y-5">
          <SignalsList template={template} />
          {definitions.map(([key, definition]) => (
            <ParameterField key={key} name={key} definition={definition} value={parameters[key]} onChange={(value) => setParameters((p) => ({ ...p, [key]: value }))} />
          ))}
        </div>
      </TabPanel>
      <TabPanel value="notifications">
        <div className="space-y-5">
          <SwitchField label="Email notifications" hint="Send alerts to your email address." checked={notifications.email} onCheckedChange={(email) => setNotifications((n) => ({ ...n, email }))} />
          <SwitchField label="In-app notifications" hint="Show alerts in the app." checked={notifications.inApp} onCheckedChange={(inApp) => setNotifications((n) => ({ ...n, inApp }))} />
          <ThresholdsEditor value={notifications.thresholds} onChange={(thresholds) => setNotifications((n) => ({ ...n, thresholds }))} />
        </div>
      </TabPanel>
      <TabPanel value="review">
        <div className="space-y-4">
          <section aria-labelledby="review-agent">
            <h3 id="review-agent" className="text-sm font-semibold text-slate-900">Agent</h3>
            <dl className="divide-y divide-slate-100">
              <Row term="Name">{name}</Row>
              <Row term="Template">{template.name}</Row>
            </dl>
          </section>
          <section aria-labelledby="review-schedule">
            <h3 id="review-schedule" className="text-sm font-semibold text-slate-900">Schedule</h3>
            <dl className="divide-y divide-slate-100">
              <Row term="Frequency">{schedule.frequency ? frequencyLabel(schedule.frequency) : 'Not set'}</Row>
              <Row term="Active days">{schedule.daysActive.length ? schedule.daysActive.join(', ') : 'None'}</Row>
              <Row term="Active hours">
                {schedule.activeHours.start} – {schedule.activeHours.end} (local time)
              </Row>
            </dl>
          </section>
          <section aria-labelledby="review-parameters">
            <h3 id="review-parameters" className="text-sm font-semibold text-slate-900">Parameters</h3>
            <dl className="divide-y divide-slate-100">
              {definitions.map(([key, definition]) => (
                <Row key={key} term={definition.label}>
                  {formatValue(parameters[key])}
                </Row>
              ))}
            </dl>
          </section>
          <section aria-labelledby="review-notifications">
            <h3 id="review-notifications" className="text-sm font-semibold text-slate-900">Notifications</h3>
            <dl className="divide-y divide-slate-100">
              <Row term="Email">{notifications.email ? 'On' : 'Off'}</Row>
              <Row term="In-app">{notifications.inApp ? 'On' : 'Off'}</Row>
              <Row term="Thresholds">
                {notifications.thresholds.length
                  ? notifications.thresholds.map((t) => `${thresholdLabel(t.type)} ${thresholdValueText(t.type, t.value)}`).join(', ')
                  : 'No thresholds configured'}
              </Row>
            </dl>
          </section>
        </div>
      </TabPanel>
      <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        {index === 0 ? (
          <Button variant="outline" onClick={onCancel}>
            Cancel
          </Button>
        ) : (
          <Button variant="outline" onClick={() => go(-1)}>
            Previous
          </Button>
        )}
        {index < WIZARD_STEPS.length - 1 ? (
          <Button onClick={() => go(1)}>Next</Button>
        ) : (
          <Button disabled={pending} onClick={() => onCreate(buildConfig(schedule, notifications, parameters))}>
            {pending ? 'Creating...' : 'Create Agent'}
          </Button>
        )}
      </div>
    </Tabs.Root>
  );
}
