import { randomBytes, randomUUID } from 'node:crypto';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { z } from 'zod';
import {
  CHANNEL_MAX_WAIT_SECONDS,
  DELIVERY_FAILURES,
  MAX_CHANNELS,
  type TChannel,
  type TChannelDelivery,
  type TChannelList,
  type TChannelTestResult,
  type TCreatedChannel,
  type TDeliveryEvent,
  type ZCreateChannel,
} from '../../../contracts/channels.ts';
import { notificationUrl } from '../../../contracts/links.ts';
import type { TAlertBrief } from '../../../contracts/notifications.ts';
import type { Db } from '../../db/client.ts';
import type { notifications } from '../../db/schema.ts';
import { channelUrl, maskedTarget, type ChannelConfig } from '../../integrations/channels/channel-config.ts';
import { SIGNING_SECRET_PREFIX, type ChannelMessage } from '../../integrations/channels/channel-message.ts';
import { templateProblem } from '../../integrations/channels/webhook-template.ts';
import { sendToChannel, type ChannelOutcome } from '../../integrations/channels/send-to-channel.ts';
import { checkOutboundUrl } from '../../integrations/outbound/check-outbound-url.ts';
import { OutboundError } from '../../integrations/outbound/outbound-error.ts';
import type { OutboundOptions } from '../../integrations/outbound/send-outbound.ts';
import { AppError } from '../../lib/errors.ts';
import { createSecretBox, SecretBoxError, type SecretBox } from '../../lib/secret-box.ts';
import type { Config } from '../../config.ts';
import {
  countChannels,
  deleteChannel,
  deliveriesOf,
  findChannel,
  findDeliveryTarget,
  heldDeliveries,
  insertChannel,
  insertDeliveries,
  listChannels,
  notifiedChannels,
  ownedChannelIds,
  recordDelivery,
  updateChannelSecret,
  type ChannelRow,
  type DeliveryRow,
} from './channels.repo.ts';
import { channelDeliveries } from '../../lib/telemetry/metrics.ts';
import { inSpan } from '../../lib/telemetry/tracing.ts';

/** When a failed delivery is tried again: the receiver's asked wait when it gave one, else the
 * doubling schedule (CHANNEL_RETRY_DELAY_SECONDS, 2x, 4x, … up to RETRY_DELAY_MAX_SECONDS). */
export type DeliveryRetries = { retries: number; retryDelaySeconds: number };

/** Queues a delivery's attempt: its first at once, a retry (`attempt` 2, 3, …) not before `at`. */
export type EnqueueDelivery = (deliveryId: string, retry?: { attempt: number; at: Date }) => Promise<void>;

/** The schedule's longest wait between two attempts. */
const RETRY_DELAY_MAX_SECONDS = 600;

export type ChannelsServiceDeps = {
  db: Db;
  secretBox: SecretBox;
  /** The outbound door's settings (loopback for test fakes, trusted certificates, its logger). */
  outbound: OutboundOptions;
  telegramBaseUrl: string;
  /** Hands a delivery's attempt to whatever sends it (a job queue), which then calls deliver.
   * Called after the notification is committed, and again for each retry. */
  enqueueDelivery: EnqueueDelivery;
  /** How many times a failed delivery is tried again, and the schedule's first wait. */
  retries: DeliveryRetries;
  logger: Logger;
  /** The site's address, for each message's link (contracts/links.ts). */
  publicUrl: string;
  now?: () => Date;
  /** What brief a delivery carries: the notifications module's rule (as released, or the
   * follow-up's written one). Without it, none. */
  briefOf?: BriefOfDelivery;
};

const NOT_FOUND = 'Channel not found';

function toApiChannel(row: ChannelRow, movedFrom: string | null = null): TChannel {
  return { id: row.id, kind: row.kind, name: row.name, target: row.target, movedFrom, createdAt: row.createdAt.toISOString() };
}

export function toApiDelivery(row: DeliveryRow): TChannelDelivery {
  return { channelId: row.channelId, event: row.event, kind: row.channelKind, channelName: row.channelName, status: row.status, attempts: row.attempts, lastError: row.lastError };
}

/** A notification's brief as a delivery of `event` carries it (docs/decisions/0044). */
export type BriefOfDelivery = (notification: typeof notifications.$inferSelect, event: TDeliveryEvent) => TAlertBrief | null;

