import { Tabs } from 'radix-ui';
import { useEffect, useRef, useState } from 'react';
import type { TParameterValue } from '../../../../contracts/agent-parameters.ts';
import { defaultAgentConfig, type TAgentConfig, type TAgentTemplate, type TNotifications } from '../../../../contracts/agents.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Dialog } from '../../../components/ui/dialog.tsx';
import { thresholdLabel, thresholdValueText } from '../../../../contracts/alert-thresholds.ts';
import { activeHoursText, formatValue, frequencyLabel } from '../lib/agent-format.ts';
import { backtestDraft } from '../api/agents-api.ts';
import { useTimeZone } from '../../../lib/time-zone.ts';
import { clearChanged, errorsUnder, fieldErrors, NO_FIELD_ERRORS, wizardStepOf, type TFieldErrors } from '../lib/field-errors.ts';
import { serverSources } from '../lib/server-sources.ts';
import { explainAlertsText } from './explain-alerts-field.tsx';
import { NotificationsFields, ParametersFields, perHourText, ScheduleEditor } from './config-fields.tsx';
import { FieldErrorList, FIRST_INVALID } from './field-error-list.tsx';
import { ChannelNames } from './channel-choice.tsx';
import { DiscardDialog } from './discard-dialog.tsx';
import { Row } from './form-controls.tsx';
import { SignalsList } from './signals-list.tsx';
import { toDraft, type TScheduleDraft } from './schedule-fields.tsx';
import { TabList, TabPanel } from './tabs.tsx';
import { TestOnHistory } from './test-on-history.tsx';
import { ConditionsEditor } from './conditions-editor.tsx';
import { DescribeCondition } from './describe-condition.tsx';
import { ConditionsSummary } from './conditions-summary.tsx';
import { WatchlistEditor } from './watchlist-editor.tsx';
import { agentTimeframeOf, conditionErrorLine } from '../lib/condition-drafts.ts';
import type { TCondition } from '../../../../contracts/conditions.ts';
import { watchedMarketLabel, type TWatchedMarket } from '../../../../contracts/watchlist.ts';

export const WIZARD_STEPS = [
  { value: 'schedule', label: 'Schedule' },
  { value: 'parameters', label: 'Parameters' },
  { value: 'notifications', label: 'Notifications' },
  { value: 'review', label: 'Review' },
] as const;
type TStep = (typeof WIZARD_STEPS)[number]['value'];

/** The configuration the wizard submits: the schedule carries `timeZone`, the zone its active
 * hours are entered in (the one every time is shown in: docs/decisions/0066). */
export function buildConfig(
  schedule: TScheduleDraft,
  notifications: TNotifications,
  parameters: Record<string, TParameterValue>,
  timeZone: string,
  extra: { conditions?: TCondition[]; watchlist?: TWatchedMarket[] } = {},
): TAgentConfig {
  return {
    schedule: { frequency: schedule.frequency || 'hourly', daysActive: schedule.daysActive, activeHours: schedule.activeHours, timeZone },
    notifications,
    parameters,
    // Sent only when there are some: a configuration without conditions reads as it always did.
    ...(extra.conditions && extra.conditions.length > 0 ? { conditions: extra.conditions } : {}),
    ...(extra.watchlist ? { watchlist: extra.watchlist } : {}),
  };
}

type Props = {
  open: boolean;
  onOpenChange(open: boolean): void;
  template: TAgentTemplate;
  name: string;
  pending: boolean;
  /** Creates the agent; a rejection naming fields is shown on them. */
  onCreate(config: TAgentConfig): Promise<unknown>;
};

/**
 * 'Configure Your Agent': the template's defaults, in four steps that may be visited in any order.
 * Nothing blocks before Create (SPEC); a refusal lands on its fields and the wizard opens the
 * tab of the first. Closing it with changes (Escape, outside click, Cancel, Close) asks first.
 */
export function AgentWizard({ open, onOpenChange, template, name, pending, onCreate }: Props) {
  const [dirty, setDirty] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const requestClose = () => (dirty ? setConfirming(true) : onOpenChange(false));
  const discard = () => {
    setConfirming(false);
    setDirty(false);
    onOpenChange(false);
  };
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => (next ? onOpenChange(true) : requestClose())}
      size="xl"
      title="Configure Your Agent"
      description={`Set up ${name}, based on ${template.name}.`}
    >
      {/* Mounted only while open: each opening starts from the template's defaults. */}
      <WizardBody
        key={`${template.id}:${name}`}
        template={template}
        name={name}
        pending={pending}
        onCreate={onCreate}
        onCancel={requestClose}
        onDirtyChange={setDirty}
      />
      <DiscardDialog open={confirming} onKeepEditing={() => setConfirming(false)} onDiscard={discard} what={`The settings you changed for ${name} will be lost.`} />
    </Dialog>
  );
}

