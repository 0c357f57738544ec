import { lazy } from 'react';
import { BrowserRouter, Route, Routes } from 'react-router';
import { NotFoundPage } from '../features/errors/not-found-page.tsx';
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

export function AppRoutes() {
  return (
    <Routes>
      <Route element={<AppLayout />}>
        <Route path="/" element={<LandingPage />} />
        <Route path="/login" element={<LoginPage />} />
        <Route element={<RequireAuth />}>
          <Route path="/dashboard" element={<DashboardPage />} />
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

export function AppRouter() {
  return (
    <BrowserRouter>
      <AppRoutes />
    </BrowserRouter>
  );
}
