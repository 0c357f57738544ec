import '../../../lib/zod-csp.ts';
import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { ZConditionState, type TConditionState } from '../../../../contracts/conditions.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { parsedQueryFn } from '../../../lib/query-client.ts';

// The trigger state of an agent's conditions (issue 30, docs/decisions/0071): disarmed after
// 'Only once', snoozed from a notification. It lives beside the configuration, not in it.

export const conditionStatesQueryKey = (agentId: string) => [`/api/agents/${agentId}/conditions/state`] as const;

/** The list, bare or under `states`: either reads the same. */
const ZConditionStates = z.union([ZConditionState.array(), z.object({ states: ZConditionState.array() }).transform((body) => body.states)]);

/** Each condition's state by its id; a condition the server has no state for yet is armed and not snoozed. */
export const useConditionStates = (agentId: string, enabled: boolean) =>
  useQuery<TConditionState[]>({ queryKey: conditionStatesQueryKey(agentId), queryFn: parsedQueryFn(ZConditionStates), enabled });

/** Arms again a condition that fired 'Only once'. */
export const rearmCondition = (agentId: string, conditionId: string) => apiRequest<unknown>('POST', `/api/agents/${agentId}/conditions/${conditionId}/rearm`);
/** Ends a condition's snooze now. */
export const unsnoozeCondition = (agentId: string, conditionId: string) => apiRequest<unknown>('DELETE', `/api/agents/${agentId}/conditions/${conditionId}/snooze`);
