import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Tabs } from 'radix-ui';
import { Pencil, Play, Trash2 } from 'lucide-react';
import { useEffect, useId, useState } from 'react';
import type { TAgent, TAgentConfig, TAgentTemplate, TFrequency } from '../../../../contracts/agents.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Dialog } from '../../../components/ui/dialog.tsx';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { notify } from '../../../lib/notify.ts';
import { DATE, DATE_TIME, formatDate, formatValue, frequencyLabel, thresholdLabel } from '../lib/agent-format.ts';
import { agentQueryKey, browserTimeZone, deleteAgent, invalidateAgents, runAgent, updateConfig, useAgent, useAgentRuns } from '../api/agents-api.ts';
import { CONTROL, Row } from './form-controls.tsx';
import { TOKEN_PLACEHOLDER } from './parameter-field.tsx';
import { FailingNotice, PerformanceValue } from './agent-health.tsx';
import { RunChartPanel } from './run-chart.tsx';
import { RunHistory } from './run-history.tsx';
import { ScheduleFields, toDraft, type TScheduleDraft } from './schedule-fields.tsx';
import { TabList, TabPanel } from './tabs.tsx';

// SPEC's three tabs in its order; Chart comes after them and mounts (loading the chart
// library) only when opened.
export const DETAILS_TABS = [
  { value: 'overview', label: 'Overview' },
  { value: 'runs', label: 'Run History' },
  { value: 'settings', label: 'Settings' },
  { value: 'chart', label: 'Chart' },
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
 * open, or on Run History at the run a notification is about. */
export function AgentDetailsDialog({ agent, template, open, onOpenChange, focusRunId = null }: Props) {
  return (
    <Dialog
      open={open && agent !== null}
      onOpenChange={onOpenChange}
      size="xl"
      title={agent?.name ?? 'Agent details'}
      description={template ? `Based on ${template.name}` : 'Agent details'}
    >
      {agent && <DetailsBody key={`${agent.id}:${focusRunId}`} initial={agent} template={template} focusRunId={focusRunId} onClose={() => onOpenChange(false)} />}
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
        <Settings agent={agent} />
      </TabPanel>
      <TabPanel value="chart">
        <RunChartPanel runs={runs.data} loading={runsLoading} />
      </TabPanel>
    </Tabs.Root>
  );
}

const SECTION = 'rounded-lg border border-slate-200 p-4';

function useSaveConfig(agent: TAgent, onSaved: () => void) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (config: TAgentConfig) => updateConfig(agent.id, config),
    onSuccess: (updated) => {
      queryClient.setQueryData(agentQueryKey(agent.id), updated);
      notify.success('Agent updated successfully', 'The changes have been saved.');
      onSaved();
      void invalidateAgents(queryClient);
    },
    onError: (err) => notify.error('Failed to update agent', errorMessage(err, 'There was a problem updating the agent. Please try again.', { serverWords: false })),
  });
}

