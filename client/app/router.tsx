import { useQueryClient } from '@tanstack/react-query';
import { lazy, useEffect } from 'react';
import type { TChatProvider } from '../../contracts/chat.ts';
import { Outlet, Route, Routes } from 'react-router';
import { useAuth } from '../lib/auth-context.ts';
import { PageLayout } from './layout.tsx';
import { preloadable } from './preloadable.ts';
import { RequireAuth } from './require-auth.tsx';

// Signed-in screens are separate chunks: the landing page loads none of their code.
// (Declarative routes with React.lazy rather than the data router: the data router alone adds
// ~17 KB gzipped to the landing page's budget.)
// `/`, `/insights` and the article pages are served their own page (site-root.tsx); the app shows
// them when someone comes back from another screen, or when that page hands over to the app
// (then preloaded).
export const LandingPage = preloadable(() => import('../features/landing/components/landing-page.tsx').then((m) => ({ default: m.LandingPage })));
export const InsightsPage = preloadable(() => import('../features/articles/components/insights-page.tsx'));
const LoginPage = lazy(() => import('../features/auth/components/login-page.tsx'));
const InvitePage = lazy(() => import('../features/auth/components/invite-page.tsx'));
const DashboardPage = lazy(() => import('../features/dashboard/components/dashboard-page.tsx'));
const UsersPage = lazy(() => import('../features/users/components/users-page.tsx'));
const SettingsPage = lazy(() => import('../features/settings/components/settings-page.tsx'));
// One screen for every assistant, parameterised by provider (its texts, endpoint and models come
// from contracts/chat.ts inside the lazy chunk, so the landing page loads none of it).
const ChatScreen = lazy(() => import('../features/chat/components/chat-screen.tsx'));
const UsagePage = lazy(() => import('../features/chat/components/usage-page.tsx'));
const AgentsConsolePage = lazy(() => import('../features/agents/components/agents-console-page.tsx'));
const CreateArticlePage = lazy(() => import('../features/articles/components/create-article-page.tsx'));
const EditArticlePage = lazy(() => import('../features/articles/components/edit-article-page.tsx'));
const PreviewPage = lazy(() => import('../features/articles/components/preview-page.tsx'));
const AdminArticlesPage = lazy(() => import('../features/articles/components/admin-articles-page.tsx'));
// With react-markdown (the server-rendered article page loads it on its own; see site-root.tsx).
export const ArticlePage = preloadable(() => import('../features/articles/components/article-page.tsx'));
export const TagPage = preloadable(() => import('../features/articles/components/tag-page.tsx'));
// Lazy too: the landing page's JavaScript budget has no room for a screen it never shows.
const NotFoundPage = lazy(() => import('../components/not-found.tsx').then((m) => ({ default: m.NotFoundPage })));

/**
 * Once per user and browser, the chats this browser saved (SPEC's local storage) go to the
 * user's history on the server (docs/decisions/0046). The chat feature's code loads only when
 * the marker it sets is missing.
 */
function useLocalChatImport() {
  const userId = useAuth().user?.id;
  const queryClient = useQueryClient();
  useEffect(() => {
    if (!userId || importedHere(userId)) return;
    import('../features/chat/lib/import-local-history.ts')
      .then(({ importLocalHistory }) => importLocalHistory(userId))
      .then((imported) => {
        if (imported) void queryClient.invalidateQueries({ queryKey: ['/api/chat/conversations'] });
      })
      .catch((err: unknown) => console.error('Could not bring saved chats to the server:', err));
  }, [userId, queryClient]);
}

/** The marker importLocalHistory sets; storage that cannot be read has nothing to import. */
function importedHere(userId: string): boolean {
  try {
    return localStorage.getItem(`chat-history-imported-${userId}`) !== null;
  } catch {
    return true;
  }
}

/** Every route's page frame, with the route's screen inside. */
function AppLayout() {
  useLocalChatImport();
  return (
    <PageLayout>
      <Outlet />
    </PageLayout>
  );
}

/** Features do not import each other, so the dashboard gets the session from here. RequireAuth
 * above it has already waited for the session and sent signed-out visitors to /. */
function DashboardRoute() {
  const { user, role } = useAuth();
  return user ? <DashboardPage user={user} role={role} /> : null;
}

/** Keyed by provider: moving from one assistant to another starts a fresh screen. */
const chat = (provider: TChatProvider) => <ChatScreen key={provider} provider={provider} />;

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<AppLayout />}>
        <Route path="/" element={<LandingPage />} />
        <Route path="/login" element={<LoginPage />} />
        <Route path="/invite" element={<InvitePage />} />
        <Route path="/insights" element={<InsightsPage />} />
        <Route path="/insights/:slug" element={<ArticlePage />} />
        <Route path="/insights/tag/:slug" element={<TagPage />} />
        {/* A draft shared by a preview link (docs/decisions/0098): anyone with the link. */}
        <Route path="/preview/:token" element={<PreviewPage />} />
        <Route element={<RequireAuth />}>
          <Route path="/dashboard" element={<DashboardRoute />} />
          <Route path="/settings" element={<SettingsPage />} />
          {/* DeepSeek and Llama are open to every signed-in user (SPEC section 6). */}
          <Route path="/deepseek-chat" element={chat('deepseek')} />
          <Route path="/llama-chat" element={chat('llama')} />
          {/* SPEC: the create-article screen checks the admin role itself. */}
          <Route path="/create-article" element={<CreateArticlePage />} />
        </Route>
        <Route element={<RequireAuth role="admin" />}>
          <Route path="/chat-console" element={chat('openai')} />
          <Route path="/claude-chat" element={chat('anthropic')} />
          <Route path="/gemini-chat" element={chat('gemini')} />
          <Route path="/grok-chat" element={chat('grok')} />
          <Route path="/agents-console" element={<AgentsConsolePage />} />
          <Route path="/admin/articles" element={<AdminArticlesPage />} />
          <Route path="/admin/articles/:id/edit" element={<EditArticlePage />} />
          <Route path="/admin/users" element={<UsersPage />} />
          <Route path="/admin/usage" element={<UsagePage />} />
        </Route>
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}

