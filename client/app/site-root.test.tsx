import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeUser } from '../test/render.tsx';
import { never, stubFetch } from '../test/fetch-stub.ts';
import { SiteRoot, type LoadApp } from './site-root.tsx';

// The landing page's own root: the prerendered tree the browser hydrates, and the hand-over to
// the whole app (here a stand-in element, which is what loadApp returns).
function renderLanding(loadApp: LoadApp) {
  return render(<SiteRoot location="/" page={{ kind: 'landing' }} loadApp={loadApp} />);
}

const app = (label: string) => Promise.resolve(<p>{label}</p>);

beforeEach(() => window.history.replaceState(null, '', '/'));
afterEach(() => vi.restoreAllMocks());

describe('SiteRoot', () => {
  it('shows the landing page to a signed-out visitor and loads nothing more', async () => {
    const { fetchMock } = stubFetch({ 'GET /api/auth/me': { body: { user: null } }, 'GET /api/articles?limit=3': () => never() });
    const loadApp = vi.fn<LoadApp>(() => app('the app'));
    renderLanding(loadApp);
    expect(screen.getByRole('heading', { level: 1, name: 'Automate Your Business Success' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Login' })).toHaveAttribute('href', '/login?next=%2F');
    await waitFor(() => expect(fetchMock).toHaveBeenCalledWith('/api/auth/me', expect.anything()));
    await act(async () => {});
    expect(loadApp).not.toHaveBeenCalled();
  });

  it('opens the whole app for a signed-in visitor, handing it the session user', async () => {
    const user = makeUser({ role: 'admin' });
    stubFetch({ 'GET /api/auth/me': { body: { user } }, 'GET /api/articles?limit=3': () => never() });
    const loadApp = vi.fn<LoadApp>(() => app('the app'));
    renderLanding(loadApp);
    expect(await screen.findByText('the app')).toBeInTheDocument();
    expect(loadApp).toHaveBeenCalledExactlyOnceWith(user);
    expect(window.location.pathname).toBe('/');
  });

  it('a plain click on a link moves the URL and opens the app there; a modified click is the browser’s', async () => {
    stubFetch({ 'GET /api/auth/me': { body: { user: null } }, 'GET /api/articles?limit=3': { body: [] } });
    const loadApp = vi.fn<LoadApp>(() => app('the app'));
    renderLanding(loadApp);
    const viewAll = screen.getByRole('link', { name: 'View All Insights' });
    expect(viewAll).toHaveAttribute('href', '/insights');

    // Ctrl+click opens a new tab in a browser: the landing page must not intercept it.
    const prevented: boolean[] = [];
    viewAll.addEventListener('click', (e) => prevented.push(e.defaultPrevented));
    fireEvent.click(viewAll, { ctrlKey: true });
    expect(prevented).toEqual([false]);
    expect(loadApp).not.toHaveBeenCalled();

    await userEvent.click(viewAll);
    expect(await screen.findByText('the app')).toBeInTheDocument();
    expect(window.location.pathname).toBe('/insights');
    expect(loadApp).toHaveBeenCalledExactlyOnceWith(undefined);
  });

  it('stays on the landing page, logging why, when the app cannot load at /', async () => {
    const user = makeUser();
    stubFetch({ 'GET /api/auth/me': { body: { user } }, 'GET /api/articles?limit=3': () => never() });
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const loadApp = vi.fn<LoadApp>(() => Promise.reject(new Error('chunk gone')));
    renderLanding(loadApp);
    await waitFor(() => expect(error).toHaveBeenCalledWith('The app could not be loaded:', expect.objectContaining({ message: 'chunk gone' })));
    await act(async () => {});
    expect(screen.getByRole('heading', { level: 1, name: 'Automate Your Business Success' })).toBeInTheDocument();
    // The signed-in controls are the app's: the header does not pretend to have them. Its Login
    // link still leads on, to /login in the app's own page (which sends a signed-in user on).
    expect(screen.queryByRole('button', { name: 'Logout' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Login' })).toHaveAttribute('href', '/login?next=%2F');
  });
});
