import type { FastifyBaseLogger as Logger } from 'fastify';
import type { TNotification, TNotificationList } from '../../../contracts/notifications.ts';
import type { Db } from '../../db/client.ts';
import { EmailDeliveryError, type Mailer } from '../../integrations/email/mailer.ts';
import { AppError } from '../../lib/errors.ts';
import { alertEmail } from './alert-email.ts';
import {
  clearAlert,
  countUnread,
  findEmailTarget,
  insertNotification,
  listNotifications,
  markAllNotificationsRead,
  markNotificationRead,
  recordEmailOutcome,
  startAlert,
  type NotificationRow,
} from './notifications.repo.ts';
import { FOREIGN_KEY_VIOLATION, sqlState } from '../../lib/db-errors.ts';

export type AlertCondition = { market: string; thresholdType: string; firing: boolean; title: string; message: string };

export type ApplyAlertsInput = {
  /** The agent's owner: who is alerted. */
  userId: string;
  agentId: string;
  agentName: string;
  /** The run that saw the conditions; null when there is none to point at. */
  runId: number | null;
  emailEnabled: boolean;
  inAppEnabled: boolean;
  /** Every condition the run evaluated, firing or not: a non-firing one clears its state. */
  conditions: AlertCondition[];
};

export type EmailAttempt = { number: number; last: boolean };

export type NotificationsServiceDeps = {
  db: Db;
  mailer: Mailer;
  /** Hands the notification's email to whatever delivers it (a job queue with retries), which
   * then calls deliverEmail. Called after the notification is committed. */
  enqueueEmail: (notificationId: string) => Promise<void>;
  logger: Logger;
  /** The site's origin, for the console link in emails. */
  publicUrl: string;
  now?: () => Date;
};

const NOT_FOUND = 'Notification not found';
const MAX_ERROR_CHARS = 500;

export function toApiNotification(row: NotificationRow): TNotification {
  return {
    id: row.id,
    agentId: row.agentId,
    agentName: row.agentName,
    market: row.market,
    thresholdType: row.thresholdType,
    title: row.title,
    message: row.message,
    createdAt: row.createdAt.toISOString(),
    readAt: row.readAt?.toISOString() ?? null,
    emailStatus: row.emailStatus,
  };
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err)).slice(0, MAX_ERROR_CHARS);

