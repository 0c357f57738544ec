import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import axe from 'axe-core';
import { describe, expect, it, vi } from 'vitest';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS, type TChatProvider, type TChatProviderStatus } from '../../../../contracts/chat.ts';
import type { TCondition } from '../../../../contracts/conditions.ts';
import { jsonResponse, stubFetch } from '../../../test/fetch-stub.ts';
import { renderWithProviders } from '../../../test/render.tsx';
import { DescribeCondition } from './describe-condition.tsx';

/** GET /api/chat/providers: Gemini has no key, Llama is not open to this user; the rest are usable. */
const providers = (overrides: Partial<Record<TChatProvider, Partial<TChatProviderStatus>>> = {}) => ({
  providers: CHAT_PROVIDERS.map((id) => ({
    id,
    allowed: id !== 'llama',
    configured: id !== 'gemini',
    models: [...CHAT_PROVIDER_INFO[id].models],
    defaultModel: CHAT_PROVIDER_INFO[id].defaultModel,
    ...overrides[id],
  })),
});

const CONDITION: TCondition = {
  id: '7d0c6a53-6f0e-4b43-9a3c-1d0e0f6a2b11',
  when: {
    kind: 'group',
    join: 'all',
    clauses: [
      { kind: 'clause', left: { indicator: 'rsi', period: 14, timeframe: '1h' }, operator: 'crosses-below', right: { indicator: 'number', value: 30 } },
      { kind: 'clause', left: { indicator: 'close' }, operator: 'above', right: { indicator: 'sma', period: 200, timeframe: '1d' } },
    ],
  },
  trigger: { mode: 'once-per-close' },
};

const WORDS = "alert me when BTC's RSI on the hour drops below 30 while it is above its 200-day average";
const textbox = () => screen.getByRole('textbox', { name: 'Describe the condition in words' });
const draftButton = () => screen.getByRole('button', { name: /^Draft/ });

function setup(draftReply: Parameters<typeof stubFetch>[0][string], list = providers()) {
  const onDraft = vi.fn();
  const stub = stubFetch({ 'GET /api/chat/providers': { body: list }, 'POST /api/agents/conditions/draft': draftReply });
  const view = renderWithProviders(<DescribeCondition agentTimeframe="1h" templateId="crypto-market-monitor" onDraft={onDraft} />);
  return { onDraft, ...stub, ...view };
}

