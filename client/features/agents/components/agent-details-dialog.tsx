import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Tabs } from 'radix-ui';
import { Play, Trash2 } from 'lucide-react';
import { useContext, useEffect, useState, useSyncExternalStore } from 'react';
import { defaultValue, type TParameterValue } from '../../../../contracts/agent-parameters.ts';
import { findTemplate, type TAgent, type TAgentTemplate, type TFrequency, type TNotifications } from '../../../../contracts/agents.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Dialog } from '../../../components/ui/dialog.tsx';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { notify } from '../../../lib/notify.ts';
import { THRESHOLD_DEFINITIONS, thresholdValueText } from '../../../../contracts/alert-thresholds.ts';
import { DATE, DATE_TIME } from '../../../../contracts/time-format.ts';
import { useTimes } from '../../../lib/times.ts';
import { activeHoursText, formatValue, frequencyLabel } from '../lib/agent-format.ts';
import { SignalsList } from './signals-list.tsx';
import { backtestAgent, deleteAgent, invalidateAgents, runAgent, useAgent, useAgentRuns } from '../api/agents-api.ts';
import { explainAlertsText } from './explain-alerts-field.tsx';
import { NotificationsFields, ParametersFields, perHourText, ScheduleEditor } from './config-fields.tsx';
import { serverSources } from '../lib/server-sources.ts';
import { AgentNameField } from './agent-name-field.tsx';
import { ChannelNames } from './channel-choice.tsx';
import { FailingNotice, PerformanceValue } from './agent-health.tsx';
import { DiscardDialog } from './discard-dialog.tsx';
import { createOpenEdits, EditableSection, OpenEdits, SECTION, withOpenEdits, type TOpenEdit } from './editable-section.tsx';
import { Row } from './form-controls.tsx';
import { RunChartPanel } from './run-chart.tsx';
import { RunHistory } from './run-history.tsx';
import { ConditionsSection, WatchlistSection } from './condition-sections.tsx';
import { toDraft, type TScheduleDraft } from './schedule-fields.tsx';
import { TabList, TabPanel } from './tabs.tsx';
import { TestOnHistory } from './test-on-history.tsx';

// SPEC's three tabs in its order; Chart comes after them and mounts (loading the chart
// library) only when opened.
export const DETAILS_TABS = [
  { value: 'overview', label: 'Overview' },
  { value: 'runs', label: 'Run History' },
  { value: 'settings', label: 'Settings' },
  { value: 'chart', label: 'Chart' },
  { value: 'history-test', label: 'Test on history' },
] as const;

type Props = {
  agent: TAgent | null;
  template: TAgentTemplate | undefined;
  open: boolean;
  onOpenChange(open: boolean): void;
  /** Opened from a notification: Run History, with this run in view. */
  focusRunId?: number | null;
};

/** An agent's details. Its body mounts on each opening, so it starts on Overview with no edit
 * open, or on Run History at the run a notification is about. Closing it with an unsaved edit
 * asks first, as the wizard does. */
export function AgentDetailsDialog({ agent, template, open, onOpenChange, focusRunId = null }: Props) {
  const [edits] = useState(createOpenEdits);
  const [confirming, setConfirming] = useState(false);
  const close = () => {
    setConfirming(false);
    edits.clear();
    onOpenChange(false);
  };
  return (
    <Dialog
      open={open && agent !== null}
      onOpenChange={(next) => (next ? onOpenChange(true) : Object.keys(edits.snapshot()).length > 0 ? setConfirming(true) : close())}
      size="xl"
      title={agent?.name ?? 'Agent details'}
      description={template ? `Based on ${template.name}` : 'Agent details'}
    >
      <OpenEdits.Provider value={edits}>
        {agent && <DetailsBody key={`${agent.id}:${focusRunId}`} initial={agent} template={template} focusRunId={focusRunId} onClose={close} />}
      </OpenEdits.Provider>
      <DiscardDialog open={confirming} onKeepEditing={() => setConfirming(false)} onDiscard={close} what={`Your unsaved edits to ${agent?.name ?? 'this agent'} will be lost.`} />
    </Dialog>
  );
}