/**
 * A user's delivery channels (docs/decisions/0043): their settings, with every secret sealed
 * at rest under the channel's id, and the deliveries of notifications to them. A URL is
 * checked by the outbound door when it is saved and again at every send.
 */
export function createChannelsService({ db, secretBox, outbound, telegramBaseUrl, enqueueDelivery, retries, logger, publicUrl, now = () => new Date(), briefOf = () => null }: ChannelsServiceDeps) {
  const sendOptions = { ...outbound, logger: outbound.logger ?? logger, telegramBaseUrl, now };

  /** The user's channels; a Telegram channel says which chat it moved from, if it did (its sealed config knows). */
  async function list(userId: string): Promise<TChannelList> {
    return { channels: (await listChannels(db, userId)).map((row) => toApiChannel(row, movedFrom(row))) };
  }

  /** The chat a Telegram channel was added with, when it followed its group to a supergroup;
   * null otherwise, or when its secret cannot be opened (the key changed). */
  function movedFrom(row: ChannelRow): string | null {
    if (row.kind !== 'telegram') return null;
    try {
      const config = JSON.parse(secretBox.open(row.secret, row.id)) as ChannelConfig;
      return config.kind === 'telegram' ? (config.movedFrom ?? null) : null;
    } catch (err) {
      if (err instanceof SecretBoxError) return null;
      throw err;
    }
  }

  async function create(userId: string, input: z.output<typeof ZCreateChannel>): Promise<TCreatedChannel> {
    if ((await countChannels(db, userId)) >= MAX_CHANNELS) {
      throw new AppError('CONFLICT', `You have ${MAX_CHANNELS} channels, the most there can be; remove one first.`);
    }
    if (input.kind === 'webhook' && input.template) {
      const problem = templateProblem(input.template);
      if (problem) throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'template', message: problem }]);
    }
    const config: ChannelConfig =
      input.kind === 'webhook'
        ? {
            kind: 'webhook',
            url: input.url,
            // The Standard Webhooks form: whsec_ and base64 (docs/decisions/0090; base64url before it).
            signingSecret: `${SIGNING_SECRET_PREFIX}${randomBytes(32).toString('base64')}`,
            ...(input.template ? { template: input.template } : {}),
          }
        : input.kind === 'telegram'
          ? { kind: 'telegram', botToken: input.botToken, chatId: input.chatId }
          : { kind: input.kind, url: input.url };
    const url = channelUrl(config);
    if (url !== null) await refuseUnsafeUrl(url);
    // The id is made here: it is the sealed secret's context, so the secret opens in this row only.
    const id = randomUUID();
    const row = await insertChannel(db, { id, userId, kind: config.kind, name: input.name, target: maskedTarget(config), secret: secretBox.seal(JSON.stringify(config), id) });
    return { ...toApiChannel(row), ...(config.kind === 'webhook' ? { signingSecret: config.signingSecret } : {}) };
  }

  /** The save-time check: a refusal is a 400 on the field, with the outbound door's sentence. */
  async function refuseUnsafeUrl(url: string): Promise<void> {
    try {
      await checkOutboundUrl(url, outbound);
    } catch (err) {
      if (err instanceof OutboundError) throw new AppError('BAD_REQUEST', 'Invalid request', [{ path: 'url', message: err.message }]);
      throw err;
    }
  }

  async function remove(userId: string, id: string): Promise<void> {
    if (!(await deleteChannel(db, userId, id))) throw new AppError('NOT_FOUND', NOT_FOUND);
  }

  /** 'Send test': one attempt at once, its outcome answered (a failure as its fixed sentence). */
  async function sendTest(userId: string, id: string): Promise<TChannelTestResult> {
    const row = await findChannel(db, userId, id);
    if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
    const at = now();
    const message: ChannelMessage = {
      deliveryId: randomUUID(),
      event: 'test',
      id: randomUUID(),
      kind: 'test',
      agentId: null,
      agentName: 'Test',
      runId: null,
      market: null,
      title: `Test message for ${row.name}`,
      message: 'This channel works: notifications from the agents you choose it for will arrive here.',
      alerts: [],
      conditions: [],
      createdAt: at,
      link: notificationUrl(publicUrl, { agentId: null, runId: null }),
      brief: null,
    };
    const outcome = await attemptOn(row, message);
    if (outcome.ok) return { status: 'sent' };
    logger.warn({ channelId: row.id, kind: row.kind, ...outcome.detail }, 'channel test failed');
    return { status: 'failed', error: outcome.error };
  }

  /**
   * One attempt to the channel. When Telegram answers that the group became a supergroup with a
   * new chat id, the channel adopts that id (sealed like the rest, its list entry saying so) and
   * the message goes there at once: a group's upgrade must not fail every later message.
   */
  async function attemptOn(row: ChannelRow, message: ChannelMessage): Promise<ChannelOutcome> {
    let config: ChannelConfig;
    try {
      config = JSON.parse(secretBox.open(row.secret, row.id)) as ChannelConfig;
    } catch (err) {
      if (!(err instanceof SecretBoxError)) throw err;
      logger.error({ channelId: row.id, reason: err.reason }, 'a channel secret could not be opened');
      return { ok: false, error: DELIVERY_FAILURES['secret-unreadable'], retryable: false, detail: { kind: err.reason } };
    }
    const outcome = await sendToChannel(config, message, sendOptions);
    if (outcome.ok || outcome.movedTo === undefined || config.kind !== 'telegram' || outcome.movedTo === config.chatId) return outcome;
    const moved: ChannelConfig = { ...config, chatId: outcome.movedTo, movedFrom: config.movedFrom ?? config.chatId };
    await updateChannelSecret(db, row.id, { target: maskedTarget(moved), secret: secretBox.seal(JSON.stringify(moved), row.id) });
    logger.info({ channelId: row.id }, 'a Telegram group became a supergroup; the channel now sends to its new chat id');
    return sendToChannel(moved, message, sendOptions);
  }

  /** Which of `ids` are not the user's channels (an agent may choose only its owner's). */
  async function foreignIds(userId: string, ids: readonly string[]): Promise<string[]> {
    const owned = new Set(await ownedChannelIds(db, userId, ids));
    return ids.filter((id) => !owned.has(id));
  }

  /**
   * Records a pending delivery of the notification to each chosen channel still the user's and
   * queues it, or with `hold` (its brief is awaited) only records it: `release` queues it then.
   * A queueing failure is recorded on the delivery, never thrown: the notification stands
   * whatever happens to its deliveries.
   */
  async function schedule(notificationId: string, userId: string, channelIds: readonly string[], options: { hold?: boolean } = {}): Promise<void> {
    const rows = await insertDeliveries(db, notificationId, userId, channelIds);
    if (!options.hold) await queue(rows);
  }

  /** Queues the notification's held deliveries (called once, when the notifications release them). */
  async function release(notificationId: string): Promise<void> {
    await queue(await heldDeliveries(db, notificationId));
  }

  /** The brief's follow-up to each channel the notification went to that is still there. */
  async function followUp(notificationId: string): Promise<void> {
    const notified = await notifiedChannels(db, notificationId);
    if (!notified || notified.channelIds.length === 0) return;
    await queue(await insertDeliveries(db, notificationId, notified.userId, notified.channelIds, 'notification.brief'));
  }

  async function queue(rows: readonly DeliveryRow[]): Promise<void> {
    for (const row of rows) {
      try {
        await enqueueDelivery(row.id);
      } catch (err) {
        logger.error({ err, deliveryId: row.id }, 'could not queue a channel delivery');
        await recordDelivery(db, row.id, { status: 'failed', lastError: DELIVERY_FAILURES['queue-failed'], attempted: false }, now());
      }
    }
  }

  /**
   * One attempt of a delivery (`attempt`, when given, is the number its job was queued for: a job
   * run again after its attempt was recorded sends nothing twice). A failure that may succeed
   * later is recorded 'pending' and queued again: after the wait the receiver asked for (up to
   * CHANNEL_MAX_WAIT_SECONDS; asked more, it fails saying so), else after the doubling schedule's.
   * The last attempt's failure, or one that trying again cannot help (the receiver refused it, the
   * address is forbidden), is 'failed'. Throws only for trouble of our own (the database), which
   * the job queue retries.
   */
  function deliver(deliveryId: string, attempt?: number): Promise<void> {
    return inSpan('channel delivery', { root: true, attributes: { 'channel.delivery.id': deliveryId } }, () => deliverOnce(deliveryId, attempt));
  }

  async function deliverOnce(deliveryId: string, attempt?: number): Promise<void> {
    const target = await findDeliveryTarget(db, deliveryId);
    if (!target || target.delivery.status !== 'pending') return;
    const { delivery, channel, notification } = target;
    const number = delivery.attempts + 1;
    if (attempt !== undefined && attempt !== number) return;
    const counted = (status: 'sent' | 'retry' | 'failed') => channelDeliveries.inc({ channel: delivery.channelKind, status });
    if (!channel) {
      await recordDelivery(db, deliveryId, { status: 'failed', lastError: DELIVERY_FAILURES['channel-removed'], attempted: false }, now());
      counted('failed');
      return;
    }
    const outcome = await attemptOn(channel, {
      deliveryId,
      event: delivery.event,
      id: notification.id,
      kind: notification.kind,
      agentId: notification.agentId,
      agentName: notification.agentName,
      runId: notification.runId,
      market: notification.market,
      title: notification.title,
      message: notification.message,
      alerts: notification.alerts,
      conditions: notification.conditions,
      createdAt: notification.createdAt,
      link: notificationUrl(publicUrl, notification),
      brief: briefOf(notification, delivery.event),
    });
    if (outcome.ok) {
      await recordDelivery(db, deliveryId, { status: 'sent', lastError: null, attempted: true }, now());
      counted('sent');
      return;
    }
    const log = { deliveryId, channelId: channel.id, kind: delivery.channelKind, attempt: number, ...outcome.detail };
    const retry = outcome.retryable && number <= retries.retries ? retryAfter(number, outcome.retryAfterSeconds) : null;
    if (!retry || retry.tooLong) {
      const error = retry?.tooLong ? DELIVERY_FAILURES['wait-too-long'] : outcome.error;
      await recordDelivery(db, deliveryId, { status: 'failed', lastError: error, attempted: true }, now());
      counted('failed');
      logger.warn({ ...log, waitAsked: outcome.retryAfterSeconds }, 'channel delivery failed; giving up');
      return;
    }
    await recordDelivery(db, deliveryId, { status: 'pending', lastError: outcome.error, attempted: true }, now());
    counted('retry');
    logger.warn({ ...log, retryInSeconds: retry.seconds }, 'channel delivery failed; will retry');
    try {
      await enqueueDelivery(deliveryId, { attempt: number + 1, at: new Date(now().getTime() + retry.seconds * 1000) });
    } catch (err) {
      logger.error({ err, deliveryId }, 'could not queue the retry of a channel delivery');
      await recordDelivery(db, deliveryId, { status: 'failed', lastError: DELIVERY_FAILURES['queue-failed'], attempted: false }, now());
    }
  }

  /** The wait before the attempt after `number`: what the receiver asked, else the schedule's. */
  function retryAfter(number: number, asked: number | undefined): { seconds: number; tooLong: boolean } {
    // Whole seconds, at least one: a receiver asking for 0.25 s is not asked again at once.
    if (asked !== undefined) return { seconds: Math.max(1, Math.ceil(asked)), tooLong: asked > CHANNEL_MAX_WAIT_SECONDS };
    return { seconds: Math.min(retries.retryDelaySeconds * 2 ** (number - 1), RETRY_DELAY_MAX_SECONDS), tooLong: false };
  }

  /** Each notification's deliveries, for the notifications' API answers. */
  async function deliveriesFor(notificationIds: readonly string[]): Promise<Map<string, TChannelDelivery[]>> {
    const byNotification = new Map<string, TChannelDelivery[]>();
    for (const row of await deliveriesOf(db, notificationIds)) {
      const list = byNotification.get(row.notificationId) ?? [];
      list.push(toApiDelivery(row));
      byNotification.set(row.notificationId, list);
    }
    return byNotification;
  }

  return { list, create, remove, sendTest, foreignIds, schedule, release, followUp, deliver, deliveriesFor };
}

export type ChannelsService = ReturnType<typeof createChannelsService>;

/** The process's channels service from its configuration: the web app's and a worker's alike.
 * `retries` replaces CHANNEL_RETRIES' schedule (the web app without a job queue tries once). */
export function channelsServiceFromConfig(
  config: Pick<Config, 'channels' | 'outbound' | 'publicUrl'>,
  deps: Pick<ChannelsServiceDeps, 'db' | 'enqueueDelivery' | 'logger' | 'now' | 'briefOf'> & Partial<Pick<ChannelsServiceDeps, 'retries'>>,
): ChannelsService {
  return createChannelsService({
    retries: { retries: config.channels.retries, retryDelaySeconds: config.channels.retryDelaySeconds },
    ...deps,
    secretBox: createSecretBox(config.channels.secretKey.material),
    outbound: config.outbound,
    telegramBaseUrl: config.channels.telegramBaseUrl,
    publicUrl: config.publicUrl,
  });
}
