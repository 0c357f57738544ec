import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { TAgent } from '../../../../contracts/agents.ts';
import type { TCondition, TConditionState } from '../../../../contracts/conditions.ts';
import { watchedMarketLabel, type TWatchedMarket } from '../../../../contracts/watchlist.ts';
import { Badge } from '../../../components/ui/badge.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { notify } from '../../../lib/notify.ts';
import { useTimeZone } from '../../../lib/time-zone.ts';
import { conditionStatesQueryKey, rearmCondition, unsnoozeCondition, useConditionStates } from '../api/agents-api.ts';
import { agentTimeframeOf } from '../lib/condition-drafts.ts';
import { ConditionsEditor } from './conditions-editor.tsx';
import { DescribeCondition } from './describe-condition.tsx';
import { ConditionsSummary, zonedText } from './conditions-summary.tsx';
import { EditableSection } from './editable-section.tsx';
import { WatchlistEditor } from './watchlist-editor.tsx';

/** The details' Conditions: each in plain words with its trigger and its state, edited with the wizard's builder. */
export function ConditionsSection({ agent }: { agent: TAgent }) {
  const zone = useTimeZone();
  const conditions = agent.config.conditions ?? [];
  const states = useConditionStates(agent.id, conditions.length > 0);
  const byId = new Map((states.data ?? []).map((s) => [s.conditionId, s] as const));
  return (
    <EditableSection<TCondition[]>
      title="Conditions"
      agent={agent}
      paths="conditions"
      start={(a) => structuredClone(a.config.conditions ?? [])}
      toEdit={(draft, a) => {
        const { conditions: _old, ...rest } = a.config;
        return { config: draft.length > 0 ? { ...rest, conditions: draft } : rest };
      }}
      view={
        <ConditionsSummary
          conditions={conditions}
          state={(condition) => <ConditionStateLine agentId={agent.id} condition={condition} state={byId.get(condition.id)} />}
        />
      }
      editor={(draft, onChange, errors) => (
        <ConditionsEditor
          value={draft}
          onChange={onChange}
          errors={errors}
          agentTimeframe={agentTimeframeOf(agent.config.parameters)}
          timeZone={zone}
          describe={(add) => <DescribeCondition agentTimeframe={agentTimeframeOf(agent.config.parameters)} templateId={agent.templateId} onDraft={add} />}
        />
      )}
    />
  );
}

/**
 * What the trigger state makes of a condition now: Expired (its expiry has passed), Disarmed
 * after firing once (Re-arm), Snoozed until a time in the owner's zone (Unsnooze); nothing while
 * it is simply armed.
 */
export function ConditionStateLine({ agentId, condition, state }: { agentId: string; condition: TCondition; state: TConditionState | undefined }) {
  const zone = useTimeZone();
  const now = useMinuteClock();
  const queryClient = useQueryClient();
  const title = condition.name?.trim() ? condition.name : 'this condition';
  const refresh = () => queryClient.invalidateQueries({ queryKey: conditionStatesQueryKey(agentId) });
  const rearm = useMutation({
    mutationFn: () => rearmCondition(agentId, condition.id),
    onSuccess: () => {
      notify.success('Condition re-armed', `It notifies again the next time it is met.`);
      void refresh();
    },
    onError: (err) => notify.error('Could not re-arm the condition', errorMessage(err)),
  });
  const unsnooze = useMutation({
    mutationFn: () => unsnoozeCondition(agentId, condition.id),
    onSuccess: () => {
      notify.success('Snooze ended', 'It notifies again the next time it is met.');
      void refresh();
    },
    onError: (err) => notify.error('Could not end the snooze', errorMessage(err)),
  });
  const expired = condition.trigger.expiresAt !== undefined && Date.parse(condition.trigger.expiresAt) <= now;
  const snoozedUntil = state?.snoozedUntil && Date.parse(state.snoozedUntil) > now ? state.snoozedUntil : null;
  if (!expired && !state?.disarmed && !snoozedUntil) return null;
  return (
    <div className="mt-1 flex flex-wrap items-center gap-2">
      {expired && <Badge variant="neutral">Expired</Badge>}
      {state?.disarmed && (
        <>
          <Badge variant="warning">Disarmed: fired once</Badge>
          <Button variant="outline" size="sm" disabled={rearm.isPending} aria-label={`Re-arm ${title}`} onClick={() => rearm.mutate()}>
            Re-arm
          </Button>
        </>
      )}
      {snoozedUntil && (
        <>
          <Badge variant="brand">{`Snoozed until ${zonedText(snoozedUntil, zone)}`}</Badge>
          <Button variant="outline" size="sm" disabled={unsnooze.isPending} aria-label={`Unsnooze ${title}`} onClick={() => unsnooze.mutate()}>
            Unsnooze
          </Button>
        </>
      )}
    </div>
  );
}

/** The Custom Monitor's markets in the details, edited with the wizard's editor. */
export function WatchlistSection({ agent }: { agent: TAgent }) {
  const watchlist = agent.config.watchlist ?? [];
  return (
    <EditableSection<TWatchedMarket[]>
      title="Watchlist"
      agent={agent}
      paths="watchlist"
      start={(a) => structuredClone(a.config.watchlist ?? [])}
      toEdit={(draft, a) => ({ config: { ...a.config, watchlist: draft } })}
      view={
        watchlist.length ? (
          <ul className="mt-2 flex flex-wrap gap-2 text-sm" aria-label="Markets watched">
            {watchlist.map((market) => (
              <li key={watchedMarketLabel(market)} className="rounded-full bg-slate-100 px-2.5 py-0.5 text-slate-800">
                {watchedMarketLabel(market)}
              </li>
            ))}
          </ul>
        ) : (
          <p className="mt-2 text-sm text-slate-600">No markets</p>
        )
      }
      editor={(draft, onChange, errors) => <WatchlistEditor value={draft} onChange={onChange} errors={errors} />}
    />
  );
}

/** Now, again every half minute: an expiry or a snooze's end passes while the details are open. */
function useMinuteClock(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}
