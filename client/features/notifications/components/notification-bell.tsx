import '../../../lib/zod-csp.ts';
import { Bell, Mail, MailCheck, MailX, type LucideIcon } from 'lucide-react';
import { Popover } from 'radix-ui';
import { useId, useRef, useState, type MouseEvent } from 'react';
import { Link } from 'react-router';
import { notificationPath } from '../../../../contracts/links.ts';
import { briefAttribution, type TAlertBrief, type TNotification } from '../../../../contracts/notifications.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { useLive } from '../../../lib/live-status.ts';
import { useTimes } from '../../../lib/times.ts';
import { DATE_TIME } from '../../../../contracts/time-format.ts';
import { useLiveEvents } from '../hooks/use-live-events.ts';
import { useMarkAllRead, useMarkRead, useNotifications } from '../api/notifications-api.ts';
import { Button, buttonClasses } from '../../../components/ui/button.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { ConditionSnooze } from './condition-snooze.tsx';

const RELATIVE = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** '5 minutes ago', 'yesterday', 'just now': the bell is about what happened lately. */
export function relativeTime(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (Math.abs(seconds) < 45) return 'just now';
  const [unit, size] = UNITS.find(([, s]) => Math.abs(seconds) >= s) ?? ['minute', 60];
  return RELATIVE.format(Math.round(seconds / size), unit);
}

/** The email's delivery as a small mark beside the time: a word, and the whole story on hover. */
const EMAIL_MARK: Partial<Record<TNotification['emailStatus'], { label: string; title: string; icon: LucideIcon; className: string }>> = {
  pending: { label: 'Email sending', title: 'The email is being sent', icon: Mail, className: 'text-slate-600' },
  sent: { label: 'Emailed', title: 'The email was sent', icon: MailCheck, className: 'text-slate-600' },
  logged: { label: 'Email logged', title: 'No mail server is configured: the email was written to the server log', icon: Mail, className: 'text-slate-600' },
  failed: { label: 'Email failed', title: 'The email could not be sent', icon: MailX, className: 'text-red-700' },
};

/** Where a notification leads: its agent's details at Run History, with its run in view (the
 * link every channel and email carries too); one without an agent has none in the bell. */
export function notificationLink(notification: TNotification): string | null {
  return notification.agentId ? notificationPath(notification) : null;
}

/**
 * The signed-in header's bell: the unread count on a button that opens the latest alerts, each
 * with its own 'Mark as read', and 'Mark all as read'. Loaded lazily by the header, so the
 * landing page's first load carries none of it (Radix, icons).
 */
export default function NotificationBell() {
  const [open, setOpen] = useState(false);
  // The tab's live stream lives with the bell: both are there exactly for a signed-in owner.
  useLiveEvents();
  const notifications = useNotifications(useLive());
  const markRead = useMarkRead();
  const markAllRead = useMarkAllRead();
  const headingId = useId();
  const content = useRef<HTMLDivElement>(null);
  const unread = notifications.data?.unread ?? 0;

  /** A read item loses its button and 'Mark all as read' gets disabled: keyboard focus moves to
   * the next item's button, else the previous one's, else the panel, never to the page. */
  const focusAfterRead = (button: HTMLElement | null) => {
    const buttons = [...(content.current?.querySelectorAll<HTMLButtonElement>('[data-mark-read]') ?? [])];
    const at = button ? buttons.indexOf(button as HTMLButtonElement) : -1;
    const next = at === -1 ? undefined : (buttons[at + 1] ?? buttons[at - 1]);
    (next ?? content.current)?.focus();
  };

  return (
    <Popover.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        // Opening is the moment the user wants the latest, not up to 30 s later.
        if (next) void notifications.refetch();
      }}
    >
      <Popover.Trigger
        aria-label={unread > 0 ? `Notifications, ${unread} unread` : 'Notifications'}
        className={buttonClasses({ variant: 'ghost', size: 'icon', className: 'relative' })}
      >
        <Bell aria-hidden="true" className="size-5" />
        {unread > 0 && (
          <span
            aria-hidden="true"
            className="absolute top-1 right-1 flex h-4.5 min-w-4.5 items-center justify-center rounded-full bg-red-600 px-1 text-[11px] leading-none font-semibold text-white"
          >
            {unread > 99 ? '99+' : unread}
          </span>
        )}
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          ref={content}
          align="end"
          sideOffset={8}
          collisionPadding={8}
          aria-labelledby={headingId}
          className="z-50 flex max-h-[min(32rem,calc(100dvh-5rem))] w-[min(24rem,calc(100vw-1rem))] flex-col rounded-xl border border-slate-200 bg-white shadow-xl focus:outline-none"
        >
          <div className="flex items-center justify-between gap-2 border-b border-slate-200 px-4 py-3">
            <h2 id={headingId} className="text-base font-semibold text-slate-900">
              Notifications
            </h2>
            <Button
              variant="ghost"
              size="sm"
              disabled={unread === 0 || markAllRead.isPending}
              onClick={() => {
                markAllRead.mutate();
                focusAfterRead(null);
              }}
            >
              Mark all as read
            </Button>
          </div>
          <div className="overflow-y-auto">
            {notifications.isPending ? (
              <div className="flex justify-center p-6">
                <Spinner label="Loading notifications" />
              </div>
            ) : notifications.isError ? (
              <div role="alert" className="m-4 rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-800">
                <p>Notifications could not be loaded: {errorMessage(notifications.error)}</p>
                <Button variant="outline" size="sm" className="mt-2" onClick={() => void notifications.refetch()}>
                  Try again
                </Button>
              </div>
            ) : notifications.data.notifications.length === 0 ? (
              <p className="p-6 text-center text-sm text-slate-600">No notifications yet</p>
            ) : (
              <ul aria-labelledby={headingId} className="divide-y divide-slate-100">
                {notifications.data.notifications.map((notification) => (
                  <NotificationItem
                    key={notification.id}
                    notification={notification}
                    onOpen={() => {
                      setOpen(false);
                      if (notification.readAt === null) markRead.mutate(notification.id);
                    }}
                    onMarkRead={(event) => {
                      focusAfterRead(event.currentTarget);
                      markRead.mutate(notification.id);
                    }}
                  />
                ))}
              </ul>
            )}
          </div>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}

