import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { describe, expect, it, vi } from 'vitest';
import { defaultAgentConfig, findTemplate } from '../../contracts/agents.ts';
import type { TProposal } from '../../contracts/assistant-tools.ts';
import { backtestResult } from '../features/agents/lib/agents-test-data.ts';
import { notify } from '../lib/notify.ts';
import { stubFetch } from '../test/fetch-stub.ts';
import { currentLocation, renderWithProviders } from '../test/render.tsx';
import { ProposalCard } from './proposal-card.tsx';

const ID = '22222222-2222-4222-8222-222222222222';
const AGENT = '33333333-3333-4333-8333-333333333333';

function proposal(overrides: Partial<TProposal> = {}): TProposal {
  return {
    id: ID,
    kind: 'create',
    status: 'pending',
    source: 'chat',
    sourceName: 'Claude',
    reason: 'You asked for an alert on an RSI crossing',
    agentId: null,
    agentName: 'RSI watch',
    templateId: 'stock-market-scanner',
    config: defaultAgentConfig(findTemplate('stock-market-scanner')!, 'Europe/Paris'),
    configText: ['Template: Stock Market Scanner', 'Schedule: Hourly, Monday to Friday, all day'],
    differences: [],
    backtest: backtestResult(),
    backtestError: null,
    createdAt: '2026-11-28T08:00:00.000Z',
    decidedAt: null,
    resultAgentId: null,
    ...overrides,
  };
}

describe('ProposalCard', () => {
  it('shows a new agent’s configuration in plain words, the reason, the source and its test on history', () => {
    renderWithProviders(<ProposalCard proposal={proposal()} />);
    const card = screen.getByRole('article', { name: 'Proposed agent: RSI watch' });
    expect(card).toHaveTextContent('Proposed by Claude in the chat. Nothing is created or changed until you decide.');
    expect(card).toHaveTextContent('Why: You asked for an alert on an RSI crossing');
    expect(within(card).getByText('Schedule: Hourly, Monday to Friday, all day')).toBeVisible();
    expect(within(card).getByRole('region', { name: 'Test on history' })).toBeInTheDocument();
    expect(within(card).getByRole('button', { name: 'Create paused' })).toBeEnabled();
    expect(within(card).getByRole('button', { name: 'Discard' })).toBeEnabled();
  });

  it('Create paused calls the API, shows the decided state with a link to the new agent, toasts and tells its parent', async () => {
    const decided = proposal({ status: 'applied', decidedAt: '2026-11-28T08:01:00.000Z', resultAgentId: AGENT });
    const { requests } = stubFetch({ [`POST /api/agents/proposals/${ID}/apply`]: { body: decided } });
    const onDecided = vi.fn();
    const { queryClient } = renderWithProviders(<ProposalCard proposal={proposal()} onDecided={onDecided} />);
    const invalidate = vi.spyOn(queryClient, 'invalidateQueries');
    await userEvent.click(screen.getByRole('button', { name: 'Create paused' }));
    expect(await screen.findByText('Created, paused')).toBeInTheDocument();
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual([`POST /api/agents/proposals/${ID}/apply`]);
    expect(onDecided).toHaveBeenCalledWith(decided);
    expect(notify.success).toHaveBeenCalledWith('RSI watch created, paused');
    expect(invalidate).toHaveBeenCalled();
    expect(screen.queryByRole('button', { name: 'Create paused' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('link', { name: 'Open RSI watch' }));
    expect(currentLocation()).toBe(`/agents-console?agent=${AGENT}`);
  });

  it('a change shows its differences and Apply; a 409 shows the server’s sentence and what changed, and keeps the buttons', async () => {
    const change = proposal({
      kind: 'change',
      agentId: AGENT,
      agentName: 'Daily scanner',
      differences: [{ field: 'Name', before: 'Scanner', after: 'Daily scanner' }],
    });
    stubFetch({
      [`POST /api/agents/proposals/${ID}/apply`]: {
        status: 409,
        body: { error: 'Conflict', message: 'This agent changed since the proposal: read it again and propose anew, or discard this one.', details: [{ path: 'Name', message: 'Scanner → Mine' }] },
      },
    });
    renderWithProviders(<ProposalCard proposal={change} />);
    const table = screen.getByRole('table', { name: 'Differences' });
    expect(within(table).getByRole('row', { name: 'Name Scanner Daily scanner' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Apply' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('This agent changed since the proposal: read it again and propose anew, or discard this one.');
    expect(alert).toHaveTextContent('Name: Scanner → Mine');
    expect(notify.error).toHaveBeenCalledWith('Could not apply the change', expect.stringMatching(/^This agent changed/));
    expect(screen.getByRole('button', { name: 'Apply' })).toBeEnabled();
  });

  it('Discard is keyboard-operable and ends in the discarded state', async () => {
    stubFetch({ [`POST /api/agents/proposals/${ID}/discard`]: { body: proposal({ status: 'discarded', decidedAt: '2026-11-28T08:02:00.000Z' }) } });
    renderWithProviders(<ProposalCard proposal={proposal()} />);
    screen.getByRole('button', { name: 'Discard' }).focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(screen.getByText('Discarded')).toBeInTheDocument());
    expect(notify.success).toHaveBeenCalledWith('Proposal discarded');
  });

  it('says why a proposal was not tested on history', () => {
    renderWithProviders(<ProposalCard proposal={proposal({ backtest: null, backtestError: 'You can test on history 10 times a minute. Try again in 30 s.' })} />);
    expect(screen.getByText('Not tested on history: You can test on history 10 times a minute. Try again in 30 s.')).toBeInTheDocument();
  });

  it('has no serious accessibility violations', async () => {
    const { container } = renderWithProviders(<ProposalCard proposal={proposal({ kind: 'change', agentId: AGENT, differences: [{ field: 'Name', before: 'A', after: 'B' }] })} />);
    const serious = (await axe.run(container, { rules: { 'color-contrast': { enabled: false } } })).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(serious.map((v) => v.id)).toEqual([]);
  });
});