function DetailsBody({ initial, template, focusRunId, onClose }: { initial: TAgent; template: TAgentTemplate | undefined; focusRunId: number | null; onClose(): void }) {
  const [tab, setTab] = useState<string>(focusRunId === null ? 'overview' : 'runs');
  const details = useAgent(initial.id);
  const runs = useAgentRuns(initial.id);
  const agent = details.data ?? initial;
  const runsLoading = runs.isPending && !runs.isError;

  useEffect(() => {
    if (details.isError) notify.error('Error loading agent details', errorMessage(details.error, 'Please try again.', { serverWords: false }));
  }, [details.isError, details.error]);
  useEffect(() => {
    if (runs.isError) notify.error('Error loading run history', errorMessage(runs.error, 'Please try again.', { serverWords: false }));
  }, [runs.isError, runs.error]);

  return (
    <Tabs.Root value={tab} onValueChange={setTab} className="mt-4">
      <TabList label="Agent details" tabs={DETAILS_TABS} />
      <TabPanel value="overview">
        <Overview agent={agent} template={template} onDeleted={onClose} />
      </TabPanel>
      <TabPanel value="runs">
        <RunHistory runs={runs.data} loading={runsLoading} focusRunId={focusRunId} />
      </TabPanel>
      <TabPanel value="settings">
        <NotificationsSection agent={agent} />
      </TabPanel>
      <TabPanel value="chart">
        <RunChartPanel runs={runs.data} loading={runsLoading} />
      </TabPanel>
      <TabPanel value="history-test">
        <HistoryTest agent={agent} />
      </TabPanel>
    </Tabs.Root>
  );
}

/** The Test on history tab: the saved configuration with the open edits of the other tabs. */
function HistoryTest({ agent }: { agent: TAgent }) {
  const store = useContext(OpenEdits);
  const edits = useSyncExternalStore(store?.subscribe ?? noSubscription, store?.snapshot ?? noEdits);
  const edited = Object.entries(edits)
    .filter(([, edit]) => edit(agent).config !== undefined)
    .map(([section]) => section);
  const config = edited.length > 0 ? withOpenEdits(agent, edits) : null;
  return (
    <div className="space-y-3">
      <p className="text-sm text-slate-700">
        {edited.length > 0 ? `Tests the saved settings with your unsaved edits to ${edited.join(' and ')}.` : 'Tests the saved settings.'}
      </p>
      <TestOnHistory run={(candles, options) => backtestAgent(agent.id, config ? { config, candles } : { candles }, options)} />
    </div>
  );
}
const noSubscription = () => () => {};
// A snapshot must be the same object while nothing changes.
const NO_EDITS: Readonly<Record<string, TOpenEdit>> = {};
const noEdits = () => NO_EDITS;