function WizardBody({
  template,
  name,
  pending,
  onCreate,
  onCancel,
  onDirtyChange,
}: Omit<Props, 'open' | 'onOpenChange'> & { onCancel(): void; onDirtyChange(dirty: boolean): void }) {
  const [step, setStep] = useState<TStep>('schedule');
  const [initial] = useState(() => {
    const defaults = defaultAgentConfig(template, 'UTC', serverSources());
    return {
      schedule: toDraft(template.defaultConfig.schedule),
      parameters: defaults.parameters,
      notifications: structuredClone(template.defaultConfig.notifications),
      conditions: [] as TCondition[],
      watchlist: defaults.watchlist,
    };
  });
  const [schedule, setSchedule] = useState(initial.schedule);
  const [parameters, setParameters] = useState(initial.parameters);
  const [notifications, setNotifications] = useState<TNotifications>(initial.notifications);
  const [conditions, setConditions] = useState<TCondition[]>(initial.conditions);
  const [watchlist, setWatchlist] = useState(initial.watchlist);
  const [errors, setErrors] = useState<TFieldErrors>(NO_FIELD_ERRORS);
  const [focusRequest, setFocusRequest] = useState(0);
  /** Conditions drafted from words so far: each is tested on history as it arrives. */
  const [draftsTested, setDraftsTested] = useState(0);
  const body = useRef<HTMLDivElement>(null);
  const index = WIZARD_STEPS.findIndex((s) => s.value === step);
  const go = (offset: number) => setStep(WIZARD_STEPS[index + offset]!.value);
  const definitions = Object.entries(template.defaultConfig.parameters);

  const dirty = JSON.stringify({ schedule, parameters, notifications, conditions, watchlist }) !== JSON.stringify(initial);
  useEffect(() => onDirtyChange(dirty), [dirty, onDirtyChange]);

  // A refusal: mark every field it names, open the first tab (in the steps' order) holding one,
  // and move focus to its first marked field. Any other failure is the caller's to report (its toast).
  // The configuration as it stands: what Create sends and what Test on history tests.
  const zone = useTimeZone();
  const config = buildConfig(schedule, notifications, parameters, zone, { conditions, watchlist });
  const agentTimeframe = agentTimeframeOf(parameters);
  const create = () =>
    onCreate(config).catch((err: unknown) => {
      const refused = fieldErrors(err);
      if (!refused) return;
      setErrors(refused);
      setStep(WIZARD_STEPS.find((s) => Object.keys(refused).some((path) => wizardStepOf(path) === s.value))!.value);
      setFocusRequest((n) => n + 1);
    });
  useEffect(() => {
    if (focusRequest === 0) return;
    // The tab's panel mounts after this render (Radix Presence): focus once it is there.
    const timer = setTimeout(() => body.current?.querySelector<HTMLElement>(`[role="tabpanel"] :is(${FIRST_INVALID})`)?.focus());
    return () => clearTimeout(timer);
  }, [focusRequest]);

  const editSchedule = (next: TScheduleDraft) => {
    setErrors((e) => clearChanged(e, 'schedule', schedule, next));
    setSchedule(next);
  };
  const editParameters = (next: Record<string, TParameterValue>) => {
    setErrors((e) => clearChanged(e, 'parameters', parameters, next));
    setParameters(next);
  };
  const editConditions = (next: TCondition[]) => {
    setErrors((e) => clearChanged(e, 'conditions', conditions, next));
    setConditions(next);
  };
  const editWatchlist = (next: TWatchedMarket[]) => {
    setErrors((e) => clearChanged(e, 'watchlist', watchlist ?? [], next));
    setWatchlist(next);
  };
  const editNotifications = (next: TNotifications) => {
    setErrors((e) => clearChanged(e, 'notifications', notifications, next));
    setNotifications(next);
  };
  const elsewhere = Object.entries(errors).filter(([path]) => wizardStepOf(path) === 'review');

  return (
    <Tabs.Root ref={body} value={step} onValueChange={(value) => setStep(value as TStep)} className="mt-4">
      <TabList label="Configuration steps" tabs={WIZARD_STEPS.map((s) => ({ ...s, label: <StepLabel label={s.label} invalid={Object.keys(errors).some((p) => wizardStepOf(p) === s.value)} /> }))} />
      <TabPanel value="schedule">
        <ScheduleEditor value={schedule} onChange={editSchedule} errors={errors} timeZone={zone} />
      </TabPanel>
      <TabPanel value="parameters">
        <div className="space-y-5">
          <SignalsList template={template} />
          <ParametersFields template={template} value={parameters} onChange={editParameters} errors={errors} />
          {watchlist && <WatchlistEditor value={watchlist} onChange={editWatchlist} errors={errors} />}
          <ConditionsEditor
            value={conditions}
            onChange={editConditions}
            errors={errors}
            agentTimeframe={agentTimeframe}
            timeZone={zone}
            describe={(add) => (
              <DescribeCondition
                agentTimeframe={agentTimeframe}
                templateId={template.id}
                onDraft={(condition) => {
                  add(condition);
                  setDraftsTested((n) => n + 1);
                }}
              />
            )}
          />
          {draftsTested > 0 && (
            // A drafted condition is tested on history at once, with the configuration it joined
            // (unsaved, like Review's test, which stays there for any later change).
            <section aria-labelledby="drafted-test" className="border-t border-slate-200 pt-4">
              <h3 id="drafted-test" className="text-sm font-semibold text-slate-900">
                The drafted condition on history
              </h3>
              <div className="mt-2">
                <TestOnHistory
                  autoStartKey={String(draftsTested)}
                  run={(candles, options) => backtestDraft({ templateId: template.id, config, candles }, options)}
                  onRefused={(refused) => setErrors((e) => ({ ...e, ...refused }))}
                />
              </div>
            </section>
          )}
        </div>
      </TabPanel>
      <TabPanel value="notifications">
        <NotificationsFields value={notifications} onChange={editNotifications} errors={errors} />
      </TabPanel>
      <TabPanel value="review">
        <div className="space-y-4">
          <section aria-labelledby="review-agent">
            <h3 id="review-agent" className="text-sm font-semibold text-slate-900">Agent</h3>
            <dl className="divide-y divide-slate-100">
              <Row term="Name">{name}</Row>
              <Row term="Template">{template.name}</Row>
            </dl>
            <FieldErrorList label="Agent problems" errors={elsewhere} />
          </section>
          <section aria-labelledby="review-schedule">
            <h3 id="review-schedule" className="text-sm font-semibold text-slate-900">Schedule</h3>
            <dl className="divide-y divide-slate-100">
              <Row term="Frequency">{schedule.frequency ? frequencyLabel(schedule.frequency) : 'Not set'}</Row>
              <Row term="Active days">{schedule.daysActive.length ? schedule.daysActive.join(', ') : 'None'}</Row>
              <Row term="Active hours">{activeHoursText({ activeHours: schedule.activeHours, timeZone: zone })}</Row>
            </dl>
          </section>
          <section aria-labelledby="review-parameters">
            <h3 id="review-parameters" className="text-sm font-semibold text-slate-900">Parameters</h3>
            <dl className="divide-y divide-slate-100">
              {definitions.map(([key, definition]) => (
                <Row key={key} term={definition.label}>
                  {formatValue(parameters[key], definition)}
                </Row>
              ))}
              {watchlist && <Row term="Watchlist">{watchlist.length ? watchlist.map(watchedMarketLabel).join(', ') : 'None'}</Row>}
            </dl>
          </section>
          <section aria-labelledby="review-conditions">
            <h3 id="review-conditions" className="text-sm font-semibold text-slate-900">Conditions</h3>
            <ConditionsSummary conditions={conditions} />
            <FieldErrorList
              label="Condition problems"
              errors={errorsUnder(errors, 'conditions')}
              line={(path, message) => conditionErrorLine(path, message, conditions)}
            />
          </section>
          <section aria-labelledby="review-notifications">
            <h3 id="review-notifications" className="text-sm font-semibold text-slate-900">Notifications</h3>
            <dl className="divide-y divide-slate-100">
              <Row term="Email">{notifications.email ? 'On' : 'Off'}</Row>
              <Row term="In-app">{notifications.inApp ? 'On' : 'Off'}</Row>
              <Row term="Channels">
                <ChannelNames ids={notifications.channels} />
              </Row>
              <Row term="Notifications per hour">{perHourText(notifications)}</Row>
              <Row term="Explain alerts">{explainAlertsText(notifications.brief)}</Row>
              <Row term="Thresholds">
                {notifications.thresholds.length
                  ? notifications.thresholds.map((t) => `${thresholdLabel(t.type)} ${thresholdValueText(t.type, t.value)}`).join(', ')
                  : 'No thresholds configured'}
              </Row>
            </dl>
          </section>
          <section aria-labelledby="review-test" className="border-t border-slate-200 pt-4">
            <h3 id="review-test" className="text-sm font-semibold text-slate-900">Test on history</h3>
            <div className="mt-2">
              <TestOnHistory
                run={(candles, options) => backtestDraft({ templateId: template.id, config, candles }, options)}
                onRefused={(refused) => setErrors((e) => ({ ...e, ...refused }))}
              />
            </div>
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
          <Button disabled={pending} onClick={() => void create()}>
            {pending ? 'Creating...' : 'Create Agent'}
          </Button>
        )}
      </div>
    </Tabs.Root>
  );
}

/** A step's name, with 'has problems' for screen readers and a mark for the eye when the
 * server refused one of its fields. */
function StepLabel({ label, invalid }: { label: string; invalid: boolean }) {
  if (!invalid) return label;
  return (
    <span className="inline-flex items-center gap-1">
      {label}
      <span aria-hidden="true" className="size-2 rounded-full bg-red-700" />
      <span className="sr-only">(has problems)</span>
    </span>
  );
}
