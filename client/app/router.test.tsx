import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS } from '../../contracts/chat.ts';
import { stubFetch } from '../test/fetch-stub.ts';
import { renderWithProviders, signedInAs } from '../test/render.tsx';
import { AppRoutes } from './router.tsx';

describe('chat routes', () => {
  // The first screen waits for the lazy chat chunk to be transformed (10 s allowed on a busy
  // machine): the test itself must be allowed longer than that wait, or it times out first.
  it.each(CHAT_PROVIDERS)(
    "the contract's path for %s opens its chat screen",
    async (provider) => {
      const info = CHAT_PROVIDER_INFO[provider];
      stubFetch({ 'GET /api/chat/providers': { body: { providers: [] } } });
      renderWithProviders(<AppRoutes />, { auth: signedInAs('admin'), path: info.path });
      expect(await screen.findByRole('heading', { level: 1, name: `Chat with ${info.label}` }, { timeout: 10_000 })).toBeInTheDocument();
      expect(screen.getByText(info.emptyState)).toBeInTheDocument();
    },
    15_000,
  );

  it('DeepSeek and Llama are open to a guest; the others need admin', async () => {
    stubFetch({ 'GET /api/chat/providers': { body: { providers: [] } } });
    const { unmount } = renderWithProviders(<AppRoutes />, { auth: signedInAs('guest'), path: '/llama-chat' });
    expect(await screen.findByRole('heading', { level: 1, name: 'Chat with Llama' })).toBeInTheDocument();
    unmount();
    renderWithProviders(<AppRoutes />, { auth: signedInAs('guest'), path: '/grok-chat' });
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeInTheDocument();
  });
});
