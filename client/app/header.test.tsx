import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { stubFetch } from '../test/fetch-stub.ts';
import { currentLocation, makeAuth, makeUser, renderWithProviders, signedInAs } from '../test/render.tsx';
import { Header } from './header.tsx';

const SECTIONS = ['Services', 'Insights', 'Contact'];
const ADMIN_ONLY = ['Chat Console', 'Agents Console', 'Create Article', 'Articles', 'Users', 'Usage'];

const banner = () => screen.getByRole('banner');
/** The links of the (desktop) main navigation, by name. */
const navLinks = () => {
  const [desktop] = within(banner()).queryAllByRole('navigation', { name: 'Main' });
  return desktop ? within(desktop).getAllByRole('link').map((link) => link.textContent) : [];
};

function stubMatchMedia(reduceMotion: boolean) {
  vi.stubGlobal('matchMedia', (query: string) => ({ matches: reduceMotion && query.includes('reduce'), media: query }));
}

// A signed-in header loads the notification bell, which asks for the unread count.
beforeEach(() => {
  stubFetch({ 'GET /api/notifications?limit=20': { body: { notifications: [], unread: 3 } } });
});

afterEach(() => {
  vi.restoreAllMocks();
  document.body.innerHTML = '';
});

describe('Header notification bell', () => {
  // The bell is a lazy chunk; transforming it the first time can take longer than a query's
  // wait on a busy machine, so it is loaded before the test (the lazy import then resolves at once).
  beforeAll(() => import('../features/notifications/components/notification-bell.tsx'));

  it('is there for a user who can own agents (an admin), with the unread count', async () => {
    renderWithProviders(<Header />, { auth: signedInAs('admin'), path: '/dashboard' });
    expect(await within(banner()).findByRole('button', { name: 'Notifications, 3 unread' })).toBeInTheDocument();
  });

  it('is not there for a user who cannot own agents (a guest), who loads none of its code', async () => {
    const { fetchMock } = stubFetch({});
    renderWithProviders(<Header />, { auth: signedInAs('guest'), path: '/dashboard' });
    await Promise.resolve();
    expect(within(banner()).getByRole('button', { name: /Logout/ })).toBeInTheDocument();
    expect(within(banner()).queryByRole('button', { name: /Notifications/ })).not.toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('is not there for a visitor, who loads none of its code', async () => {
    const { fetchMock } = stubFetch({});
    renderWithProviders(<Header />, { auth: makeAuth() });
    await Promise.resolve();
    expect(within(banner()).queryByRole('button', { name: /Notifications/ })).not.toBeInTheDocument();
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

describe('Header links', () => {
  it('shows the logo and site name linking home', () => {
    renderWithProviders(<Header />, { auth: makeAuth() });
    expect(within(banner()).getByRole('link', { name: 'Axiom Automation' })).toHaveAttribute('href', '/');
  });

  it('offers the section anchors to a signed-out visitor on /', () => {
    renderWithProviders(<Header />, { auth: makeAuth() });
    expect(navLinks()).toEqual(SECTIONS);
    expect(within(banner()).getByRole('link', { name: 'Services' })).toHaveAttribute('href', '#services');
    expect(within(banner()).getByRole('link', { name: 'Insights' })).toHaveAttribute('href', '#insights');
    expect(within(banner()).getByRole('link', { name: 'Contact' })).toHaveAttribute('href', '#contact');
  });

  it('shows no navigation to a signed-out visitor away from /', () => {
    renderWithProviders(<Header />, { auth: makeAuth(), path: '/some-page' });
    expect(within(banner()).queryByRole('navigation')).not.toBeInTheDocument();
    expect(within(banner()).queryByRole('link', { name: 'Services' })).not.toBeInTheDocument();
    expect(within(banner()).queryByRole('button', { name: 'Menu' })).not.toBeInTheDocument();
  });

  it('shows only Dashboard to a signed-in guest, on / too', () => {
    renderWithProviders(<Header />, { auth: signedInAs('guest') });
    expect(navLinks()).toEqual(['Dashboard']);
    expect(within(banner()).getByRole('link', { name: 'Dashboard' })).toHaveAttribute('href', '/dashboard');
  });

  it('adds the admin screens for an admin', () => {
    renderWithProviders(<Header />, { auth: signedInAs('admin'), path: '/dashboard' });
    expect(navLinks()).toEqual(['Dashboard', ...ADMIN_ONLY]);
    const hrefs = ADMIN_ONLY.map((name) => within(banner()).getByRole('link', { name }).getAttribute('href'));
    expect(hrefs).toEqual(['/chat-console', '/agents-console', '/create-article', '/admin/articles', '/admin/users', '/admin/usage']);
    expect(within(banner()).getByRole('link', { name: 'Dashboard' })).toHaveAttribute('aria-current', 'page');
  });
});

describe('Header section anchors', () => {
  function addSection(id: string, top: number) {
    const section = document.createElement('section');
    section.id = id;
    section.tabIndex = -1;
    section.getBoundingClientRect = () => ({ top }) as DOMRect;
    document.body.append(section);
    return section;
  }

  it('scroll smoothly to the section 64 px below the top and focus it', async () => {
    stubMatchMedia(false);
    const scrollTo = vi.fn();
    vi.stubGlobal('scrollTo', scrollTo);
    const section = addSection('insights', 900);
    renderWithProviders(<Header />, { auth: makeAuth() });

    await userEvent.click(within(banner()).getByRole('link', { name: 'Insights' }));

    expect(scrollTo).toHaveBeenCalledWith({ top: 900 - 64, behavior: 'smooth' });
    expect(section).toHaveFocus();
    expect(currentLocation()).toBe('/');
  });

  it('jump instantly when the visitor prefers reduced motion, and work from the keyboard', async () => {
    stubMatchMedia(true);
    const scrollTo = vi.fn();
    vi.stubGlobal('scrollTo', scrollTo);
    addSection('contact', 2000);
    renderWithProviders(<Header />, { auth: makeAuth() });

    within(banner()).getByRole('link', { name: 'Contact' }).focus();
    await userEvent.keyboard('{Enter}');

    expect(scrollTo).toHaveBeenCalledWith({ top: 2000 - 64, behavior: 'instant' });
  });
});

describe('Header small-screen menu', () => {
  it('is a disclosure button that shows and hides the links, closed by Escape', async () => {
    renderWithProviders(<Header />, { auth: signedInAs('admin') });
    const button = within(banner()).getByRole('button', { name: 'Menu' });
    const menu = document.getElementById(button.getAttribute('aria-controls')!)!;
    expect(button).toHaveAttribute('aria-expanded', 'false');
    expect(menu).not.toBeVisible();

    await userEvent.click(button);
    expect(button).toHaveAttribute('aria-expanded', 'true');
    expect(menu).toBeVisible();
    expect(within(menu).getByRole('link', { name: 'Chat Console' })).toBeInTheDocument();

    await userEvent.keyboard('{Escape}');
    expect(button).toHaveAttribute('aria-expanded', 'false');
    expect(button).toHaveFocus();
  });

  it('closes when a link in it is followed', async () => {
    renderWithProviders(<Header />, { auth: signedInAs('admin'), path: '/dashboard' });
    const button = within(banner()).getByRole('button', { name: 'Menu' });
    await userEvent.click(button);
    const menu = document.getElementById(button.getAttribute('aria-controls')!)!;
    await userEvent.click(within(menu).getByRole('link', { name: 'Agents Console' }));
    expect(currentLocation()).toBe('/agents-console');
    expect(button).toHaveAttribute('aria-expanded', 'false');
  });
});

describe('Header login and logout', () => {
  it('local sign-in: Login goes to /login with the current page as next', async () => {
    renderWithProviders(<Header />, { auth: makeAuth(), path: '/insights?page=2' });
    await userEvent.click(within(banner()).getByRole('link', { name: 'Login' }));
    expect(currentLocation()).toBe(`/login?next=${encodeURIComponent('/insights?page=2')}`);
  });

  it.each(['local', 'google'] as const)(
    '%s sign-in: Login is a real link to /login with the page as next, even before the session is known',
    (provider) => {
      renderWithProviders(<Header />, { auth: makeAuth({ provider, loading: true }), path: '/insights?page=2' });
      const login = within(banner()).getByRole('link', { name: 'Login' });
      expect(login).toHaveAttribute('href', `/login?next=${encodeURIComponent('/insights?page=2')}`);
      expect(login).not.toHaveAttribute('aria-disabled');
    },
  );

  it('google sign-in: a modified click is the browser’s (a new tab at /login), not the popup', () => {
    const auth = makeAuth({ provider: 'google', signInWithPopup: vi.fn(async () => makeUser()) });
    renderWithProviders(<Header />, { auth });
    const login = within(banner()).getByRole('link', { name: 'Login' });
    const prevented: boolean[] = [];
    login.addEventListener('click', (event) => {
      prevented.push(event.defaultPrevented);
      event.preventDefault(); // the test environment would otherwise follow it
    });
    fireEvent.click(login, { ctrlKey: true });
    expect(prevented).toEqual([false]);
    expect(auth.signInWithPopup).not.toHaveBeenCalled();
  });

  it('google sign-in from / goes to /dashboard once signed in', async () => {
    const auth = makeAuth({ provider: 'google', signInWithPopup: vi.fn(async () => makeUser()) });
    renderWithProviders(<Header />, { auth });
    await userEvent.click(within(banner()).getByRole('link', { name: 'Login' }));
    expect(auth.signInWithPopup).toHaveBeenCalledOnce();
    expect(currentLocation()).toBe('/dashboard');
  });

  it('google sign-in elsewhere keeps the page; a failed one goes nowhere', async () => {
    const auth = makeAuth({ provider: 'google', signInWithPopup: vi.fn(async () => makeUser()) });
    renderWithProviders(<Header />, { auth, path: '/insights' });
    await userEvent.click(within(banner()).getByRole('link', { name: 'Login' }));
    expect(currentLocation()).toBe('/insights');

    const failing = makeAuth({ provider: 'google', signInWithPopup: vi.fn(async () => null) });
    document.body.innerHTML = '';
    renderWithProviders(<Header />, { auth: failing });
    await userEvent.click(screen.getByRole('link', { name: 'Login' }));
    expect(currentLocation()).toBe('/');
  });

  it('google sign-in: no second popup while one is open (or the session is still loading)', async () => {
    const auth = makeAuth({ provider: 'google', loading: true, signInWithPopup: vi.fn(async () => null) });
    renderWithProviders(<Header />, { auth });
    await userEvent.click(within(banner()).getByRole('link', { name: 'Login' }));
    expect(auth.signInWithPopup).not.toHaveBeenCalled();
    expect(currentLocation()).toBe('/');
  });

  it('shows the photo, or the first letter of the name, or U', () => {
    const { unmount } = renderWithProviders(<Header />, { auth: signedInAs('guest', { profilePicture: 'https://example.com/ada.png' }) });
    expect(within(banner()).getByRole('button', { name: 'Logout' }).querySelector('img')).toHaveAttribute('src', 'https://example.com/ada.png');
    unmount();

    const second = renderWithProviders(<Header />, { auth: signedInAs('guest', { name: 'grace' }) });
    expect(within(banner()).getByRole('button', { name: 'Logout' })).toHaveTextContent(/^GLogout$/);
    second.unmount();

    renderWithProviders(<Header />, { auth: signedInAs('guest', { name: '' }) });
    expect(within(banner()).getByRole('button', { name: 'Logout' })).toHaveTextContent(/^ULogout$/);
  });

  it('Logout waits for the sign-out, then goes to /', async () => {
    let finish!: () => void;
    const auth = signedInAs('admin');
    auth.logout = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    renderWithProviders(<Header />, { auth, path: '/dashboard' });

    await userEvent.click(within(banner()).getByRole('button', { name: 'Logout' }));
    expect(auth.logout).toHaveBeenCalledOnce();
    expect(currentLocation()).toBe('/dashboard');

    finish();
    await vi.waitFor(() => expect(currentLocation()).toBe('/'));
  });

  it('a failed logout stays on the page (the provider shows the toast)', async () => {
    const auth = signedInAs('guest');
    auth.logout = vi.fn(async () => {
      throw new Error('offline');
    });
    renderWithProviders(<Header />, { auth, path: '/dashboard' });
    await userEvent.click(within(banner()).getByRole('button', { name: 'Logout' }));
    expect(currentLocation()).toBe('/dashboard');
    expect(within(banner()).getByRole('button', { name: 'Logout' })).toBeEnabled();
  });
});
