import { notificationUrl, SETTINGS_PATH, type TLinkTarget } from '../../../contracts/links.ts';
import { DATE_TIME, formatTime } from '../../../contracts/time-format.ts';
import { DEFAULT_TIME_ZONE, zoneOr } from '../../../contracts/time-zone.ts';
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
  /** What the notification is about: its link opens the agent's details at the run (contracts/links.ts). */
  about: TLinkTarget;
  /** The alert's brief when it was written before the email went out (docs/decisions/0044). */
  brief?: EmailBrief | null;
};

/** A written brief and who wrote it ('Brief by GPT (GPT-4o)'). */
export type EmailBrief = { text: string; attribution: string };

/** The brief as a paragraph: attributed, and said to be an assistant's reading of the numbers. */
const briefParagraph = (brief: EmailBrief) => [`${brief.attribution}, from the run's recorded numbers:`, brief.text];

/**
 * The alert email: plain text only, so nothing a user or a market feed controls (agent names,
 * symbols, messages) can become markup in a mail client.
 */
export function alertEmail(input: AlertEmailInput): Omit<MailMessage, 'html'> {
  const text = [
    input.title,
    '',
    `Agent:  ${input.agentName}`,
    ...(input.market ? [`Market: ${input.market}`] : []),
    `Time:   ${formatEmailTime(input.createdAt, input.timeZone)}`,
    '',
    input.message,
    ...(input.brief ? ['', ...briefParagraph(input.brief)] : []),
    '',
    `Open the agents console: ${notificationUrl(input.publicUrl, input.about)}`,
    '',
    '--',
    `You get this email because this agent has email alerts on. Choose where alerts go in Settings: ${input.publicUrl}${SETTINGS_PATH}`,
  ].join('\n');
  // The title already names what alerted (the service writes '<agent>: <type> alert on <market>'), so it is the
  // subject as it stands: prefixing the agent again read 'Scanner: Scanner: BTC/USD on coinbase'.
  return { to: input.to, subject: input.title, text };
}

/**
 * The follow-up that carries a brief written after the alert's email went out: plain text like
 * the alert's, its subject the alert's with 'Brief: ' before it, so mail clients thread them.
 */
export function briefEmail(input: Omit<AlertEmailInput, 'message' | 'brief'> & { brief: EmailBrief }): Omit<MailMessage, 'html'> {
  const text = [
    `Brief: ${input.title}`,
    '',
    `Agent:  ${input.agentName}`,
    ...(input.market ? [`Market: ${input.market}`] : []),
    `Time:   ${formatEmailTime(input.createdAt, input.timeZone)}`,
    '',
    ...briefParagraph(input.brief),
    '',
    `Open the agents console: ${notificationUrl(input.publicUrl, input.about)}`,
    '',
    '--',
    `You get this email because this agent has email alerts on and explains its alerts. Choose where alerts go in Settings: ${input.publicUrl}${SETTINGS_PATH}`,
  ].join('\n');
  return { to: input.to, subject: `Brief: ${input.title}`, text };
}

/** 'Mar 4, 2026 10:15 GMT+1 (Europe/Paris)' in the user's zone; UTC when they have none or it is
 * unknown. The zone's name is spelled out: 'GMT+1' alone does not say which zone. */
function formatEmailTime(at: Date, timeZone: string | null): string {
  const zone = zoneOr(timeZone);
  return formatTime(at, DATE_TIME, zone) + (zone === DEFAULT_TIME_ZONE ? '' : ` (${zone})`);
}
