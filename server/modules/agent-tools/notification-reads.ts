import type { TNotification, TNotificationList } from '../../../contracts/notifications.ts';
import type { NotificationsService } from '../notifications/notifications.service.ts';
import { count, type Tool } from './tool-kit.ts';

/** list_notifications: the caller's latest alerts as the bell lists them, with their briefs and deliveries. */

const facts = (n: TNotification) => ({
  id: n.id,
  kind: n.kind,
  agentId: n.agentId,
  agentName: n.agentName,
  runId: n.runId,
  market: n.market,
  title: n.title,
  message: n.message,
  createdAt: n.createdAt,
  read: n.readAt !== null,
  alerts: n.alerts,
  conditions: n.conditions,
  brief: n.brief ? { status: n.brief.status, text: n.brief.text, error: n.brief.error } : null,
  email: n.emailStatus,
  deliveries: n.deliveries.map((d) => ({ channel: d.channelName, kind: d.kind, event: d.event, status: d.status, attempts: d.attempts, error: d.lastError })),
  heldUntil: n.heldUntil,
});

export function listNotificationsTool(notifications: Pick<NotificationsService, 'listJson'>): Tool<'list_notifications'> {
  return {
    argsText: ({ limit }) => `The latest ${limit} alerts`,
    async run({ limit }, { caller }) {
      const list = JSON.parse(await notifications.listJson(caller.user.id, limit)) as TNotificationList;
      return {
        data: { notifications: list.notifications.map(facts), unread: list.unread },
        summary: `${count(list.notifications.length, 'alert')}, ${list.unread} unread`,
      };
    },
  };
}
