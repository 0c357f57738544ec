import { eq, sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig } from '../../../contracts/agents.ts';
import { agents } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { createDispatcher } from '../runtime/dispatcher.ts';
import { scheduleOf } from '../../test/agent-schedules.ts';

const STOCK = 'stock-market-scanner';
const silent = pino({ level: 'silent' });

/** The Stock Market Scanner's own schedule: hourly, 09:30-16:00, Monday to Friday, in New York. */
const stockInNewYork = (changes: Partial<TAgentConfig['schedule']> = {}): TAgentConfig => {
  const config = defaultAgentConfig(findTemplate(STOCK)!, 'America/New_York');
  return { ...config, schedule: { ...config.schedule, ...changes } };
};

/**
 * Schedules as the API and the dispatcher keep them, on PGlite and on PostgreSQL: slots counted
 * from the start of the active hours, on local time across both of New York's 2027 clock
 * changes (2027-03-14 02:00 EST -> 03:00 EDT; 2027-11-07 02:00 EDT -> 01:00 EST), and the
 * former '1min' frequency read as Real-time. Every expected instant is worked out by hand.
 */
describe('agent schedules', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: 'admin@example.com', MARKET_DATA: 'simulated', DISPATCH_LOOKAHEAD_MS: '0' } });
  });
  afterAll(async () => t.close());

  /** Puts the app's clock at `iso` and signs in there (a session lives 30 days of that clock). */
  const at = async (iso: string): Promise<string> => {
    t.advanceTime(Date.parse(iso) - t.now().getTime());
    return t.signIn('admin@example.com', 'Admin');
  };
  const create = async (cookie: string, config: unknown, name: string): Promise<TAgent> => {
    const res = await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: STOCK, name, config } });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const setStatus = async (cookie: string, id: string, status: 'running' | 'paused'): Promise<TAgent> => {
    const res = await t.request({ method: 'PATCH', url: `/api/agents/${id}`, cookie, payload: { status } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };
  const resume = (cookie: string, id: string) => setStatus(cookie, id, 'running');

  /** Runs the dispatcher at each slot the agent is next due, up to `until`: the slots it queued. */
  const slotsUntil = async (id: string, until: string): Promise<string[]> => {
    let clock = new Date(0);
    const dispatcher = createDispatcher({ db: t.database.db, jobs: { enqueueRunBatches: async () => {} }, logger: silent, now: () => clock });
    const queued: string[] = [];
    for (;;) {
      const due = (await scheduleOf(t.database.db, id)).nextRunAt!;
      if (due.getTime() > Date.parse(until)) return queued;
      clock = new Date(due.getTime() + 3000); // a dispatch tick a few seconds after the slot
      expect(await dispatcher.dispatchDue(clock)).toBe(1);
      queued.push(due.toISOString());
    }
  };

  it('runs an hourly 09:30-16:00 scanner at 09:30, 10:30 ... 15:30 New York time, across the spring-forward', async () => {
    const cookie = await at('2027-03-12T13:00:00Z'); // Friday 08:00 EST
    const agent = await create(cookie, stockInNewYork(), 'spring scanner');
    expect((await resume(cookie, agent.id)).nextRunAt).toBe('2027-03-12T14:30:00.000Z'); // 09:30 EST, not 10:00

    const slots = await slotsUntil(agent.id, '2027-03-15T23:00:00Z');
    expect(slots).toEqual([
      // Friday, EST (UTC-5): 09:30 ... 15:30
      '2027-03-12T14:30:00.000Z',
      '2027-03-12T15:30:00.000Z',
      '2027-03-12T16:30:00.000Z',
      '2027-03-12T17:30:00.000Z',
      '2027-03-12T18:30:00.000Z',
      '2027-03-12T19:30:00.000Z',
      '2027-03-12T20:30:00.000Z',
      // Monday, EDT (UTC-4): the same wall times, an hour earlier in UTC
      '2027-03-15T13:30:00.000Z',
      '2027-03-15T14:30:00.000Z',
      '2027-03-15T15:30:00.000Z',
      '2027-03-15T16:30:00.000Z',
      '2027-03-15T17:30:00.000Z',
      '2027-03-15T18:30:00.000Z',
      '2027-03-15T19:30:00.000Z',
    ]);
    const read: TAgent = (await t.request({ url: `/api/agents/${agent.id}`, cookie })).json();
    expect(read.nextRunAt).toBe('2027-03-16T13:30:00.000Z'); // Tuesday 09:30 EDT
    await setStatus(cookie, agent.id, 'paused'); // out of the next tests' dispatches
  });

  it('runs a daily agent at the start of its hours and a half-hourly one through the repeated hour of the fall-back', async () => {
    const cookie = await at('2027-11-05T12:00:00Z'); // Friday 08:00 EDT
    const daily = await create(cookie, stockInNewYork({ frequency: 'daily', activeHours: { start: '09:45', end: '16:00' } }), 'daily scanner');
    expect((await resume(cookie, daily.id)).nextRunAt).toBe('2027-11-05T13:45:00.000Z'); // 09:45 EDT
    expect(await slotsUntil(daily.id, '2027-11-09T00:00:00Z')).toEqual([
      '2027-11-05T13:45:00.000Z', // Friday 09:45 EDT
      '2027-11-08T14:45:00.000Z', // Monday 09:45 EST
    ]);
    await setStatus(cookie, daily.id, 'paused');

    // Sundays 01:15-02:50, every 30 minutes: 01:15 and 01:45 happen twice on 2027-11-07, and
    // each happening runs (the hour really passes twice); 02:15 and 02:45 once, in EST.
    const night = await create(
      cookie,
      stockInNewYork({ frequency: '30min', daysActive: ['Sunday'], activeHours: { start: '01:15', end: '02:50' } }),
      'night watch',
    );
    expect((await resume(cookie, night.id)).nextRunAt).toBe('2027-11-07T05:15:00.000Z'); // 01:15 EDT
    expect(await slotsUntil(night.id, '2027-11-07T12:00:00Z')).toEqual([
      '2027-11-07T05:15:00.000Z', // 01:15 EDT
      '2027-11-07T05:45:00.000Z', // 01:45 EDT
      '2027-11-07T06:15:00.000Z', // 01:15 EST
      '2027-11-07T06:45:00.000Z', // 01:45 EST
      '2027-11-07T07:15:00.000Z', // 02:15 EST
      '2027-11-07T07:45:00.000Z', // 02:45 EST
    ]);
    expect((await t.request({ url: `/api/agents/${night.id}`, cookie })).json().nextRunAt).toBe('2027-11-14T06:15:00.000Z'); // next Sunday 01:15 EST
    await setStatus(cookie, night.id, 'paused');
  });

  it('offers one entry per period, reads the former 1min as Real-time, and refuses a frequency not in the list', async () => {
    const cookie = await at('2027-12-01T10:00:30Z');
    // Sent by a client that still uses SPEC section 9's '1min': saved as Real-time.
    const sent = await create(cookie, stockInNewYork({ frequency: '1min' as TAgentConfig['schedule']['frequency'], activeHours: { start: '00:00', end: '23:59' } }), 'old client');
    expect(sent.config.schedule.frequency).toBe('realtime');
    const [stored] = await t.database.db.select({ config: agents.config }).from(agents).where(eq(agents.id, sent.id));
    expect(stored!.config.schedule.frequency).toBe('realtime');

    // Stored by an earlier version: answered as Real-time, and scheduled every minute.
    await t.database.db
      .update(agents)
      .set({ config: sql`jsonb_set(${agents.config}, '{schedule,frequency}', '"1min"')` })
      .where(eq(agents.id, sent.id));
    const read: TAgent = (await t.request({ url: `/api/agents/${sent.id}`, cookie })).json();
    expect(read.config.schedule.frequency).toBe('realtime');
    expect((await resume(cookie, sent.id)).nextRunAt).toBe('2027-12-01T10:01:00.000Z');
    expect(await slotsUntil(sent.id, '2027-12-01T10:03:00Z')).toEqual(['2027-12-01T10:01:00.000Z', '2027-12-01T10:02:00.000Z', '2027-12-01T10:03:00.000Z']);
    const listed: TAgent[] = (await t.request({ url: '/api/agents', cookie })).json();
    expect(listed.find((a) => a.id === sent.id)!.config.schedule.frequency).toBe('realtime');

    const refused = await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: STOCK, name: 'every 2 min', config: stockInNewYork({ frequency: '2min' as 'realtime' }) } });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().details).toEqual([
      { path: 'config.schedule.frequency', message: 'Frequency must be one of Real-time, Every 5 minutes, Every 15 minutes, Every 30 minutes, Hourly, Daily, Weekly' },
    ]);
  });
});
