import '../../../lib/zod-csp.ts';
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { ZAgent, ZRunHistory, ZRunQueued, type TAgent, type TAgentConfig, type TAgentStatus, type TAgentTemplate, type TRunHistoryEntry } from '../../../../contracts/agents.ts';
import { AGENT_LIST_STALE_MS, STATUS_CHANGE_TIMEOUT_MS } from '../../../../contracts/constants.ts';
import { ApiError, apiRequest } from '../../../lib/api-client.ts';
import { parsedQueryFn } from '../../../lib/query-client.ts';

// Identity comes from the session: unlike SPEC's client we send no googleId.
export const TEMPLATES_QUERY_KEY = ['/api/agent-templates'] as const;
export const AGENTS_QUERY_KEY = ['/api/agents'] as const;
export const agentQueryKey = (id: string) => [`/api/agents/${id}`] as const;
export const RUNS_LIMIT = 50;
export const runsQueryKey = (id: string) => [`/api/agents/${id}/runs?limit=${RUNS_LIMIT}`] as const;

/** SPEC section 9: lists refresh this long after a status change succeeds or fails. */
export const REFRESH_AFTER_SUCCESS_MS = 500;
export const REFRESH_AFTER_FAILURE_MS = 1000;

const ZAgentList = ZAgent.array();

export const useTemplates = () => useQuery<TAgentTemplate[]>({ queryKey: TEMPLATES_QUERY_KEY });

/** SPEC: the agent list is fresh for 30 s, and runs only once the user is known. */
export const useAgents = (enabled: boolean) => useQuery({ queryKey: AGENTS_QUERY_KEY, queryFn: parsedQueryFn(ZAgentList), staleTime: AGENT_LIST_STALE_MS, enabled });

export const useAgent = (id: string) => useQuery({ queryKey: agentQueryKey(id), queryFn: parsedQueryFn(ZAgent) });

/** How often a run history is polled while one of its runs is queued or running. */
export const RUN_POLL_MS = 2000;
export const hasActiveRun = (runs: readonly TRunHistoryEntry[] | undefined) => runs?.some((r) => r.status === 'queued' || r.status === 'running') ?? false;

/**
 * An agent's runs, newest first. Polled only while a run is queued or running, so a 'Run now'
 * result appears without a reload; when the last active run finishes, the agent itself (Last
 * Run, Performance), the list and the notifications are refreshed, since the run changed them.
 */
export function useAgentRuns(id: string) {
  const queryClient = useQueryClient();
  const query = useQuery<TRunHistoryEntry[]>({
    queryKey: runsQueryKey(id),
    queryFn: parsedQueryFn(ZRunHistory),
    refetchInterval: (q) => (hasActiveRun(q.state.data) ? RUN_POLL_MS : false),
  });
  const active = hasActiveRun(query.data);
  const wasActive = useRef(active);
  useEffect(() => {
    if (wasActive.current && !active) {
      void queryClient.invalidateQueries({ queryKey: agentQueryKey(id) });
      void queryClient.invalidateQueries({ queryKey: AGENTS_QUERY_KEY });
      // The run may have raised alerts: the header's bell need not wait for its own poll.
      void queryClient.invalidateQueries({ predicate: (q) => String(q.queryKey[0]).startsWith('/api/notifications') });
    }
    wasActive.current = active;
  }, [active, id, queryClient]);
  return query;
}

/** Every agent query: the list, each agent and each run history (their URLs all start so). */
export const invalidateAgents = (queryClient: QueryClient) =>
  queryClient.invalidateQueries({ predicate: (query) => String(query.queryKey[0]).startsWith('/api/agents') });

export type TCreateAgentBody = { templateId: string; name: string; config: TAgentConfig };

export const createAgent = async (body: TCreateAgentBody): Promise<TAgent> => ZAgent.parse(await apiRequest('POST', '/api/agents', body));
export const changeStatus = async (id: string, status: TAgentStatus): Promise<TAgent> =>
  ZAgent.parse(await apiRequest('PATCH', `/api/agents/${id}`, { status }, { timeoutMs: STATUS_CHANGE_TIMEOUT_MS }));
/** An edit from the details dialog: a new name, the whole new configuration, or both. */
export type TAgentEdit = { name?: string; config?: TAgentConfig };
export const editAgent = async (id: string, edit: TAgentEdit): Promise<TAgent> => ZAgent.parse(await apiRequest('PATCH', `/api/agents/${id}`, edit));
export const deleteAgent = (id: string) => apiRequest<void>('DELETE', `/api/agents/${id}`);
export const runAgent = async (id: string) => ZRunQueued.parse(await apiRequest('POST', `/api/agents/${id}/run`));

/** SPEC's status-failure text: the server's details (their messages joined), else the error's
 * message, else 'Unknown error'. */
export function statusErrorDetails(err: unknown): string {
  if (err instanceof ApiError && err.body && typeof err.body === 'object' && 'details' in err.body) {
    const { details } = err.body;
    if (Array.isArray(details) && details.length > 0) {
      return details.map((d) => (d && typeof d === 'object' && 'message' in d ? String(d.message) : String(d))).join(', ');
    }
    if (typeof details === 'string' && details) return details;
  }
  return err instanceof Error && err.message ? err.message : 'Unknown error';
}

/** The browser's IANA time zone: active hours are entered in local time. */
export const browserTimeZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone;