function Overview({ agent, template, onDeleted }: { agent: TAgent; template: TAgentTemplate | undefined; onDeleted(): void }) {
  const queryClient = useQueryClient();
  const times = useTimes();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const run = useMutation({
    mutationFn: () => runAgent(agent.id),
    onSuccess: () => {
      notify.success('Run queued', `${agent.name} will run shortly. See Run History for the result.`);
      void invalidateAgents(queryClient);
    },
    onError: (err) => {
      // 409: this agent's last Run now is still queued or running; its result is on the way.
      if (err instanceof ApiError && err.status === 409) notify.info(errorMessage(err), 'Run History shows its result when it finishes.');
      else notify.error('Could not start a run', errorMessage(err));
    },
  });
  const remove = useMutation({
    mutationFn: () => deleteAgent(agent.id),
    onSuccess: () => {
      notify.success('Agent deleted', `${agent.name} has been deleted.`);
      setConfirmDelete(false);
      onDeleted();
      void invalidateAgents(queryClient);
    },
    onError: (err) => notify.error('Could not delete agent', errorMessage(err, 'Please try again.', { serverWords: false })),
  });

  return (
    <div className="space-y-4">
      <FailingNotice agent={agent} />
      <dl className={`${SECTION} grid gap-x-6 sm:grid-cols-2`}>
        {/* One word for a status everywhere: the card's badge and SPEC's 'Running Agents' (docs/decisions/0066). */}
        <Row term="Status">{agent.status === 'running' ? 'Running' : 'Paused'}</Row>
        <Row term="Last Run">{times.format(agent.lastRun, DATE_TIME, 'Never')}</Row>
        <Row term="Created">{times.format(agent.createdAt, DATE, 'Unknown')}</Row>
        <Row term="Performance">
          <PerformanceValue agent={agent} />
        </Row>
      </dl>
      <NameSection agent={agent} />
      <ScheduleSection agent={agent} />
      <ParametersSection agent={agent} template={template} />
      {(agent.config.watchlist !== undefined || template?.defaultConfig.watchlist !== undefined) && <WatchlistSection agent={agent} />}
      <ConditionsSection agent={agent} />
      <div className="flex flex-wrap gap-2">
        <Button variant="outline" disabled={run.isPending} onClick={() => run.mutate()}>
          <Play aria-hidden="true" /> {run.isPending ? 'Queuing...' : 'Run now'}
        </Button>
        <Button variant="outline" className="text-red-700" onClick={() => setConfirmDelete(true)}>
          <Trash2 aria-hidden="true" /> Delete agent
        </Button>
      </div>
      <Dialog
        open={confirmDelete}
        onOpenChange={setConfirmDelete}
        title="Delete this agent?"
        description={`${agent.name} and its run history will be deleted. This cannot be undone.`}
        footer={
          <>
            <Button variant="outline" onClick={() => setConfirmDelete(false)}>
              Cancel
            </Button>
            <Button className="bg-red-700 hover:bg-red-800" disabled={remove.isPending} onClick={() => remove.mutate()}>
              {remove.isPending ? 'Deleting...' : 'Delete'}
            </Button>
          </>
        }
      />
    </div>
  );
}

function NameSection({ agent }: { agent: TAgent }) {
  return (
    <EditableSection<string>
      title="Name"
      agent={agent}
      paths="name"
      start={(a) => a.name}
      toEdit={(name) => ({ name })}
      view={
        <dl className="mt-2">
          <Row term="Agent name">{agent.name}</Row>
        </dl>
      }
      editor={(name, onChange, errors) => <AgentNameField value={name} onChange={onChange} error={errors.name} hint="Required, up to 100 characters." />}
    />
  );
}

function ScheduleSection({ agent }: { agent: TAgent }) {
  const { schedule } = agent.config;
  // The hours stay in the zone they were set in, named: an edit never moves them to another
  // zone unseen (docs/decisions/0066).
  const zone = schedule.timeZone;
  const times = useTimes();
  return (
    <EditableSection<TScheduleDraft>
      title="Schedule"
      agent={agent}
      paths="schedule"
      start={(a) => toDraft(a.config.schedule)}
      // SPEC: Save is disabled without a chosen frequency.
      canSave={(draft) => draft.frequency !== ''}
      toEdit={(draft, a) => ({
        config: { ...a.config, schedule: { frequency: draft.frequency as TFrequency, daysActive: draft.daysActive, activeHours: draft.activeHours, timeZone: zone } },
      })}
      view={
        <dl className="mt-2">
          <Row term="Frequency">{frequencyLabel(schedule.frequency)}</Row>
          <Row term="Active days">{schedule.daysActive.length ? schedule.daysActive.join(', ') : 'None'}</Row>
          <Row term="Active hours">{activeHoursText(schedule)}</Row>
          <Row term="Next run">{agent.status === 'running' ? times.format(agent.nextRunAt, DATE_TIME, 'Not scheduled') : 'None while paused'}</Row>
        </dl>
      }
      editor={(draft, onChange, errors) => <ScheduleEditor value={draft} onChange={onChange} errors={errors} allowUnset timeZone={zone} />}
    />
  );
}

