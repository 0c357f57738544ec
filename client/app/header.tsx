import { lazy, Suspense, useId, useRef, useState, type ComponentType, type MouseEvent } from 'react';
import { HEADER_SCROLL_OFFSET_PX, canOwnAgents } from '../../contracts/constants.ts';
import type { TRole, TUser } from '../../contracts/users.ts';
import { Avatar } from '../components/ui/avatar.tsx';
import { buttonClasses } from '../components/ui/button.tsx';
import { useAuth } from '../lib/auth-context.ts';
import { postLoginPath } from '../features/auth/lib/post-login-path.ts';
import { appConfig } from '../lib/app-config.ts';
import { isCurrentPath, isPlainClick, useNavigation } from '../lib/navigation.ts';

// The header is on every page, the landing page included, so it stays small: no Radix, no
// icon library (the two icons below are inline). The bell, which has both, is a separate chunk
// that loads only for a signed-in user who can own agents (their alerts are all it shows); if
// it cannot load (a deploy replaced it), the header goes on without it rather than failing the
// page.
const NotificationBell = lazy<ComponentType>(() =>
  import('../features/notifications/components/notification-bell.tsx').catch((err: unknown) => {
    console.error('Notifications could not be loaded:', err);
    return { default: () => null };
  }),
);

export type NavItem = { label: string; to: string; section?: boolean };

const SECTION_LINKS: NavItem[] = [
  { label: 'Services', to: 'services', section: true },
  { label: 'Insights', to: 'insights', section: true },
  { label: 'Contact', to: 'contact', section: true },
];
const SIGNED_IN_LINKS: NavItem[] = [{ label: 'Dashboard', to: '/dashboard' }];
const ADMIN_LINKS: NavItem[] = [
  { label: 'Chat Console', to: '/chat-console' },
  { label: 'Agents Console', to: '/agents-console' },
  { label: 'Create Article', to: '/create-article' },
  { label: 'Articles', to: '/admin/articles' },
  { label: 'Users', to: '/admin/users' },
  { label: 'Usage', to: '/admin/usage' },
];

/** SPEC header: section anchors for a signed-out visitor on /, Dashboard for every signed-in
 * user, the admin screens for admins. */
export function navItemsFor(user: TUser | null, role: TRole, pathname: string): NavItem[] {
  if (!user) return pathname === '/' ? SECTION_LINKS : [];
  return role === 'admin' ? [...SIGNED_IN_LINKS, ...ADMIN_LINKS] : SIGNED_IN_LINKS;
}

/** Scrolls to a landing section leaving room for the sticky header (64 px), instantly when the
 * visitor prefers reduced motion, and moves keyboard focus there. */
export function scrollToSection(id: string): void {
  const target = document.getElementById(id);
  if (!target) return;
  const reduceMotion = window.matchMedia?.('(prefers-reduced-motion: reduce)').matches ?? false;
  const top = target.getBoundingClientRect().top + window.scrollY - HEADER_SCROLL_OFFSET_PX;
  window.scrollTo({ top: Math.max(0, top), behavior: reduceMotion ? 'instant' : 'smooth' });
  target.focus({ preventScroll: true });
}

const LINK = 'rounded-md px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-600';
const ACTIVE = 'aria-[current=page]:bg-brand-50 aria-[current=page]:text-brand-700';

function NavLinks({ items, onNavigate, className }: { items: NavItem[]; onNavigate(): void; className: string }) {
  const { Link, pathname } = useNavigation();
  const onSection = (id: string) => (event: MouseEvent<HTMLAnchorElement>) => {
    event.preventDefault();
    onNavigate();
    scrollToSection(id);
  };
  return (
    <ul className={className}>
      {items.map((item) => (
        <li key={item.to}>
          {item.section ? (
            <a href={`#${item.to}`} onClick={onSection(item.to)} className={`block ${LINK}`}>
              {item.label}
            </a>
          ) : (
            <Link
              to={item.to}
              onClick={onNavigate}
              aria-current={isCurrentPath(item.to, pathname) ? 'page' : undefined}
              className={`block ${LINK} ${ACTIVE}`}
            >
              {item.label}
            </Link>
          )}
        </li>
      ))}
    </ul>
  );
}

function LogoMark() {
  return (
    <svg aria-hidden="true" viewBox="0 0 32 32" className="size-8 shrink-0">
      <rect width="32" height="32" rx="8" fill="#1f57d1" />
      <path d="M7 22.5 13 15l5 4.5 7-9.5" fill="none" stroke="#fff" strokeWidth="2.6" strokeLinecap="round" strokeLinejoin="round" />
      <circle cx="25" cy="10" r="2.6" fill="#7dd3fc" />
    </svg>
  );
}