export function createNotificationsService({ db, mailer, enqueueEmail, logger, publicUrl, now = () => new Date() }: NotificationsServiceDeps) {
  /**
   * Turns one run's evaluated conditions into alerts, at most one per (agent, market, threshold)
   * until the condition clears (DESIGN section 7). A firing condition alerts only if this call
   * inserted its alert_states row, so concurrent runs of one agent cannot both alert; a
   * non-firing one deletes the row, so its next firing alerts again. All in one transaction,
   * with rows locked in key order so two runs cannot deadlock each other.
   *
   * Channels: with email on, the notification starts 'pending' and its email is queued after
   * the commit (a rolled-back alert never sends). With in-app off but email on, the row still
   * exists (it carries the email's status and shows in the bell's history) but is created read,
   * so the bell never counts it as new. With both off, nothing is created and the condition is
   * not marked as alerted, so turning alerts on while it still fires alerts at once.
   *
   * Email trouble never fails this call: a queueing failure marks the email 'failed'.
   */
  async function applyAlerts(input: ApplyAlertsInput): Promise<{ created: TNotification[] }> {
    const alerting = input.emailEnabled || input.inAppEnabled;
    const conditions = [...input.conditions].sort((a, b) =>
      a.market === b.market ? compare(a.thresholdType, b.thresholdType) : compare(a.market, b.market),
    );
    const at = now();

    let created: NotificationRow[];
    try {
      created = await db.transaction(async (tx) => {
        const rows: NotificationRow[] = [];
        for (const condition of conditions) {
          const key = { agentId: input.agentId, market: condition.market, thresholdType: condition.thresholdType };
          if (!condition.firing) {
            await clearAlert(tx, key);
            continue;
          }
          if (!alerting || !(await startAlert(tx, key, at))) continue;
          rows.push(
            await insertNotification(tx, {
              userId: input.userId,
              agentId: input.agentId,
              runId: input.runId,
              agentName: input.agentName,
              market: condition.market,
              thresholdType: condition.thresholdType,
              title: condition.title,
              message: condition.message,
              emailStatus: input.emailEnabled ? 'pending' : 'none',
              readAt: input.inAppEnabled ? null : at,
              createdAt: at,
            }),
          );
        }
        return rows;
      });
    } catch (err) {
      // The agent (or its run) was deleted while it ran: there is nobody left to alert.
      if (sqlState(err) === FOREIGN_KEY_VIOLATION) {
        logger.info({ agentId: input.agentId, runId: input.runId }, 'alerts skipped: the agent or run no longer exists');
        return { created: [] };
      }
      throw err;
    }

    const results: TNotification[] = [];
    for (const row of created) {
      results.push(toApiNotification(row.emailStatus === 'pending' ? await queueEmail(row) : row));
    }
    return { created: results };
  }

  /** Queues the email; if that fails, the notification records it instead of the caller failing. */
  async function queueEmail(row: NotificationRow): Promise<NotificationRow> {
    try {
      await enqueueEmail(row.id);
      return row;
    } catch (err) {
      const error = `Could not queue the email: ${errorText(err)}`;
      logger.error({ err, notificationId: row.id }, 'could not queue an alert email');
      try {
        return (await recordEmailOutcome(db, row.id, { status: 'failed', error, attempted: false })) ?? row;
      } catch (recordErr) {
        logger.error({ err: recordErr, notificationId: row.id }, 'could not record that an alert email failed to queue');
        return { ...row, emailStatus: 'failed', emailError: error };
      }
    }
  }

  /**
   * One delivery attempt of a notification's email, to the user's alert email or else their
   * sign-in email. A failure is recorded and rethrown so the job queue retries with backoff,
   * except on the last attempt or when the server refused the message for good (a 5xx reply:
   * sending it again gets the same answer): then the email is 'failed' and this resolves.
   */
  async function deliverEmail(notificationId: string, attempt: EmailAttempt): Promise<void> {
    const target = await findEmailTarget(db, notificationId);
    if (!target) {
      logger.info({ notificationId }, 'alert email skipped: the notification no longer exists');
      return;
    }
    // Already delivered (a job run again after a crash), or no email was asked for.
    if (target.emailStatus === 'sent' || target.emailStatus === 'logged' || target.emailStatus === 'none') return;

    const email = alertEmail({
      to: target.alertEmail ?? target.signInEmail,
      agentName: target.agentName,
      market: target.market,
      title: target.title,
      message: target.message,
      createdAt: target.createdAt,
      timeZone: target.timeZone,
      publicUrl,
    });
    try {
      const { delivered } = await mailer.send(email);
      await recordEmailOutcome(db, notificationId, { status: delivered === 'smtp' ? 'sent' : 'logged', error: null, attempted: true });
    } catch (err) {
      const giveUp = attempt.last || (err instanceof EmailDeliveryError && err.permanent);
      const error = errorText(err);
      await recordEmailOutcome(db, notificationId, { status: giveUp ? 'failed' : 'pending', error, attempted: true });
      // The mailer's errors carry no credentials; only their text is logged.
      logger.warn({ notificationId, attempt: attempt.number, giveUp, error }, giveUp ? 'alert email failed; giving up' : 'alert email failed; will retry');
      if (!giveUp) throw err;
    }
  }

  /** The user's latest notifications, newest first, and how many of all theirs are unread. */
  async function list(userId: string, limit: number): Promise<TNotificationList> {
    const [rows, unread] = await Promise.all([listNotifications(db, userId, limit), countUnread(db, userId)]);
    return { notifications: rows.map(toApiNotification), unread };
  }

  /** Marks the user's notification read (again is fine); another user's is 404 like a missing one. */
  async function markRead(userId: string, id: string): Promise<TNotification> {
    const row = await markNotificationRead(db, userId, id, now());
    if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
    return toApiNotification(row);
  }

  async function markAllRead(userId: string): Promise<void> {
    await markAllNotificationsRead(db, userId, now());
  }

  return { applyAlerts, deliverEmail, list, markRead, markAllRead };
}

export type NotificationsService = ReturnType<typeof createNotificationsService>;

/** A fixed order, not the locale's: every process must take the row locks in the same order. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
