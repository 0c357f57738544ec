import '../../../lib/zod-csp.ts';
import { Bell } from 'lucide-react';
import { Popover } from 'radix-ui';
import { useId, useRef, useState, type MouseEvent } from 'react';
import type { TNotification } from '../../../../contracts/notifications.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { useMarkAllRead, useMarkRead, useNotifications } from '../api/notifications-api.ts';
import { Button, buttonClasses } from '../../../components/ui/button.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';

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

const EMAIL_NOTE: Partial<Record<TNotification['emailStatus'], string>> = {
  pending: 'Sending email…',
  sent: 'Emailed',
  logged: 'Email written to the server log (no mail server configured)',
  failed: 'Email could not be sent',
};

/**
 * The signed-in header's bell: the unread count on a button that opens the latest alerts, each
 * with its own 'Mark as read', and 'Mark all as read'. Loaded lazily by the header, so the
 * landing page's first load carries none of it (Radix, icons).
 */
export default function NotificationBell() {
  const [open, setOpen] = useState(false);
  const notifications = useNotifications();
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

function NotificationItem({ notification, onMarkRead }: { notification: TNotification; onMarkRead(event: MouseEvent<HTMLButtonElement>): void }) {
  const unread = notification.readAt === null;
  const emailNote = EMAIL_NOTE[notification.emailStatus];
  return (
    <li className={`flex gap-3 px-4 py-3 ${unread ? 'bg-brand-50/60' : ''}`}>
      <span aria-hidden="true" className={`mt-1.5 size-2 shrink-0 rounded-full ${unread ? 'bg-brand-600' : 'bg-transparent'}`} />
      <div className="min-w-0 flex-1">
        <p className={`text-sm break-words text-slate-900 ${unread ? 'font-semibold' : 'font-medium'}`}>
          {unread && <span className="sr-only">Unread: </span>}
          {notification.title}
        </p>
        <p className="mt-0.5 text-sm break-words text-slate-700">{notification.message}</p>
        <p className="mt-1 text-xs text-slate-600">
          {notification.agentName} · {notification.market} ·{' '}
          <time dateTime={notification.createdAt} title={new Date(notification.createdAt).toLocaleString()}>
            {relativeTime(notification.createdAt)}
          </time>
        </p>
        {emailNote && <p className={`mt-0.5 text-xs ${notification.emailStatus === 'failed' ? 'text-red-700' : 'text-slate-600'}`}>{emailNote}</p>}
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
