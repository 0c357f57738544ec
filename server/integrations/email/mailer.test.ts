import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSmtpCatcher, type SmtpCatcher } from '../../../tests/fakes/smtp-catcher.ts';
import type { EmailConfig } from '../../config.ts';
import { memoryLogger } from '../../test/memory-logger.ts';
import { createMailer, EmailDeliveryError } from './mailer.ts';

const FROM = 'alerts@example.com';
const SECRET = 's3cret-p@ss';

let catcher: SmtpCatcher;
beforeAll(async () => {
  catcher = await startSmtpCatcher();
});
afterAll(async () => catcher?.close());
beforeEach(() => catcher.reset());

const config = (smtpUrl: string | null): EmailConfig => ({ smtpUrl, from: FROM, retries: 3, retryDelaySeconds: 1 });
/** SMTP_URL with credentials, as a real install has: they must never show up in errors. */
const urlWithCredentials = () => catcher.url.replace('smtp://', `smtp://alerts-user:${encodeURIComponent(SECRET)}@`);
const silent = pino({ level: 'silent' });


describe('createMailer with SMTP', () => {
  it('delivers the message with its sender, recipient, subject and text', async () => {
    const mailer = createMailer(config(urlWithCredentials()), silent);
    const text = 'BTC/USDT on binance: RSI 78.2 is above 70.\n.A line that starts with a dot.\nÉté: 5 % ✓';
    await expect(mailer.send({ to: 'ada@example.com', subject: 'RSI overbought – BTC/USDT', text })).resolves.toEqual({ delivered: 'smtp' });

    const [message] = await catcher.waitForMessages(1);
    expect(message).toMatchObject({ from: FROM, to: ['ada@example.com'], subject: 'RSI overbought – BTC/USDT', authUser: 'alerts-user' });
    expect(message!.text).toBe(text);
  });

  it('keeps a subject on one line whatever it contains', async () => {
    const mailer = createMailer(config(catcher.url), silent);
    await mailer.send({ to: 'ada@example.com', subject: 'Alert\r\nBcc: eve@example.com', text: 'x' });
    const [message] = await catcher.waitForMessages(1);
    expect(message!.subject).toBe('Alert Bcc: eve@example.com');
    expect(message!.to).toEqual(['ada@example.com']);
    expect(message!.data).not.toMatch(/^Bcc:/im);
  });

  it('a server that is unavailable (421) rejects with a transient error naming it, without credentials', async () => {
    catcher.setMode('refuse');
    const mailer = createMailer(config(urlWithCredentials()), silent);
    const error = await mailer.send({ to: 'ada@example.com', subject: 'Hi', text: 'x' }).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(EmailDeliveryError);
    const { message, permanent } = error as EmailDeliveryError;
    expect(message).toContain(`Could not send email through 127.0.0.1:${catcher.port}`);
    expect(message).toContain('421');
    expect(permanent).toBe(false);
    expect(message).not.toContain(SECRET);
    expect(message).not.toContain(encodeURIComponent(SECRET));
    expect(message).not.toContain('alerts-user');
    expect(JSON.stringify(error)).not.toContain(SECRET);
    expect(catcher.messages()).toEqual([]);
  });

  it('a refused sender (554) is a permanent failure', async () => {
    catcher.setMode('reject');
    const mailer = createMailer(config(urlWithCredentials()), silent);
    const error = (await mailer.send({ to: 'ada@example.com', subject: 'Hi', text: 'x' }).catch((err: unknown) => err)) as EmailDeliveryError;
    expect(error.message).toMatch(/554 5\.7\.1 Sender refused/);
    expect(error.permanent).toBe(true);
    expect(error.message).not.toContain(SECRET);
  });

  it('gives up on a server that never answers after its timeout', async () => {
    catcher.setMode('hang');
    const mailer = createMailer(config(urlWithCredentials()), silent, { timeoutMs: 300 });
    const started = Date.now();
    const error = (await mailer.send({ to: 'ada@example.com', subject: 'Hi', text: 'x' }).catch((err: unknown) => err)) as EmailDeliveryError;
    expect(error).toBeInstanceOf(EmailDeliveryError);
    expect(error.message).toMatch(/Greeting never received|timeout|ETIMEDOUT/i);
    expect(error.permanent).toBe(false);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('reports a server that is not listening', async () => {
    const gone = await startSmtpCatcher();
    const url = gone.url;
    await gone.close();
    const mailer = createMailer(config(url), silent, { timeoutMs: 1_000 });
    const error = (await mailer.send({ to: 'ada@example.com', subject: 'Hi', text: 'x' }).catch((err: unknown) => err)) as EmailDeliveryError;
    expect(error).toBeInstanceOf(EmailDeliveryError);
    expect(error.message).toMatch(/ECONNREFUSED/);
  });
});

describe('createMailer without SMTP_URL', () => {
  it('writes the email to the log at info and reports it as logged', async () => {
    const { logger, lines } = memoryLogger();
    const mailer = createMailer(config(null), logger);
    await expect(mailer.send({ to: 'ada@example.com', subject: 'RSI overbought', text: 'RSI 78.2' })).resolves.toEqual({ delivered: 'log' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 30, email: { to: 'ada@example.com', subject: 'RSI overbought', text: 'RSI 78.2' } });
    expect(catcher.messages()).toEqual([]);
  });
});
