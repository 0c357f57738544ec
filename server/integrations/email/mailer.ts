import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Transporter } from 'nodemailer';
import type { EmailConfig } from '../../config.ts';

export type MailMessage = { to: string; subject: string; text: string; html?: string };
export type MailDelivery = { delivered: 'smtp' | 'log' };
export type Mailer = { send(message: MailMessage): Promise<MailDelivery> };

/**
 * A message the SMTP server did not take. The text names the server (host and port only) and
 * its reply; it never carries the credentials of SMTP_URL, so it is safe to log and to store.
 */
export class EmailDeliveryError extends Error {
  /** True when the server refused the message for good (5xx): sending it again is pointless. */
  readonly permanent: boolean;
  constructor(message: string, permanent: boolean) {
    super(message);
    this.name = 'EmailDeliveryError';
    this.permanent = permanent;
  }
}

/** A few seconds per step: an unreachable or stalled server must not hold a job for minutes
 * (nodemailer's own defaults are 2 min to connect and 10 min of socket inactivity). */
const DEFAULT_TIMEOUT_MS = 5_000;
const MAX_ERROR_CHARS = 300;

/**
 * Sends email through SMTP_URL, or, when it is not set, writes each email to the log at info
 * so a development install still shows what would have been sent.
 */
export function createMailer(email: EmailConfig, logger: Logger, options: { timeoutMs?: number } = {}): Mailer {
  const { smtpUrl, from } = email;
  if (smtpUrl === null) {
    return {
      async send({ to, subject, text }) {
        logger.info({ email: { to, subject: oneLine(subject), text } }, 'email not sent (SMTP_URL is not set); logged instead');
        return { delivered: 'log' };
      },
    };
  }

  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // nodemailer is loaded at the first email, not when the server starts (a tenth of a CPU-second
  // of every start, decision 0105); the transport is made once.
  let transport: Promise<Transporter> | undefined;
  const transportOnce = () =>
    (transport ??= import('nodemailer').then(({ createTransport }) =>
      createTransport({
        url: smtpUrl,
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs * 2,
        dnsTimeout: timeoutMs,
      }),
    ));
  const server = serverName(smtpUrl);
  const secrets = credentials(smtpUrl);

  return {
    async send({ to, subject, text, html }) {
      try {
        await (await transportOnce()).sendMail({ from, to, subject: oneLine(subject), text, ...(html !== undefined ? { html } : {}) });
        return { delivered: 'smtp' };
      } catch (err) {
        // Not the original error as a cause: loggers serialise causes, and ours must stay clean.
        throw new EmailDeliveryError(`Could not send email through ${server}: ${scrub(describe(err), secrets)}`, isPermanent(err));
      }
    },
  };
}

/** Header values are one line: a title with a line break must not start a header of its own. */
const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ').trim();

function serverName(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  return `${url.hostname}:${url.port || (url.protocol === 'smtps:' ? '465' : '587')}`;
}

/**
 * The URL's user and password, raw and decoded, to strip from any text we pass on. Nodemailer's
 * errors do not quote them; this is a second line of defence. Values under 4 characters are
 * left alone: stripping 'u' would mangle every word of the message and hide no real secret.
 */
function credentials(smtpUrl: string): string[] {
  const url = new URL(smtpUrl);
  const parts = [url.username, url.password].flatMap((part) => [part, safeDecode(part)]);
  return [...new Set(parts)].filter((part) => part.length >= 4);
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function scrub(text: string, secrets: string[]): string {
  let clean = text;
  for (const secret of secrets) clean = clean.split(secret).join('[redacted]');
  return clean.length > MAX_ERROR_CHARS ? `${clean.slice(0, MAX_ERROR_CHARS)}…` : clean;
}

type SmtpErrorFields = { message?: unknown; code?: unknown; responseCode?: unknown; permanent?: unknown };

/** The server's reply when there is one ('Mail command failed: 554 5.7.1 ...'), else what
 * went wrong with the connection and its code ('Greeting never received (ETIMEDOUT)'). */
function describe(err: unknown): string {
  const fields: SmtpErrorFields = err && typeof err === 'object' ? (err as SmtpErrorFields) : {};
  const message = typeof fields.message === 'string' && fields.message ? oneLine(fields.message) : 'unknown error';
  const code = typeof fields.code === 'string' ? fields.code : undefined;
  return typeof fields.responseCode === 'number' || !code || message.includes(code) ? message : `${message} (${code})`;
}

function isPermanent(err: unknown): boolean {
  return Boolean(err && typeof err === 'object' && (err as SmtpErrorFields).permanent === true);
}
