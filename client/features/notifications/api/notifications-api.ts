import '../../../lib/zod-csp.ts';
import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { ZNotification, ZNotificationList, type TNotificationList } from '../../../../contracts/notifications.ts';
import { ZConditionState, type TConditionState, type TSnoozeRequest } from '../../../../contracts/conditions.ts';
import { apiRequest, errorMessage } from '../../../lib/api-client.ts';
import { notify } from '../../../lib/notify.ts';
import { parsedQueryFn } from '../../../lib/query-client.ts';

/** How many of the latest notifications the bell lists. */
export const NOTIFICATIONS_SHOWN = 20;
export const NOTIFICATIONS_QUERY_KEY = [`/api/notifications?limit=${NOTIFICATIONS_SHOWN}`] as const;
/** Without the live stream, alerts from scheduled runs still show within half a minute. */
export const NOTIFICATIONS_POLL_MS = 30_000;

/**
 * The signed-in user's latest notifications and unread count, refreshed by the live stream's
 * events (useLiveEvents), polled only while that stream is not open, and refreshed when the
 * user comes back to the tab (the app's default is neither).
 */
export const useNotifications = (live: boolean) =>
  useQuery({
    queryKey: NOTIFICATIONS_QUERY_KEY,
    queryFn: parsedQueryFn(ZNotificationList),
    refetchInterval: live ? false : NOTIFICATIONS_POLL_MS,
    refetchOnWindowFocus: true,
    staleTime: 0,
  });

/** The list with the given notifications (all, for null) read as of now. */
function readLocally(list: TNotificationList, ids: string[] | null): TNotificationList {
  const now = new Date().toISOString();
  let newlyRead = 0;
  const notifications = list.notifications.map((n) => {
    if (n.readAt !== null || (ids !== null && !ids.includes(n.id))) return n;
    newlyRead++;
    return { ...n, readAt: now };
  });
  return { notifications, unread: ids === null ? 0 : Math.max(0, list.unread - newlyRead) };
}

/** Shows the change at once and puts the list back if the server refuses it. */
function optimistic(queryClient: QueryClient, ids: string[] | null) {
  return async () => {
    await queryClient.cancelQueries({ queryKey: NOTIFICATIONS_QUERY_KEY });
    const previous = queryClient.getQueryData<TNotificationList>(NOTIFICATIONS_QUERY_KEY);
    if (previous) queryClient.setQueryData(NOTIFICATIONS_QUERY_KEY, readLocally(previous, ids));
    return { previous };
  };
}

export function useMarkRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (id: string) => ZNotification.parse(await apiRequest('POST', `/api/notifications/${encodeURIComponent(id)}/read`)),
    onMutate: (id: string) => optimistic(queryClient, [id])(),
    onError: (err, _id, context) => {
      if (context?.previous) queryClient.setQueryData(NOTIFICATIONS_QUERY_KEY, context.previous);
      notify.error('Could not mark the notification as read', errorMessage(err));
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: NOTIFICATIONS_QUERY_KEY }),
  });
}

export function useMarkAllRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => apiRequest<void>('POST', '/api/notifications/read-all'),
    onMutate: optimistic(queryClient, null),
    onError: (err, _vars, context) => {
      if (context?.previous) queryClient.setQueryData(NOTIFICATIONS_QUERY_KEY, context.previous);
      notify.error('Could not mark the notifications as read', errorMessage(err));
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: NOTIFICATIONS_QUERY_KEY }),
  });
}

/** POST /api/agents/:id/conditions/:conditionId/snooze (issue 30): a preset or a chosen time; answers until when. */
export function useSnoozeCondition() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ agentId, conditionId, request }: { agentId: string; conditionId: string; request: TSnoozeRequest }): Promise<TConditionState> =>
      ZConditionState.parse(await apiRequest('POST', `/api/agents/${encodeURIComponent(agentId)}/conditions/${encodeURIComponent(conditionId)}/snooze`, request)),
    // The agent's details show the condition snoozed (the agents feature reads its state under this key's prefix).
    onSuccess: (_state, { agentId }) => queryClient.invalidateQueries({ queryKey: [`/api/agents/${agentId}/conditions/state`] }),
  });
}
