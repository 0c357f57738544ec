import { screen } from '@testing-library/react';
import type { ReactElement, ReactNode } from 'react';
import { createRoutesFromElements, matchRoutes, type RouteObject } from 'react-router';
import { describe, expect, it } from 'vitest';
import { CHAT_PROVIDER_INFO, CHAT_PROVIDERS } from '../../contracts/chat.ts';
import { APP_ROUTES, isAppRoute } from '../../contracts/site.ts';
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

describe('the list of app routes the server shares (contracts/site.ts)', () => {
  const routes = createRoutesFromElements((AppRoutes() as ReactElement<{ children: ReactNode }>).props.children);
  const pathsOf = (list: RouteObject[]): string[] => list.flatMap((r) => [...(r.path && r.path !== '*' ? [r.path] : []), ...pathsOf(r.children ?? [])]);

  it('has every path of the router, and no other', () => {
    expect(pathsOf(routes).sort()).toEqual([...APP_ROUTES].sort());
  });

  const samples = [
    ...APP_ROUTES.map((route) => route.replace(/:\w+/g, 'some-value')),
    ...['/Dashboard', '/dashboard/', '/dashboard//', '//dashboard', '/dash%62oard', '/INSIGHTS/Some-Slug/', '/insights/caf%C3%A9'],
    ...['/x.bak', '/assets/missing.js', '/assets/index.js.map', '/index.html', '/insights/a/b', '/admin', '/admin/articles/1', '/settings/more', '/dashboard.'],
  ];
  it.each(samples)('the server and the router agree whether %s is a page', (path) => {
    const matched = matchRoutes(routes, path)?.at(-1)?.route.path;
    expect(isAppRoute(path)).toBe(matched !== undefined && matched !== '*');
  });
});
