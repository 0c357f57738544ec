import pg from 'pg';
import pino from 'pino';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';
import { createBus, type Bus } from './bus.ts';
import { EVENTS_CHANNEL } from './event-publisher.ts';

const onPostgres = process.env.TEST_DATABASE === 'postgres';
const silent = pino({ level: 'silent' });

/**
 * The bus's delivery promise across processes (docs/decisions/0049), spoken to in its own wire
 * messages by a stand-in process: a raw connection that heartbeats and acknowledges only when the
 * test says so.
 */
describe.runIf(onPostgres)('invalidations across processes: acknowledged delivery', () => {
  let t: TestApp;
  let bus: Bus;
  let peer: pg.Client;
  let heartbeat: NodeJS.Timeout;
  const heard: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    t = await createTestApp();
    bus = await createBus({ database: t.database, logger: silent });
    peer = new pg.Client({ connectionString: (t.config.database as { url: string }).url });
    await peer.connect();
    peer.on('notification', (m) => heard.push(JSON.parse(m.payload!) as Record<string, unknown>));
    await peer.query(`LISTEN ${EVENTS_CHANNEL}`);
    let n = 0;
    const beat = () => void peer.query('select pg_notify($1, $2)', [EVENTS_CHANNEL, JSON.stringify({ h: 'stand-in', n: ++n })]).catch(() => {});
    beat();
    heartbeat = setInterval(beat, 200);
    await until(async () => bus.invalidations.reliable(), (ok) => ok);
  });
  afterAll(async () => {
    clearInterval(heartbeat);
    await peer.end();
    await bus.close();
    await t.close();
  });

  it('a writer is answered only once every process heard lately has acknowledged, not merely once it heard itself', async () => {
    // Let the bus hear the stand-in's heartbeats first.
    await until(async () => heard.filter((m) => m.h === 'stand-in').length, (count) => count >= 3);
    const sent = await t.database.db.transaction((tx) => bus.invalidations.notify(tx, 'user', 'someone'));
    let delivered = false;
    const delivering = sent.delivered().then(() => (delivered = true));
    const invalidation = await until(async () => heard.find((m) => m.c === 'user' && m.k === 'someone'), (m) => m !== undefined);
    // The bus has its own echo long before the stand-in answers; without the acknowledgement it waits.
    const beats = heard.filter((m) => m.h === 'stand-in').length;
    await until(async () => heard.filter((m) => m.h === 'stand-in').length, (count) => count >= beats + 2);
    expect(delivered).toBe(false);
    await peer.query('select pg_notify($1, $2)', [EVENTS_CHANNEL, JSON.stringify({ a: invalidation!.i, p: 'stand-in' })]);
    await delivering;
    expect(delivered).toBe(true);
  });

  it('acknowledges what other processes send, from its own boot id', async () => {
    const id = 'other-process-1';
    await t.database.db.execute(sql`select pg_notify(${EVENTS_CHANNEL}, ${JSON.stringify({ c: 'articles', k: '', i: id })})`);
    const ack = await until(async () => heard.find((m) => m.a === id), (m) => m !== undefined);
    expect(typeof ack!.p).toBe('string');
    expect(heard.some((m) => m.h === ack!.p)).toBe(true);
  });
});
