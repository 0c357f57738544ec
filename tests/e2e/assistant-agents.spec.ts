import { randomUUID } from 'node:crypto';
import type { APIRequestContext } from '@playwright/test';
import { defaultAgentConfig, findTemplate, type TAgentConfig, type TAgentRun } from '../../contracts/agents.ts';
import { MARKET_FAILURES } from '../../contracts/market.ts';
import { startFakeAiProviders } from '../fakes/ai-providers.ts';
import { startFakeExchanges } from '../fakes/exchanges.ts';
import { expect, test, toasts } from './fixtures.ts';
import { expectNoSeriousViolations } from './support/axe.ts';
import { startAppServer } from './support/app-server.ts';
import { ADMIN_EMAIL, ADMIN_NAME } from './support/constants.ts';

// Issue 31: an admin asks the hub about their agents and has one proposed. Its own server on
// live market data from the exchanges fake (so an agent can fail) and its own fake models
// (scripted through their tool control, apart from the other journeys' shared fake).

const KRAKEN_DOWN = `BTC/USD (kraken): ${MARKET_FAILURES.unavailable}`;

function krakenConfig(): TAgentConfig {
  const base = defaultAgentConfig(findTemplate('crypto-market-monitor')!, 'UTC');
  return {
    ...base,
    notifications: { email: false, inApp: true, thresholds: [{ type: 'priceChange', value: 0, message: 'Price moved' }] },
    parameters: { ...base.parameters, token: 'BTC', exchanges: ['Kraken'], timeframe: '1h', includeOnChainMetrics: false, walletTracking: false },
  } as TAgentConfig;
}

/** What the model proposes: a Custom Monitor on BTC/USDT at Binance alerting when RSI (14) crosses above 30. */
function rsiConfig(): TAgentConfig {
  const base = defaultAgentConfig(findTemplate('custom-monitor')!, 'UTC');
  return {
    ...base,
    parameters: { timeframe: '1h' },
    watchlist: [{ kind: 'crypto', symbol: 'BTC/USDT', exchange: 'binance' }],
    conditions: [
      {
        id: randomUUID(),
        name: 'RSI crosses above 30',
        when: { kind: 'group', join: 'all', clauses: [{ kind: 'clause', left: { indicator: 'rsi', period: 14 }, operator: 'crosses-above', right: { indicator: 'number', value: 30 } }] },
        trigger: { mode: 'once-per-close', cooldownMinutes: 30 },
      },
    ],
  } as TAgentConfig;
}

async function runOnce(request: APIRequestContext, url: string, id: string, headers: Record<string, string>): Promise<TAgentRun> {
  const queued = await request.post(`${url}/api/agents/${id}/run`, { headers });
  expect(queued.status()).toBe(202);
  const { runId } = (await queued.json()) as { runId: number };
  let run: TAgentRun | undefined;
  await expect(async () => {
    const runs = (await (await request.get(`${url}/api/agents/${id}/runs`)).json()) as TAgentRun[];
    run = runs.find((r) => r.id === runId);
    expect(run?.status).toMatch(/^(success|failure)$/);
  }).toPass({ timeout: 20_000 });
  return run!;
}

