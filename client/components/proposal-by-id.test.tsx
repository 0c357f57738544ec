import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate } from '../../contracts/agents.ts';
import type { TProposal } from '../../contracts/assistant-tools.ts';
import { stubFetch } from '../test/fetch-stub.ts';
import { renderWithProviders } from '../test/render.tsx';
import { ProposalById } from './proposal-by-id.tsx';

const ID = '66666666-6666-4666-8666-666666666666';
const proposal: TProposal = {
  id: ID,
  kind: 'create',
  status: 'applied',
  source: 'chat',
  sourceName: 'GPT',
  reason: 'Asked for it',
  agentId: null,
  agentName: 'Breakout watch',
  templateId: 'stock-market-scanner',
  config: defaultAgentConfig(findTemplate('stock-market-scanner')!, 'UTC'),
  configText: ['Template: Stock Market Scanner'],
  differences: [],
  backtest: null,
  backtestError: 'Not tested',
  createdAt: '2026-11-28T08:00:00.000Z',
  decidedAt: '2026-11-28T08:01:00.000Z',
  resultAgentId: '77777777-7777-4777-8777-777777777777',
};

describe('ProposalById', () => {
  it('reads the proposal by its id and shows its card in its current state', async () => {
    stubFetch({ [`GET /api/agents/proposals/${ID}`]: { body: proposal } });
    renderWithProviders(<ProposalById id={ID} />);
    expect(await screen.findByRole('article', { name: 'Proposed agent: Breakout watch' })).toHaveTextContent('Created, paused');
    expect(screen.queryByRole('button', { name: 'Create paused' })).not.toBeInTheDocument();
  });

  it('says so when the proposal is gone', async () => {
    stubFetch({ [`GET /api/agents/proposals/${ID}`]: { status: 404, body: { error: 'Not Found', message: 'Proposal not found' } } });
    renderWithProviders(<ProposalById id={ID} />);
    expect(await screen.findByText('This proposal no longer exists.')).toBeInTheDocument();
  });
});
