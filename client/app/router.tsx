import { lazy } from 'react';
import { Route, Routes } from 'react-router';
import { useAuth } from '../lib/auth-context.ts';
import { LandingPage } from '../features/landing/landing-page.tsx';
import { AppLayout } from './layout.tsx';
import { RequireAuth } from './require-auth.tsx';

// Signed-in screens are separate chunks: the landing page loads none of their code.
// (Declarative routes with React.lazy rather than the data router: the data router alone adds
// ~17 KB gzipped to the landing page's budget.)
const LoginPage = lazy(() => import('../features/auth/components/login-page.tsx'));
const DashboardPage = lazy(() => import('../features/dashboard/dashboard-page.tsx'));
const UsersPage = lazy(() => import('../features/users/users-page.tsx'));
const ChatPendingPage = lazy(() => import('../features/pending/chat-pending-page.tsx'));
const AgentsPendingPage = lazy(() => import('../features/pending/agents-pending-page.tsx'));
const ArticlePendingPage = lazy(() => import('../features/pending/article-pending-page.tsx'));
// Lazy too: the landing page's JavaScript budget has no room for a screen it never shows.
const NotFoundPage = lazy(() => import('../features/errors/not-found-page.tsx').then((m) => ({ default: m.NotFoundPage })));

/** Features do not import each other, so the dashboard gets the session from here. RequireAuth
 * above it has already waited for the session and sent signed-out visitors to /. */
function DashboardRoute() {
  const { user, role } = useAuth();
  return user ? <DashboardPage user={user} role={role} /> : null;
}

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<AppLayout />}>
        <Route path="/" element={<LandingPage />} />
        <Route path="/login" element={<LoginPage />} />
        <Route element={<RequireAuth />}>
          <Route path="/dashboard" element={<DashboardRoute />} />
          {/* DeepSeek and Llama are open to every signed-in user (SPEC section 6). */}
          <Route path="/deepseek-chat" element={<ChatPendingPage />} />
          <Route path="/llama-chat" element={<ChatPendingPage />} />
        </Route>
        <Route element={<RequireAuth role="admin" />}>
          <Route path="/chat-console" element={<ChatPendingPage />} />
          <Route path="/claude-chat" element={<ChatPendingPage />} />
          <Route path="/gemini-chat" element={<ChatPendingPage />} />
          <Route path="/grok-chat" element={<ChatPendingPage />} />
          <Route path="/agents-console" element={<AgentsPendingPage />} />
          <Route path="/create-article" element={<ArticlePendingPage />} />
          <Route path="/admin/users" element={<UsersPage />} />
        </Route>
        <Route path="*" element={<NotFoundPage />} />
      </Route>
    </Routes>
  );
}