function Overview({ agent, template, onDeleted }: { agent: TAgent; template: TAgentTemplate | undefined; onDeleted(): void }) {
  const queryClient = useQueryClient();
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
        <Row term="Status">{agent.status === 'running' ? 'Active' : 'Paused'}</Row>
        <Row term="Last Run">{formatDate(agent.lastRun, DATE_TIME)}</Row>
        <Row term="Created">{formatDate(agent.createdAt, DATE, 'Unknown')}</Row>
        <Row term="Performance">
          <PerformanceValue agent={agent} />
        </Row>
      </dl>
      <ScheduleSection agent={agent} />
      <ParametersSection agent={agent} template={template} />
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

function SectionHeader({ title, editing, onEdit, canEdit = true }: { title: string; editing: boolean; onEdit(): void; canEdit?: boolean }) {
  return (
    <div className="flex items-center justify-between">
      <h3 className="text-sm font-semibold text-slate-900">{title}</h3>
      {!editing && canEdit && (
        <Button variant="ghost" size="sm" aria-label={`Edit ${title.toLowerCase()}`} onClick={onEdit}>
          <Pencil aria-hidden="true" /> Edit
        </Button>
      )}
    </div>
  );
}

function ScheduleSection({ agent }: { agent: TAgent }) {
  const { schedule } = agent.config;
  const [draft, setDraft] = useState<TScheduleDraft | null>(null);
  const save = useSaveConfig(agent, () => setDraft(null));
  const zone = browserTimeZone();
  return (
    <section className={SECTION} aria-label="Schedule">
      <SectionHeader title="Schedule" editing={draft !== null} onEdit={() => setDraft(toDraft(schedule))} />
      {draft ? (
        <div className="mt-3">
          <ScheduleFields value={draft} onChange={setDraft} allowUnset />
          <div className="mt-4 flex justify-end gap-2">
            <Button variant="outline" onClick={() => setDraft(null)}>
              Cancel
            </Button>
            <Button
              disabled={!draft.frequency || save.isPending}
              onClick={() =>
                save.mutate({
                  ...agent.config,
                  schedule: { frequency: draft.frequency as TFrequency, daysActive: draft.daysActive, activeHours: draft.activeHours, timeZone: zone },
                })
              }
            >
              {save.isPending ? 'Saving...' : 'Save'}
            </Button>
          </div>
        </div>
      ) : (
        <dl className="mt-2">
          <Row term="Frequency">{frequencyLabel(schedule.frequency)}</Row>
          <Row term="Active days">{schedule.daysActive.length ? schedule.daysActive.join(', ') : 'None'}</Row>
          <Row term="Trading hours">
            {schedule.activeHours ? `${schedule.activeHours.start} – ${schedule.activeHours.end}` : 'All day'}
            {schedule.activeHours && schedule.timeZone && schedule.timeZone !== zone ? ` (${schedule.timeZone})` : ' (local time)'}
          </Row>
        </dl>
      )}
    </section>
  );
}

function ParametersSection({ agent, template }: { agent: TAgent; template: TAgentTemplate | undefined }) {
  const id = useId();
  const { parameters } = agent.config;
  const [token, setToken] = useState<string | null>(null);
  const save = useSaveConfig(agent, () => setToken(null));
  const hasToken = 'token' in parameters;
  const label = (key: string) => template?.defaultConfig.parameters[key]?.label ?? key;
  const editing = token !== null;
  return (
    <section className={SECTION} aria-label="Parameters">
      {/* SPEC: only the token is editable; the other parameters stay read-only. */}
      <SectionHeader title="Parameters" editing={editing} canEdit={hasToken} onEdit={() => setToken(String(parameters.token ?? ''))} />
      <dl className="mt-2">
        {Object.entries(parameters).map(([key, value]) =>
          editing && key === 'token' ? (
            <div key={key} className="py-1.5">
              <label htmlFor={id} className="block text-sm text-slate-600">
                {label(key)}
              </label>
              <input
                id={id}
                type="text"
                value={token}
                placeholder={TOKEN_PLACEHOLDER}
                autoCapitalize="characters"
                onChange={(event) => setToken(event.target.value.toUpperCase())}
                className={`${CONTROL} mt-1`}
              />
            </div>
          ) : (
            <Row key={key} term={label(key)}>
              {formatValue(value)}
            </Row>
          ),
        )}
      </dl>
      {editing && (
        <div className="mt-4 flex justify-end gap-2">
          <Button variant="outline" onClick={() => setToken(null)}>
            Cancel
          </Button>
          <Button disabled={save.isPending} onClick={() => save.mutate({ ...agent.config, parameters: { ...parameters, token: token.trim() } })}>
            {save.isPending ? 'Saving...' : 'Save'}
          </Button>
        </div>
      )}
    </section>
  );
}

export function Settings({ agent }: { agent: TAgent }) {
  const { notifications } = agent.config;
  return (
    <div className="space-y-4">
      <dl className={SECTION}>
        <Row term="Email notifications">{notifications.email ? 'On' : 'Off'}</Row>
        <Row term="In-app notifications">{notifications.inApp ? 'On' : 'Off'}</Row>
      </dl>
      <section className={SECTION} aria-label="Alert thresholds">
        <h3 className="text-sm font-semibold text-slate-900">Alert thresholds</h3>
        {notifications.thresholds.length ? (
          <ul className="mt-2 space-y-2 text-sm">
            {notifications.thresholds.map((t, i) => (
              <li key={i} className="flex flex-wrap gap-x-3">
                <span className="font-medium text-slate-900">{thresholdLabel(t.type)}</span>
                <span className="text-slate-700">{t.value}%</span>
                <span className="text-slate-600">{t.message}</span>
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-2 text-sm text-slate-600">No thresholds configured</p>
        )}
      </section>
    </div>
  );
}