/**
 * The alert's brief (docs/decisions/0044), under its alerts: being written, the assistant's text,
 * or why there is none; always with who wrote it. The text is shown as plain text, as it came.
 */
function Brief({ brief }: { brief: TAlertBrief }) {
  return (
    <div role="group" aria-label="Brief" className="mt-1.5 rounded-md border-l-2 border-brand-300 bg-slate-50 px-2 py-1 text-sm">
      {brief.status === 'ready' ? (
        <p className="break-words text-slate-800">{brief.text}</p>
      ) : brief.status === 'pending' ? (
        <p className="text-slate-600 italic">Writing a brief…</p>
      ) : (
        <p className="break-words text-slate-700">No brief: {brief.error}</p>
      )}
      <p className="mt-0.5 text-xs text-slate-600">{briefAttribution(brief)}</p>
    </div>
  );
}

function NotificationItem({ notification, onOpen, onMarkRead }: { notification: TNotification; onOpen(): void; onMarkRead(event: MouseEvent<HTMLButtonElement>): void }) {
  const unread = notification.readAt === null;
  const email = EMAIL_MARK[notification.emailStatus];
  const link = notificationLink(notification);
  const failing = notification.kind === 'failing';
  // The storm notice's message is its summary (how many held back, where, since and until when);
  // its list of held alerts could be long, so the message stands for it.
  const storm = notification.kind === 'alert-storm';
  const times = useTimes();
  return (
    <li className={`flex gap-3 px-4 py-3 ${unread ? 'bg-brand-50/60' : ''}`}>
      <span aria-hidden="true" className={`mt-1.5 size-2 shrink-0 rounded-full ${unread ? 'bg-brand-600' : 'bg-transparent'}`} />
      <div className="min-w-0 flex-1">
        <p className={`text-sm break-words ${failing ? 'text-red-800' : storm ? 'text-amber-800' : 'text-slate-900'} ${unread ? 'font-semibold' : 'font-medium'}`}>
          {unread && <span className="sr-only">Unread: </span>}
          {link ? (
            // Opens the run in Run History; following it reads the notification.
            <Link to={link} onClick={onOpen} className="rounded underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600">
              {notification.title}
            </Link>
          ) : (
            notification.title
          )}
        </p>
        {notification.alerts.length + notification.conditions.length > 0 && !storm ? (
          // The thresholds' alerts, then the owner's conditions in plain words with their values (issue 30).
          <ul aria-label="Alerts" className="mt-0.5 list-disc space-y-0.5 pl-4 text-sm break-words text-slate-700">
            {[...notification.alerts.map((alert) => alert.message), ...notification.conditions.map((c) => c.text)].map((text, index) => (
              <li key={index}>{text}</li>
            ))}
          </ul>
        ) : (
          <p className="mt-0.5 text-sm break-words whitespace-pre-line text-slate-700">{notification.message}</p>
        )}
        <p className="mt-1 flex flex-wrap items-center text-xs whitespace-pre-wrap text-slate-600">
          <span>{[notification.agentName, notification.market].filter(Boolean).join(' · ')}</span>
          <span aria-hidden="true"> · </span>
          <time dateTime={notification.createdAt} title={times.format(notification.createdAt, DATE_TIME, '')}>
            {relativeTime(notification.createdAt)}
          </time>
          {email && (
            <>
              <span aria-hidden="true"> · </span>
              <span title={email.title} className={`inline-flex items-center gap-0.5 ${email.className}`}>
                <email.icon aria-hidden="true" className="size-3.5" />
                {email.label}
              </span>
            </>
          )}
        </p>
        {notification.brief && <Brief brief={notification.brief} />}
        {notification.deliveries.length > 0 && (
          // Each chosen channel's delivery (docs/decisions/0043), and a late brief's follow-up (0044); a failure says why.
          <ul aria-label="Channels" className="mt-0.5 text-xs break-words text-slate-600">
            {notification.deliveries.map((d, index) => (
              <li key={index}>
                {d.channelName}
                {d.event === 'notification.brief' ? ' (brief)' : ''}: {d.status === 'sent' ? 'delivered' : d.status === 'pending' ? 'sending…' : `not delivered. ${d.lastError ?? ''}`}
              </li>
            ))}
          </ul>
        )}
        {notification.agentId !== null &&
          // Each condition it tells of may be snoozed from here, once however many markets it met on.
          [...new Map(notification.conditions.map((c) => [c.conditionId, c])).values()].map((c) => (
            <ConditionSnooze key={c.conditionId} agentId={notification.agentId!} conditionId={c.conditionId} title={c.title} />
          ))}
        {unread && (
          // The label starts with the visible text and names the alert: a list of identical
          // 'Mark as read' buttons would not say which is which to a screen reader.
          <Button
            data-mark-read
            aria-label={`Mark as read: ${notification.title}`}
            variant="ghost"
            size="sm"
            className="mt-1 -ml-3"
            onClick={onMarkRead}
          >
            Mark as read
          </Button>
        )}
      </div>
    </li>
  );
}