function AuthControl() {
  const { user, loading, provider, signInWithPopup, logout } = useAuth();
  const { pathname, search, navigate, Link } = useNavigation();
  const [busy, setBusy] = useState(false);

  if (user) {
    const onLogout = async () => {
      setBusy(true);
      try {
        await logout();
        navigate('/');
      } catch {
        // The auth provider has already shown 'Logout failed'; stay where we are.
      } finally {
        setBusy(false);
      }
    };
    return (
      <button
        type="button"
        onClick={onLogout}
        disabled={busy}
        className={buttonClasses({ variant: 'ghost', className: 'pl-1.5' })}
      >
        <Avatar name={user.name} src={user.profilePicture} />
        <span className="sr-only sm:not-sr-only">Logout</span>
      </button>
    );
  }

  // A real link, so it works before the page's JavaScript has run (the landing page is
  // prerendered) and opens in a new tab on a modified click. Local sign-in follows it within the
  // app; Google's (or the operator's provider's) plain click opens the popup here instead, and /login offers the same popup to
  // whoever arrives there without it.
  const loginHref = `/login?next=${encodeURIComponent(pathname + search)}`;
  const onLogin = async (event: MouseEvent<HTMLAnchorElement>) => {
    if (provider === 'local' || !isPlainClick(event)) return;
    event.preventDefault();
    if (loading) return; // the session is not known yet, or a popup is already open
    const signedIn = await signInWithPopup();
    if (!signedIn) return;
    const next = postLoginPath(pathname);
    if (next !== pathname) navigate(next);
  };
  return (
    <Link to={loginHref} onClick={(event) => void onLogin(event)} className={buttonClasses()}>
      Login
    </Link>
  );
}

export function Header() {
  const { user, role } = useAuth();
  const { pathname, Link } = useNavigation();
  const { siteName } = appConfig();
  const items = navItemsFor(user, role, pathname);
  const menuId = useId();
  const menuButton = useRef<HTMLButtonElement>(null);
  // The small-screen menu is open for the page it was opened on: navigating closes it.
  const [openOn, setOpenOn] = useState<string | null>(null);
  const menuOpen = openOn === pathname && items.length > 0;
  const closeMenu = () => setOpenOn(null);

  return (
    <header
      className="sticky top-0 z-40 border-b border-slate-200 bg-white/95 backdrop-blur supports-[backdrop-filter]:bg-white/80"
      onKeyDown={(event) => {
        if (event.key === 'Escape' && menuOpen) {
          closeMenu();
          menuButton.current?.focus();
        }
      }}
    >
      <div className="mx-auto flex h-16 max-w-7xl items-center gap-3 px-4 sm:px-6 lg:px-8">
        <Link
          to="/"
          className="flex min-w-0 items-center gap-2 rounded-md text-base font-bold text-slate-900 sm:text-lg focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
        >
          <LogoMark />
          {/* Whole, never cut short: where the controls beside it leave too little room (a phone,
              signed in), it wraps onto a second line. */}
          <span className="min-w-0 leading-tight">{siteName}</span>
        </Link>
        {items.length > 0 && (
          <nav aria-label="Main" className="ml-4 hidden lg:block">
            <NavLinks items={items} onNavigate={closeMenu} className="flex items-center gap-1" />
          </nav>
        )}
        <div className="ml-auto flex items-center gap-2">
          {user && canOwnAgents(role) && (
            <Suspense fallback={<span aria-hidden="true" className="size-10" />}>
              <NotificationBell />
            </Suspense>
          )}
          <AuthControl />
          {items.length > 0 && (
            <button
              ref={menuButton}
              type="button"
              aria-expanded={menuOpen}
              aria-controls={menuId}
              aria-label="Menu"
              onClick={() => setOpenOn(menuOpen ? null : pathname)}
              className={buttonClasses({ variant: 'ghost', size: 'icon', className: 'lg:hidden' })}
            >
              <svg aria-hidden="true" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" strokeLinecap="round" className="size-6">
                <path d={menuOpen ? 'M18 6 6 18M6 6l12 12' : 'M4 6h16M4 12h16M4 18h16'} />
              </svg>
            </button>
          )}
        </div>
      </div>
      {items.length > 0 && (
        <nav id={menuId} aria-label="Main" hidden={!menuOpen} className="border-t border-slate-200 bg-white px-4 py-2 lg:hidden">
          <NavLinks items={items} onNavigate={closeMenu} className="flex flex-col gap-1" />
        </nav>
      )}
    </header>
  );
}
