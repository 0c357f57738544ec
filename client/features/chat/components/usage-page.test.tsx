import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import type { TChatUsageReport } from '../../../../contracts/chat.ts';
import { stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../../../test/render.tsx';
import UsagePage, { formatUsd } from './usage-page.tsx';

const report = (days: number): TChatUsageReport => ({
  days,
  since: '2025-05-01T00:00:00.000Z',
  rows: [
    { user: { id: 'u1', email: 'ada@example.com', name: 'Ada' }, provider: 'openai', model: 'gpt-4o', purpose: 'chat', requests: 12, failed: 1, stopped: 0, estimated: 0, inputTokens: 12000, outputTokens: 3400, images: 0, costUsd: 0.064 },
    { user: { id: 'u2', email: 'bob@example.com', name: '' }, provider: 'anthropic', model: 'claude-sonnet-4-5', purpose: 'chat', requests: 3, failed: 0, stopped: 0, estimated: 0, inputTokens: 900, outputTokens: 100, images: 0, costUsd: 0.0042 },
    { user: { id: 'u1', email: 'ada@example.com', name: 'Ada' }, provider: 'grok', model: 'grok-2-image-1212', purpose: 'chat', requests: 4, failed: 1, stopped: 0, estimated: 0, inputTokens: 0, outputTokens: 0, images: 3, costUsd: 0.21 },
  ],
  totals: { requests: 19, inputTokens: 12900, outputTokens: 3500, images: 3, costUsd: 0.2782 },
});

describe('UsagePage', () => {
  it('shows usage per user and model with a totals row, costs in USD, and switches the period', async () => {
    const { requests } = stubFetch({
      'GET /api/admin/usage?days=30': { body: report(30) },
      'GET /api/admin/usage?days=7': { body: { ...report(7), rows: [] } },
    });
    renderWithProviders(<UsagePage />, { auth: signedInAs('admin'), path: '/admin/usage' });
    const table = await screen.findByRole('table', { name: 'AI usage in the last 30 days' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(5);
    expect(within(rows[0]!).getAllByRole('columnheader').map((h) => h.textContent)).toEqual([
      'User',
      'Provider',
      'Model',
      'Requests',
      'Input tokens',
      'Output tokens',
      'Images',
      'Cost',
    ]);
    expect(within(rows[1]!).getByRole('rowheader')).toHaveTextContent('Adaada@example.com');
    expect(rows[1]).toHaveTextContent('GPT');
    expect(rows[1]).toHaveTextContent('12,000');
    expect(rows[1]).toHaveTextContent('1 failed');
    expect(rows[1]).toHaveTextContent('$0.064');
    expect(rows[2]).toHaveTextContent('bob@example.com');
    expect(rows[2]).toHaveTextContent('Claude');
    // Images are counted and priced per image.
    const images = within(rows[3]!).getAllByRole('cell').map((c) => c.textContent);
    expect(images).toEqual(['Grok', 'grok-2-image-1212', '4' + '1 failed', '0', '0', '3', '$0.21']);
    expect(within(rows[4]!).getAllByRole('cell').map((c) => c.textContent)).toEqual(['19', '12,900', '3,500', '3', '$0.2782']);

    await userEvent.setup().selectOptions(screen.getByRole('combobox', { name: 'Period' }), '7');
    expect(await screen.findByText('No AI usage in the last 7 days.')).toBeInTheDocument();
    expect(requests.map((r) => r.url)).toEqual(['/api/admin/usage?days=30', '/api/admin/usage?days=7']);
  });

  it('gives a phone one block per user and model, with its figures labelled, and the total', async () => {
    stubFetch({ 'GET /api/admin/usage?days=30': { body: report(30) } });
    renderWithProviders(<UsagePage />, { auth: signedInAs('admin'), path: '/admin/usage' });
    const list = await screen.findByRole('list', { name: 'AI usage in the last 30 days' });
    const [ada, , adaImages, total] = within(list).getAllByRole('listitem');
    expect(ada).toHaveTextContent('Ada');
    expect(ada).toHaveTextContent('ada@example.com');
    expect(ada).toHaveTextContent('GPT ·');
    expect(ada).toHaveTextContent('Input tokens12,000');
    expect(ada).toHaveTextContent('(1 failed)');
    expect(adaImages).toHaveTextContent('Grok · grok-2-image-1212');
    expect(adaImages).toHaveTextContent('Images3Cost$0.21');
    expect(total).toHaveTextContent('TotalRequests19Input tokens12,900Output tokens3,500Images3Cost$0.2782');
  });

  it('says which rows are embeddings of documents (issue 32), apart from the chats of the same provider', async () => {
    const embeddings: TChatUsageReport = {
      ...report(30),
      rows: [
        { user: { id: 'u1', email: 'ada@example.com', name: 'Ada' }, provider: 'openai', model: 'gpt-4o', purpose: 'chat', requests: 2, failed: 0, stopped: 0, estimated: 0, inputTokens: 100, outputTokens: 50, images: 0, costUsd: 0.0008 },
        { user: { id: 'u1', email: 'ada@example.com', name: 'Ada' }, provider: 'openai', model: 'text-embedding-3-small', purpose: 'embedding', requests: 4, failed: 0, stopped: 0, estimated: 0, inputTokens: 9000, outputTokens: 0, images: 0, costUsd: 0.0002 },
      ],
    };
    stubFetch({ 'GET /api/admin/usage?days=30': { body: embeddings } });
    renderWithProviders(<UsagePage />, { auth: signedInAs('admin'), path: '/admin/usage' });
    const rows = within(await screen.findByRole('table', { name: 'AI usage in the last 30 days' })).getAllByRole('row');
    expect(within(rows[1]!).getAllByRole('cell')[1]).toHaveTextContent(/^gpt-4o$/);
    expect(within(rows[2]!).getAllByRole('cell')[1]).toHaveTextContent('text-embedding-3-smallEmbeddings');
  });

  it('says which rows are alert briefs and condition drafts, apart from the chats of the same model', async () => {
    const briefs: TChatUsageReport = {
      ...report(30),
      rows: [
        { user: { id: 'u1', email: 'ada@example.com', name: 'Ada' }, provider: 'deepseek', model: 'deepseek-chat', purpose: 'chat', requests: 2, failed: 0, stopped: 0, estimated: 0, inputTokens: 100, outputTokens: 50, images: 0, costUsd: 0.0001 },
        { user: { id: 'u1', email: 'ada@example.com', name: 'Ada' }, provider: 'deepseek', model: 'deepseek-chat', purpose: 'alert-brief', requests: 5, failed: 1, stopped: 0, estimated: 0, inputTokens: 3000, outputTokens: 400, images: 0, costUsd: 0.001 },
        { user: { id: 'u1', email: 'ada@example.com', name: 'Ada' }, provider: 'deepseek', model: 'deepseek-chat', purpose: 'condition-draft', requests: 2, failed: 0, stopped: 0, estimated: 0, inputTokens: 6000, outputTokens: 500, images: 0, costUsd: 0.002 },
      ],
    };
    stubFetch({ 'GET /api/admin/usage?days=30': { body: briefs } });
    renderWithProviders(<UsagePage />, { auth: signedInAs('admin'), path: '/admin/usage' });
    const rows = within(await screen.findByRole('table', { name: 'AI usage in the last 30 days' })).getAllByRole('row');
    expect(within(rows[1]!).getAllByRole('cell')[1]).toHaveTextContent(/^deepseek-chat$/);
    expect(within(rows[2]!).getAllByRole('cell')[1]).toHaveTextContent('deepseek-chatAlert briefs');
    expect(within(rows[3]!).getAllByRole('cell')[1]).toHaveTextContent('deepseek-chatCondition drafts');
  });

  // Issue 29: answers stopped by the person were counted as failed; estimated tokens looked reported.
  it('counts answers the person stopped apart from failures, and says which tokens are estimated', async () => {
    const mixed: TChatUsageReport = {
      ...report(30),
      rows: [{ user: { id: 'u1', email: 'ada@example.com', name: 'Ada' }, provider: 'openai', model: 'gpt-4o', purpose: 'chat', requests: 9, failed: 1, stopped: 3, estimated: 2, inputTokens: 900, outputTokens: 300, images: 0, costUsd: 0.005 }],
    };
    stubFetch({ 'GET /api/admin/usage?days=30': { body: mixed } });
    renderWithProviders(<UsagePage />, { auth: signedInAs('admin'), path: '/admin/usage' });
    const rows = within(await screen.findByRole('table', { name: 'AI usage in the last 30 days' })).getAllByRole('row');
    expect(within(rows[1]!).getAllByRole('cell')[2]).toHaveTextContent(/^91 failed3 stopped2 estimated$/);
    expect(screen.getByText(/^Estimated: calls whose provider reported no token counts/)).toBeInTheDocument();
    const phone = within(screen.getByRole('list', { name: 'AI usage in the last 30 days' })).getAllByRole('listitem')[0]!;
    expect(phone).toHaveTextContent('Requests9 (1 failed, 3 stopped, 2 estimated)');
  });

  it('formats costs as USD', () => {
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(1234.5)).toBe('$1,234.50');
    expect(formatUsd(0.00012)).toBe('$0.0001');
  });
});