describe('Describe it', () => {
  it('offers only the assistants the user may use that have a key, with their text models', async () => {
    setup({ body: { condition: CONDITION } });
    const assistant = await screen.findByRole('combobox', { name: 'Assistant' });
    const offered = [...assistant.querySelectorAll('option')].map((o) => o.textContent);
    expect(offered).toEqual(['GPT', 'Claude', 'Grok', 'DeepSeek'].map((id) => expect.stringContaining(id)));
    await userEvent.selectOptions(assistant, 'grok');
    const models = [...screen.getByRole('combobox', { name: 'Model' }).querySelectorAll('option')].map((o) => o.getAttribute('value'));
    expect(models).not.toContain('grok-2-image-1212');
    expect(draftButton()).toBeDisabled();
    expect(textbox()).toHaveAccessibleDescription(expect.stringContaining('counts against your daily AI budget'));
  });

  it('says so when no assistant is usable, and cannot draft', async () => {
    setup({ body: { condition: CONDITION } }, providers({ openai: { configured: false }, anthropic: { allowed: false }, grok: { configured: false }, deepseek: { configured: false } }));
    expect(await screen.findByText('No assistant with an API key is open to you on this server.')).toBeInTheDocument();
    await userEvent.type(textbox(), WORDS);
    expect(draftButton()).toBeDisabled();
  });

  it('drafts with the chosen assistant, shows its progress, and hands the condition to the builder', async () => {
    let answer!: (response: Response) => void;
    const { onDraft, requests } = setup(() => new Promise<Response>((resolve) => (answer = resolve)));
    await userEvent.selectOptions(await screen.findByRole('combobox', { name: 'Assistant' }), 'anthropic');
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Model' }), 'claude-haiku-4-5');
    await userEvent.type(textbox(), WORDS);
    await userEvent.click(draftButton());

    expect(draftButton()).toHaveTextContent('Drafting…');
    expect(draftButton()).toHaveAttribute('aria-busy', 'true');
    expect(draftButton()).toBeDisabled();
    expect(screen.getByRole('status')).toHaveTextContent('Claude is drafting the condition…');
    expect(requests.find((r) => r.method === 'POST')?.body).toEqual({ text: WORDS, provider: 'anthropic', model: 'claude-haiku-4-5', agentTimeframe: '1h', templateId: 'crypto-market-monitor' });

    answer(jsonResponse({ condition: CONDITION }));
    await waitFor(() => expect(onDraft).toHaveBeenCalledWith(CONDITION));
    expect(onDraft).toHaveBeenCalledTimes(1);
    expect(screen.getByRole('status')).toHaveTextContent('Drafted: RSI (14) on 1 hour crosses below 30 and close is above SMA (200) on 1 day. Review it before saving.');
    expect(draftButton()).toHaveTextContent(/^Draft$/);
  });

  it('words the assistant could not map: the plain message, and the builder is left as it was', async () => {
    const message = "I could not map 'the moon phase' to a price or an indicator. Describe it with prices (open, high, low, close, volume), the change, or an indicator.";
    const { onDraft } = setup({ status: 422, body: { error: 'Not understood', message, notUnderstood: 'the moon phase' } });
    await screen.findByRole('combobox', { name: 'Assistant' });
    await userEvent.type(textbox(), 'alert me at the full moon phase');
    await userEvent.click(draftButton());
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(textbox()).toHaveAttribute('aria-invalid', 'true');
    expect(textbox()).toHaveAccessibleDescription(expect.stringContaining("I could not map 'the moon phase'"));
    expect(onDraft).not.toHaveBeenCalled();
  });

  it.each([
    ['a provider failure', { status: 502, body: { error: 'Bad Gateway', message: 'Claude is unavailable right now' } }, 'Claude is unavailable right now'],
    ['the budget', { status: 429, body: { error: 'Too Many Requests', message: 'Your daily AI budget of 1,000 tokens is used up.' } }, 'Your daily AI budget of 1,000 tokens is used up.'],
    ['a missing key', { status: 400, body: { error: 'Invalid request', details: [{ path: 'provider', message: 'API key not configured: set OPENAI_API_KEY' }] } }, 'API key not configured: set OPENAI_API_KEY'],
    ['an answer that is not a condition', { body: { condition: { id: 'x' } } }, 'The assistant’s draft could not be read. Please try again.'],
  ])('on %s, says why and hands nothing to the builder', async (_, reply, message) => {
    const { onDraft } = setup(reply);
    await screen.findByRole('combobox', { name: 'Assistant' });
    await userEvent.type(textbox(), WORDS);
    await userEvent.click(draftButton());
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(onDraft).not.toHaveBeenCalled();
  });

  it('is operable from the keyboard alone, in order: words, assistant, model, Draft', async () => {
    const { onDraft } = setup({ body: { condition: CONDITION } });
    await screen.findByRole('combobox', { name: 'Assistant' });
    await userEvent.tab();
    expect(textbox()).toHaveFocus();
    await userEvent.keyboard(WORDS);
    await userEvent.tab();
    expect(screen.getByRole('combobox', { name: 'Assistant' })).toHaveFocus();
    await userEvent.tab();
    expect(screen.getByRole('combobox', { name: 'Model' })).toHaveFocus();
    await userEvent.tab();
    expect(draftButton()).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(onDraft).toHaveBeenCalledWith(CONDITION));
  });

  it('has no serious accessibility violations, idle and with a message shown', async () => {
    const { container } = setup({ status: 422, body: { error: 'Not understood', message: 'I could not map these words to prices or indicators.', notUnderstood: null } });
    await screen.findByRole('combobox', { name: 'Assistant' });
    const serious = async () =>
      (await axe.run(container, { rules: { 'color-contrast': { enabled: false } } })).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
    expect(await serious()).toEqual([]);
    await userEvent.type(textbox(), WORDS);
    await userEvent.click(draftButton());
    await screen.findByRole('alert');
    expect(await serious()).toEqual([]);
  });
});
