import type { MailMessage } from '../../integrations/email/mailer.ts';

export type AlertEmailInput = {
  to: string;
  agentName: string;
  /** The market when the notification is about one; several alerts name theirs in `message`. */
  market: string | null;
  /** The notification's headline ('<agent>: Price change alert on <market>', '<agent> is failing: ...'): the email's subject. */
  title: string;
  message: string;
  createdAt: Date;
  /** The user's IANA time zone (Settings); null or unknown: UTC. */
  timeZone: string | null;
  publicUrl: string;
};

/**
 * The alert email: plain text only, so nothing a user or a market feed controls (agent names,
 * symbols, messages) can become markup in a mail client.
 */
export function alertEmail(input: AlertEmailInput): Omit<MailMessage, 'html'> {
  const consoleUrl = `${input.publicUrl}/agents-console`;
  const text = [
    input.title,
    '',
    `Agent:  ${input.agentName}`,
    ...(input.market ? [`Market: ${input.market}`] : []),
    `Time:   ${formatTime(input.createdAt, input.timeZone)}`,
    '',
    input.message,
    '',
    `Open the agents console: ${consoleUrl}`,
    '',
    '--',
    `You get this email because this agent has email alerts on. Choose where alerts go in Settings: ${input.publicUrl}/settings`,
  ].join('\n');
  // The title already names what alerted (the service writes '<agent>: <type> alert on <market>'), so it is the
  // subject as it stands: prefixing the agent again read 'Scanner: Scanner: BTC/USD on coinbase'.
  return { to: input.to, subject: input.title, text };
}

/** 'Mar 4, 2026, 10:15 AM GMT+1 (Europe/Paris)' in the user's zone; UTC when they have none
 * or it is unknown. The zone's name is spelled out: 'GMT+1' alone does not say which zone. */
function formatTime(at: Date, timeZone: string | null): string {
  const format = (zone: string) =>
    new Intl.DateTimeFormat('en-US', {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZone: zone,
      timeZoneName: 'short',
    }).format(at) + (zone === 'UTC' ? '' : ` (${zone})`);
  if (timeZone) {
    try {
      return format(timeZone);
    } catch {
      // A zone this runtime does not know (stored by a newer one): UTC is still right.
    }
  }
  return format('UTC');
}