/** Every parameter, with the wizard's own fields (the token upper-cased, with its placeholder). */
function ParametersSection({ agent, template }: { agent: TAgent; template: TAgentTemplate | undefined }) {
  const { parameters } = agent.config;
  const definition = (key: string) => template?.defaultConfig.parameters[key];
  const label = (key: string) => definition(key)?.label ?? key;
  const view = (
    <dl className="mt-2">
      {Object.entries(parameters).map(([key, value]) => (
        <Row key={key} term={label(key)}>
          {formatValue(value, definition(key))}
        </Row>
      ))}
    </dl>
  );
  // Without its template (unknown to this version) there are no fields to edit with.
  if (!template) {
    return (
      <section className={SECTION} aria-label="Parameters">
        <h3 className="text-sm font-semibold text-slate-900">Parameters</h3>
        {view}
      </section>
    );
  }
  return (
    <EditableSection<Record<string, TParameterValue>>
      title="Parameters"
      agent={agent}
      paths="parameters"
      // The template's parameters, each as stored or else its default: a configuration saved
      // before the template changed (decision 0025) is repaired by saving it.
      start={(a) => Object.fromEntries(Object.entries(template.defaultConfig.parameters).map(([key, definition]) => [key, a.config.parameters[key] ?? defaultValue(definition, serverSources())]))}
      toEdit={(draft, a) => ({ config: { ...a.config, parameters: draft } })}
      view={view}
      editor={(draft, onChange, errors) => <ParametersFields template={template} value={draft} onChange={onChange} errors={errors} />}
    />
  );
}

/** Email, in-app and the alert thresholds, edited with the wizard's own fields. */
function NotificationsSection({ agent }: { agent: TAgent }) {
  return (
    <EditableSection<TNotifications>
      title="Notifications"
      agent={agent}
      paths="notifications"
      start={(a) => structuredClone(a.config.notifications)}
      toEdit={(draft, a) => ({ config: { ...a.config, notifications: draft } })}
      view={
        <div className="mt-3">
          <Settings agent={agent} />
        </div>
      }
      editor={(draft, onChange, errors) => <NotificationsFields value={draft} onChange={onChange} errors={errors} />}
    />
  );
}

export function Settings({ agent }: { agent: TAgent }) {
  const { notifications } = agent.config;
  const template = findTemplate(agent.templateId);
  return (
    <div className="space-y-4">
      <dl className={SECTION}>
        <Row term="Email notifications">{notifications.email ? 'On' : 'Off'}</Row>
        <Row term="In-app notifications">{notifications.inApp ? 'On' : 'Off'}</Row>
        <Row term="Channels">
          <ChannelNames ids={notifications.channels} />
        </Row>
        <Row term="Notifications per hour">{perHourText(notifications)}</Row>
        <Row term="Explain alerts">{explainAlertsText(notifications.brief)}</Row>
      </dl>
      <section className={SECTION} aria-label="Alert thresholds">
        <h3 className="text-sm font-semibold text-slate-900">Alert thresholds</h3>
        {notifications.thresholds.length ? (
          <ul className="mt-2 space-y-2 text-sm">
            {notifications.thresholds.map((t, i) => (
              <li key={i}>
                <p className="flex flex-wrap gap-x-3">
                  <span className="font-medium text-slate-900">{THRESHOLD_DEFINITIONS[t.type].label}</span>
                  <span className="text-slate-700">{thresholdValueText(t.type, t.value)}</span>
                  <span className="text-slate-600">{t.message}</span>
                </p>
                <p className="text-xs text-slate-600">{THRESHOLD_DEFINITIONS[t.type].explanation}</p>
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-2 text-sm text-slate-600">No thresholds configured</p>
        )}
      </section>
      {template && <SignalsList template={template} className={SECTION} />}
    </div>
  );
}
