import { readFileSync } from 'node:fs';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig, type TThreshold } from '../../../contracts/agents.ts';
import { THRESHOLD_DEFINITIONS } from '../../../contracts/alert-thresholds.ts';
import { agents } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const CRYPTO = 'crypto-market-monitor';
const MIGRATION = readFileSync(new URL('../../db/migrations/0005_threshold_default_messages.sql', import.meta.url), 'utf8');
const SIGNED_MIGRATION = readFileSync(new URL('../../db/migrations/0017_threshold_signed_default_messages.sql', import.meta.url), 'utf8');

function cryptoConfig(thresholds: TThreshold[]): TAgentConfig {
  const config = defaultAgentConfig(findTemplate(CRYPTO)!);
  return { ...config, notifications: { ...config.notifications, thresholds } };
}

const messages = (agent: TAgent) => agent.config.notifications.thresholds.map((t) => t.message);

/** Issue 15 item 2: a message nobody wrote never contradicts its threshold's type and value. */
describe('threshold default messages', () => {
  let t: TestApp;
  let cookie: string;

  beforeAll(async () => {
    t = await createTestApp();
    cookie = await t.signIn('owner@example.com', 'Owner');
  });
  afterAll(async () => t?.close());

  const create = async (thresholds: TThreshold[]): Promise<TAgent> => {
    const res = await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: CRYPTO, name: 'Coins', config: cryptoConfig(thresholds) } });
    expect(res.statusCode).toBe(201);
    return res.json();
  };

  it('on create, a default message follows the value; the user’s own words stay', async () => {
    const agent = await create([
      // The agent: the value set to 0.1, the crypto template's old message kept.
      { type: 'priceChange', value: 0.1, message: 'Price moved more than 3%' },
      { type: 'volumeAlert', value: 1500, message: 'Volume above 150% of average' },
      { type: 'volatilityAlert', value: 2.5, message: 'Volatility above 2x its average' },
      { type: 'volumeSpike', value: 300, message: 'Price change above 5%' },
      { type: 'priceChange', value: 0.1, message: 'BTC is on the move' },
    ]);
    expect(messages(agent)).toEqual([
      'Price change above 0.1%',
      'Volume above 1,500% of average',
      'Volatility above 2.5% of the price',
      'Volume spike above 300% of average',
      'BTC is on the move',
    ]);
    // What the answer says is what is stored.
    expect(messages((await t.request({ url: `/api/agents/${agent.id}`, cookie })).json())).toEqual(messages(agent));
  });

  it('on a config change, a default message follows the new type and value', async () => {
    const agent = await create([{ type: 'priceChange', value: 3, message: 'Price change above 3%' }]);
    const config = cryptoConfig([
      { type: 'priceChange', value: 7, message: 'Price change above 3%' },
      { type: 'volumeAlert', value: 150, message: 'Price change alert' },
    ]);
    const res = await t.request({ method: 'PATCH', url: `/api/agents/${agent.id}`, cookie, payload: { config } });
    expect(res.statusCode).toBe(200);
    expect(messages(res.json())).toEqual(['Price change above 7%', 'Volume above 150% of average']);
  });

  // Issue 29 item 5: the editor wrote 'Price change above -5%' while the value field held -5 on
  // the way to 0.1, and neither it nor the server recognised that as a default afterwards.
  it('on create and on a config change, a default written for a negative value follows the value', async () => {
    const agent = await create([
      { type: 'priceChange', value: 0.1, message: 'Price change above -5%' },
      { type: 'volumeAlert', value: 150, message: 'Volume above -1,500.5% of average' },
      { type: 'priceChange', value: 2, message: 'Down -1% or more' },
    ]);
    expect(messages(agent)).toEqual(['Price change above 0.1%', 'Volume above 150% of average', 'Down -1% or more']);
    const res = await t.request({
      method: 'PATCH',
      url: `/api/agents/${agent.id}`,
      cookie,
      payload: { config: cryptoConfig([{ type: 'volatilityAlert', value: 2, message: 'Price change above -1%' }]) },
    });
    expect(res.statusCode).toBe(200);
    expect(messages(res.json())).toEqual(['Volatility above 2% of the price']);
  });

  it('migration 0017 repairs stored defaults written for a negative value, and touches nothing else', async () => {
    const me = (await t.request({ url: '/api/auth/me', cookie })).json() as { user: { id: string } };
    const stored: TThreshold[] = [
      { type: 'priceChange', value: 0.1, message: 'Price change above -5%' },
      { type: 'volumeSpike', value: 1500, message: 'Volume spike above -1% of average' },
      { type: 'priceChange', value: 3, message: 'Price change above 3%' },
      { type: 'priceChange', value: 0.1, message: 'My words: Price change above -5%' },
    ];
    const insert = async (name: string, thresholds: TThreshold[]) =>
      (await t.database.db.insert(agents).values({ ownerId: me.user.id, templateId: CRYPTO, name, status: 'paused', config: cryptoConfig(thresholds) }).returning())[0]!;
    const row = await insert('Saved at -5 then 0.1', stored);
    const untouched = await insert('Nothing negative', [{ type: 'priceChange', value: 2, message: 'Price change above 7%' }]);

    await t.database.db.execute(sql.raw(SIGNED_MIGRATION));

    const [after] = await t.database.db.select().from(agents).where(eq(agents.id, row.id));
    expect(after!.config.notifications.thresholds.map((t) => t.message)).toEqual([
      'Price change above 0.1%',
      'Volume spike above 1,500% of average',
      'Price change above 3%',
      'My words: Price change above -5%',
    ]);
    // The SQL writes the text the contracts give. An agent with no negative default is not
    // rewritten: its stale 'above 7%' at 2 would have become 'above 2%' (migration 0005's business).
    expect(after!.config.notifications.thresholds.slice(0, 3).map((t) => t.message)).toEqual(stored.slice(0, 3).map((t) => THRESHOLD_DEFINITIONS[t.type].defaultMessage(t.value)));
    const [same] = await t.database.db.select().from(agents).where(eq(agents.id, untouched.id));
    expect(same!.config).toEqual(untouched.config);
  });

  it('migration 0005 brings untouched defaults of stored agents in line, as the server writes them', async () => {
    const me = (await t.request({ url: '/api/auth/me', cookie })).json() as { user: { id: string } };
    const stored: TThreshold[] = [
      { type: 'priceChange', value: 0.1, message: 'Price moved more than 3%' },
      { type: 'volumeSpike', value: 200, message: 'Volume spiked above 200% of average' },
      { type: 'volatilityAlert', value: 2, message: 'Volatility above 2x its average' },
      { type: 'volumeAlert', value: 1500, message: 'Volume above 150% of average' },
      { type: 'priceChange', value: 5, message: 'Price change alert' },
      { type: 'priceChange', value: 2.12345, message: 'Price moved more than 5%' },
      { type: 'priceChange', value: 0.1, message: 'My words: Price moved more than 3%' },
    ];
    const [row] = await t.database.db
      .insert(agents)
      .values({ ownerId: me.user.id, templateId: CRYPTO, name: 'Saved before', status: 'paused', config: cryptoConfig(stored) })
      .returning({ id: agents.id });
    const [empty] = await t.database.db
      .insert(agents)
      .values({ ownerId: me.user.id, templateId: CRYPTO, name: 'No thresholds', status: 'paused', config: cryptoConfig([]) })
      .returning({ id: agents.id });

    await t.database.db.execute(sql.raw(MIGRATION));

    const [after] = await t.database.db.select().from(agents).where(eq(agents.id, row!.id));
    const expected = [
      'Price change above 0.1%',
      'Volume spike above 200% of average',
      'Volatility above 2% of the price',
      'Volume above 1,500% of average',
      'Price change above 5%',
      'Price change above 2.1235%',
      'My words: Price moved more than 3%',
    ];
    expect(after!.config.notifications.thresholds.map((t) => t.message)).toEqual(expected);
    // The SQL writes the very text the contracts give for each untouched threshold.
    stored.slice(0, 6).forEach((threshold, i) => expect(THRESHOLD_DEFINITIONS[threshold.type].defaultMessage(threshold.value)).toBe(expected[i]));
    expect(after!.config.notifications.thresholds.map((t) => t.value)).toEqual(stored.map((t) => t.value));
    const [untouched] = await t.database.db.select().from(agents).where(eq(agents.id, empty!.id));
    expect(untouched!.config.notifications.thresholds).toEqual([]);
  });
});