test.describe('assistants that work with your agents', () => {
  test('ask which agents are failing and why, see the steps; have an RSI alert proposed, see its test on history, create it paused', async ({ page }, testInfo) => {
    test.setTimeout(120_000);
    const models = await startFakeAiProviders();
    const exchanges = await startFakeExchanges();
    const server = await startAppServer({ env: { ...models.env, ...exchanges.env, MARKET_DATA: 'live', MARKET_RETRIES: '0' } });
    try {
      const headers = { origin: server.url };
      expect((await page.request.post(`${server.url}/api/auth/local/login`, { data: { email: ADMIN_EMAIL, name: ADMIN_NAME }, headers })).status()).toBe(200);
      const created = await page.request.post(`${server.url}/api/agents`, { data: { templateId: 'crypto-market-monitor', name: 'Kraken watch', config: krakenConfig() }, headers });
      expect(created.status()).toBe(201);
      const { id } = (await created.json()) as { id: string };
      exchanges.setFault('kraken', '500');
      expect((await runOnce(page.request, server.url, id, headers)).error).toBe(KRAKEN_DOWN);

      // 1. Which agents are failing and why: the model reads the agents, then the failed runs.
      models.scriptTools('openai', [
        { calls: [{ name: 'list_agents', arguments: '{}' }] },
        { calls: [{ name: 'list_runs', arguments: JSON.stringify({ agentId: id, status: 'failure', limit: 5 }) }] },
        { text: 'Kraken watch is failing: Kraken answered errors for BTC/USD, so its last run could not read the market.' },
      ]);
      await page.goto(`${server.url}/chat-console`);
      await expect(page.getByRole('switch', { name: 'Use my agents' })).toBeChecked();
      await page.getByRole('textbox', { name: 'Message GPT' }).fill('Which of my agents are failing and why?');
      await page.keyboard.press('Enter');
      const log = page.getByRole('log', { name: 'Messages' });
      await expect(log.getByText('Kraken watch is failing: Kraken answered errors for BTC/USD')).toBeVisible({ timeout: 20_000 });
      const listed = log.getByRole('button', { name: /Listed your agents/ });
      const runs = log.getByRole('button', { name: /Read runs/ });
      await expect(listed).toContainText('1 agent');
      await expect(runs).toContainText('1 failed run');
      await runs.click();
      await expect(runs).toHaveAttribute('aria-expanded', 'true');
      await expect(page.locator(`#${await runs.getAttribute('aria-controls')}`)).toContainText('list_runs');
      // What the model was sent back: the run's recorded error, as data.
      const second = models.requests()[1]!;
      expect(second.toolResults[0]!.output).toContain('"data"');
      expect(models.requests()[2]!.toolResults.at(-1)!.output).toContain(MARKET_FAILURES.unavailable);
      await expectNoSeriousViolations(page, testInfo, 'chat tool steps', 'main');

      // 2. An agent that alerts on an RSI crossing: proposed, with its test on history, created paused.
      const name = `RSI crossing ${randomUUID().slice(0, 6)}`;
      models.scriptTools('openai', [
        { calls: [{ name: 'propose_agent', arguments: JSON.stringify({ templateId: 'custom-monitor', name, config: rsiConfig(), reason: 'You asked for an alert when RSI crosses above 30 on BTC/USDT.' }) }] },
        { text: 'I proposed an agent for you: review its test on history, then create it paused or discard it.' },
      ]);
      await page.getByRole('textbox', { name: 'Message GPT' }).fill('Make me an agent that alerts when RSI crosses above 30 on BTC/USDT.');
      await page.keyboard.press('Enter');
      await expect(log.getByText('I proposed an agent for you')).toBeVisible({ timeout: 30_000 });
      const proposed = log.getByRole('button', { name: /Proposed an agent/ });
      await proposed.click();
      const card = log.getByRole('article', { name: `Proposed agent: ${name}` });
      await expect(card).toBeVisible();
      await expect(card.getByRole('region', { name: 'Test on history' })).toBeVisible();
      await expectNoSeriousViolations(page, testInfo, 'chat proposal card', 'main');
      await card.getByRole('button', { name: 'Create paused' }).click();
      await expect(card.getByText('Created, paused')).toBeVisible();
      await expect(toasts(page).getByText(`${name} created, paused`).last()).toBeVisible();

      // In the console, paused.
      await page.goto(`${server.url}/agents-console`);
      await page.getByRole('tab', { name: 'Paused Agents' }).click();
      await expect(page.getByRole('tabpanel').getByRole('listitem', { name })).toBeVisible();
    } finally {
      await server.stop();
      await exchanges.close();
      await models.close();
    }
  });
});
