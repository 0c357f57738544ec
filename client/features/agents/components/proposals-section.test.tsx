import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { AGENT_TEMPLATES } from '../../../../contracts/agents.ts';
import type { TProposal } from '../../../../contracts/assistant-tools.ts';
import { stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import { backtestResult, STOCK_AGENT } from '../lib/agents-test-data.ts';
import AgentsConsolePage from './agents-console-page.tsx';

const PENDING = '/api/agents/proposals?status=pending';
const proposal = (id: string, overrides: Partial<TProposal> = {}): TProposal => ({
  id,
  kind: 'change',
  status: 'pending',
  source: 'mcp',
  sourceName: 'Cursor on my laptop',
  reason: 'Fewer false alarms',
  agentId: STOCK_AGENT.id,
  agentName: 'Tech watch, quieter',
  templateId: STOCK_AGENT.templateId,
  config: STOCK_AGENT.config,
  configText: ['Template: Stock Market Scanner'],
  differences: [{ field: 'Name', before: 'Tech watch', after: 'Tech watch, quieter' }],
  backtest: backtestResult(),
  backtestError: null,
  createdAt: '2026-11-28T08:00:00.000Z',
  decidedAt: null,
  resultAgentId: null,
  ...overrides,
});
const ONE = '44444444-4444-4444-8444-444444444444';
const TWO = '55555555-5555-4555-8555-555555555555';
const routes = (pending: TProposal[]) => ({ 'GET /api/agent-templates': { body: AGENT_TEMPLATES }, 'GET /api/agents': { body: [STOCK_AGENT] }, [`GET ${PENDING}`]: { body: pending } });
const renderConsole = () => renderWithProviders(<AgentsConsolePage />, { path: '/agents-console', auth: signedInAs('admin') });

describe('the console’s Proposals', () => {
  it('lists the pending proposals, MCP’s and the chat’s, each as a card with its decision', async () => {
    stubFetch(routes([proposal(ONE), proposal(TWO, { kind: 'create', source: 'chat', sourceName: 'Claude', agentId: null, agentName: 'RSI watch', differences: [] })]));
    renderConsole();
    const section = await screen.findByRole('region', { name: 'Proposals' });
    const cards = within(section).getAllByRole('article');
    expect(cards.map((c) => within(c).getByRole('heading').textContent)).toEqual(['Proposed change: Tech watch, quieter', 'Proposed agent: RSI watch']);
    expect(cards[0]).toHaveTextContent('Proposed by Cursor on my laptop over MCP.');
    expect(within(cards[0]!).getByRole('button', { name: 'Apply' })).toBeInTheDocument();
    expect(within(cards[1]!).getByRole('button', { name: 'Create paused' })).toBeInTheDocument();
  });

  it('a decided card stays in its decided state while the pending list is read anew, and the agents are read anew', async () => {
    let pending = [proposal(ONE)];
    const { requests } = stubFetch({
      ...routes([]),
      [`GET ${PENDING}`]: () => new Response(JSON.stringify(pending), { headers: { 'content-type': 'application/json' } }),
      [`POST /api/agents/proposals/${ONE}/apply`]: () => {
        pending = [];
        return new Response(JSON.stringify(proposal(ONE, { status: 'applied', decidedAt: '2026-11-28T08:05:00.000Z', resultAgentId: STOCK_AGENT.id })), { headers: { 'content-type': 'application/json' } });
      },
    });
    renderConsole();
    const section = await screen.findByRole('region', { name: 'Proposals' });
    const agentReads = () => requests.filter((r) => r.url === '/api/agents').length;
    const before = agentReads();
    await userEvent.click(within(section).getByRole('button', { name: 'Apply' }));
    expect(await within(section).findByText('Applied')).toBeInTheDocument();
    expect(within(section).getByRole('link', { name: 'Open Tech watch, quieter' })).toHaveAttribute('href', `/agents-console?agent=${STOCK_AGENT.id}`);
    await waitFor(() => expect(agentReads()).toBeGreaterThan(before));
    expect(requests.filter((r) => r.url === PENDING).length).toBeGreaterThan(1);
  });

  it('is absent when nothing waits for a decision', async () => {
    stubFetch(routes([]));
    renderConsole();
    await screen.findByRole('listitem', { name: 'Tech watch' });
    expect(screen.queryByRole('region', { name: 'Proposals' })).not.toBeInTheDocument();
  });
});

