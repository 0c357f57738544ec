import '../../../lib/zod-csp.ts';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Bot, Plus } from 'lucide-react';
import { Tabs } from 'radix-ui';
import { useEffect, useState, type ReactNode } from 'react';
import { useSearchParams } from 'react-router';
import { defaultAgentName, type TAgent, type TAgentConfig, type TAgentTemplate } from '../../../../contracts/agents.ts';
import { NOTIFICATION_LINK_PARAMS } from '../../../../contracts/links.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Skeleton } from '../../../components/ui/skeleton.tsx';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';
import { useAuth } from '../../../lib/auth-context.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { notify } from '../../../lib/notify.ts';
import { AgentCard } from './agent-card.tsx';
import { AgentDetailsDialog } from './agent-details-dialog.tsx';
import { AgentWizard } from './agent-wizard.tsx';
import { AGENTS_QUERY_KEY, createAgent, useAgents, useTemplates } from '../api/agents-api.ts';
import { fieldErrors } from '../lib/field-errors.ts';
import { NameAgentDialog } from './name-agent-dialog.tsx';
import { FIX_MARKED_FIELDS } from './config-fields.tsx';
import { ProposalsSection } from './proposals-section.tsx';
import { TabList, TabPanel } from './tabs.tsx';
import { TemplateCard } from './template-card.tsx';
import { TemplatePickerDialog } from './template-picker-dialog.tsx';

const CONSOLE_TABS = [
  { value: 'running', label: 'Running Agents' },
  { value: 'paused', label: 'Paused Agents' },
  { value: 'templates', label: 'Agent Templates' },
] as const;
type TConsoleTab = (typeof CONSOLE_TABS)[number]['value'];

/** The details dialog's agent; from a notification, the run to show in Run History. */
type TDetails = { agent: TAgent; open: boolean; focusRunId?: number | null };

/** The creation flow: the template (unless chosen from its card), its name, then its configuration. */
type TCreation = { step: 'template' } | { template: TAgentTemplate; step: 'name' | 'configure'; name: string };

/** /agents-console (admin): the user's agents by status, the templates, and creating agents. */
export default function AgentsConsolePage() {
  usePageTitle('AI Agents Console');
  const { user } = useAuth();
  const queryClient = useQueryClient();
  const [tab, setTab] = useState<TConsoleTab>('running');
  const [creation, setCreation] = useState<TCreation | null>(null);
  const [details, setDetails] = useState<TDetails | null>(null);
  const [failingOnly, setFailingOnly] = useState(false);
  const templates = useTemplates();
  const agents = useAgents(Boolean(user));
  useNotificationLink(agents.data, setDetails);

  const create = useMutation({
    mutationFn: ({ template, name, config }: { template: TAgentTemplate; name: string; config: TAgentConfig }) =>
      createAgent({ templateId: template.id, name, config }),
    onSuccess: (agent, { name }) => {
      notify.success('Agent created successfully', `${agent?.name || name} has been created in a paused state. You can start it when ready.`);
      setCreation(null);
      setTab('paused');
      void queryClient.invalidateQueries({ queryKey: AGENTS_QUERY_KEY });
    },
    // A refusal naming fields is shown on them in the wizard; the toast only says where to look.
    onError: (err) =>
      notify.error(
        'Failed to create agent',
        fieldErrors(err) ? FIX_MARKED_FIELDS : errorMessage(err, 'There was a problem creating your agent. Please try again.', { serverWords: false }),
      ),
  });

  const startCreation = (template: TAgentTemplate) => {
    setCreation({ template, step: 'name', name: defaultAgentName(template) });
  };
  const pickTemplate = () => setCreation({ step: 'template' });
  const templateFor = (id: string) => templates.data?.find((t) => t.id === id);
  const closeCreation = (open: boolean) => {
    if (!open && !create.isPending) setCreation(null);
  };

  const failingCount = (agents.data ?? []).filter(isFailing).length;
  const list = (status: TAgent['status']) => (agents.data ?? []).filter((a) => a.status === status && (!failingOnly || isFailing(a)));
  const renderAgents = (status: TAgent['status']) => {
    if (agents.isPending) {
      return (
        <ul aria-busy="true" aria-label="Loading agents" className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {[0, 1, 2].map((i) => (
            <li key={i}>
              <Skeleton className="h-48" />
            </li>
          ))}
        </ul>
      );
    }
    if (agents.isError) {
      return (
        <LoadFailed what="Your agents" error={agents.error} onRetry={() => void agents.refetch()} className="" />
      );
    }
    const shown = list(status);
    if (shown.length === 0 && failingOnly) {
      return <p className="py-6 text-center text-sm text-slate-600">No failing {status === 'running' ? 'running' : 'paused'} agents</p>;
    }
    if (shown.length === 0) {
      return status === 'running' ? (
        <EmptyState title="No Running Agents" text="Create an agent from a template, then resume it to start monitoring.">
          <Button onClick={pickTemplate} disabled={!templates.data?.length}>
            Create Your First Agent
          </Button>
        </EmptyState>
      ) : (
        <EmptyState title="No Paused Agents" text="Agents you pause, and new agents, appear here.">
          <Button variant="outline" onClick={() => setTab('running')}>
            View Running Agents
          </Button>
        </EmptyState>
      );
    }
    return (
      <ul aria-label={status === 'running' ? 'Running agents' : 'Paused agents'} className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {shown.map((agent) => (
          <AgentCard
            key={agent.id}
            agent={agent}
            templateName={templateFor(agent.templateId)?.name ?? agent.templateId}
            onViewDetails={(a) => setDetails({ agent: a, open: true })}
          />
        ))}
      </ul>
    );
  };

  return (
    <div className="mx-auto max-w-6xl px-4 py-10 sm:px-6 lg:px-8">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-3xl font-bold text-slate-900">AI Agents Console</h1>
          <p className="mt-2 text-slate-600">Create, manage, and monitor your AI agents</p>
        </div>
        <Button onClick={pickTemplate} disabled={!templates.data?.length}>
          <Plus aria-hidden="true" /> Create Agent
        </Button>
      </div>

      <ProposalsSection enabled={Boolean(user)} />

      <Tabs.Root value={tab} onValueChange={(value) => setTab(value as TConsoleTab)} className="mt-8">
        <TabList label="Agents" tabs={CONSOLE_TABS} />
        {tab !== 'templates' && (
          <label className="mt-4 inline-flex items-center gap-2 text-sm text-slate-700">
            <input type="checkbox" className="size-4 accent-brand-600" checked={failingOnly} onChange={(event) => setFailingOnly(event.target.checked)} />
            Only failing agents ({failingCount})
          </label>
        )}
        <TabPanel value="running">{renderAgents('running')}</TabPanel>
        <TabPanel value="paused">{renderAgents('paused')}</TabPanel>
        <TabPanel value="templates">
          {templates.isPending ? (
            <ul aria-busy="true" aria-label="Loading templates" className="grid gap-4 sm:grid-cols-2">
              {[0, 1].map((i) => (
                <li key={i}>
                  <Skeleton className="h-48" />
                </li>
              ))}
            </ul>
          ) : templates.isError ? (
            <LoadFailed what="The templates" error={templates.error} onRetry={() => void templates.refetch()} className="" />
          ) : (
            <ul aria-label="Agent templates" className="grid gap-4 sm:grid-cols-2">
              {templates.data.map((template) => (
                <TemplateCard key={template.id} template={template} onUse={startCreation} />
              ))}
            </ul>
          )}
        </TabPanel>
      </Tabs.Root>

      <TemplatePickerDialog open={creation?.step === 'template'} onOpenChange={closeCreation} templates={templates.data ?? []} onPick={startCreation} />
      {creation && creation.step !== 'template' && (
        <>
          <NameAgentDialog
            open={creation.step === 'name'}
            onOpenChange={closeCreation}
            initialName={creation.name}
            pending={create.isPending}
            onContinue={(name) => setCreation({ ...creation, step: 'configure', name })}
          />
          <AgentWizard
            open={creation.step === 'configure'}
            onOpenChange={closeCreation}
            template={creation.template}
            name={creation.name}
            pending={create.isPending}
            onCreate={(config) => create.mutateAsync({ template: creation.template, name: creation.name, config })}
          />
        </>
      )}
      <AgentDetailsDialog
        agent={details?.agent ?? null}
        template={details ? templateFor(details.agent.templateId) : undefined}
        open={details?.open ?? false}
        focusRunId={details?.focusRunId ?? null}
        onOpenChange={(open) => setDetails((d) => (d ? { ...d, open } : null))}
      />
    </div>
  );
}

const isFailing = (agent: TAgent) => agent.health.state === 'failing';

/**
 * A notification links here with ?agent=<id>&run=<id> (contracts/links.ts: the bell, the emails
 * and every channel's message alike): once the agents are loaded the agent's details open at that
 * run, and the link leaves the address, so closing the dialog and reloading does not open it again.
 */
function useNotificationLink(agents: TAgent[] | undefined, show: (details: TDetails) => void) {
  const [params, setParams] = useSearchParams();
  const agentId = params.get(NOTIFICATION_LINK_PARAMS.agent);
  const runId = Number(params.get(NOTIFICATION_LINK_PARAMS.run)) || null;
  useEffect(() => {
    if (!agentId || !agents) return;
    const agent = agents.find((a) => a.id === agentId);
    if (agent) show({ agent, open: true, focusRunId: runId });
    setParams({}, { replace: true });
  }, [agentId, runId, agents, setParams, show]);
}

function EmptyState({ title, text, children }: { title: string; text: string; children: ReactNode }) {
  return (
    <div className="flex flex-col items-center rounded-xl border border-dashed border-slate-300 px-6 py-12 text-center">
      <Bot aria-hidden="true" className="size-10 text-slate-400" />
      <h2 className="mt-3 text-lg font-semibold text-slate-900">{title}</h2>
      <p className="mt-1 max-w-sm text-sm text-slate-600">{text}</p>
      <div className="mt-4">{children}</div>
    </div>
  );
}
