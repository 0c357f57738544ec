import { RefreshCw, Settings } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import type { TRole, TUser } from '../../../../contracts/users.ts';
import { Avatar } from '../../../components/ui/avatar.tsx';
import { Button, buttonClasses } from '../../../components/ui/button.tsx';
import { Dialog, DialogClose } from '../../../components/ui/dialog.tsx';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { AGENTS, ASSISTANTS } from '../lib/dashboard-items.ts';
import { FeatureCard, type CardAction, type CardBadge } from './feature-card.tsx';

export type DashboardPageProps = {
  /** The signed-in user. The route gives it (features do not import each other, so the page
   * does not read the auth context itself); the route guard has already waited for the session. */
  user: TUser;
  role: TRole | null;
};

/** SPEC section 2, "Dashboard": greeting, the AI assistants, the AI agents, and the dialog that
 * explains why a guest cannot use the gated ones. */
export default function DashboardPage({ user, role }: DashboardPageProps) {
  usePageTitle('Dashboard');
  const [restrictedOpen, setRestrictedOpen] = useState(false);
  const isAdmin = role === 'admin';
  const requestAccess: CardAction = { label: 'Request Access', onClick: () => setRestrictedOpen(true) };
  const requiresAdmin: CardBadge = { label: 'Requires Admin', variant: 'warning' };

  return (
    <div className="mx-auto max-w-7xl px-4 py-10 sm:px-6 lg:px-8">
      <section aria-label="Your account" className="flex flex-col gap-6 rounded-xl border border-slate-200 bg-white p-6 shadow-sm sm:flex-row sm:items-center">
        <Avatar name={user.name} src={user.profilePicture} size="lg" label="Profile picture" />
        <div className="min-w-0 flex-1">
          <h1 className="text-2xl font-bold text-slate-900 sm:text-3xl">Welcome, {user.name || user.email}!</h1>
          <p className="mt-1 break-words text-slate-600">You're logged in as {user.email}</p>
        </div>
        <div className="flex gap-2">
          {/* SPEC shows no action for Settings; ours opens the account settings (alert email,
              time zone). A link, as it navigates. */}
          <Link to="/settings" className={buttonClasses({ variant: 'outline' })}>
            <Settings aria-hidden="true" />
            Settings
          </Link>
          <Button variant="outline" onClick={() => window.location.reload()}>
            <RefreshCw aria-hidden="true" />
            Refresh
          </Button>
        </div>
      </section>

      <section aria-labelledby="assistants-title" className="mt-12">
        <h2 id="assistants-title" className="text-2xl font-bold text-slate-900">
          AI Assistants
        </h2>
        <p className="mt-1 text-slate-600">Chat with the leading AI models from one place.</p>
        <ul className="mt-6 grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
          {ASSISTANTS.map((assistant) => (
            <FeatureCard
              key={assistant.name}
              item={assistant}
              badge={assistant.adminOnly ? (isAdmin ? { label: 'Enabled', variant: 'success' } : requiresAdmin) : undefined}
              action={assistant.adminOnly && !isAdmin ? requestAccess : { label: 'Start Chat', to: assistant.to }}
            />
          ))}
        </ul>
      </section>

      <section aria-labelledby="agents-title" className="mt-12">
        <div className="flex flex-wrap items-end justify-between gap-4">
          <div>
            <h2 id="agents-title" className="text-2xl font-bold text-slate-900">
              AI Agents
            </h2>
            <p className="mt-1 text-slate-600">Agents that watch the markets for you and alert you when something moves.</p>
          </div>
          {isAdmin && (
            <Link to="/agents-console" className={buttonClasses({ variant: 'outline' })}>
              Manage Agents
            </Link>
          )}
        </div>
        <ul className="mt-6 grid gap-6 sm:grid-cols-2">
          {AGENTS.map((agent) => (
            <FeatureCard
              key={agent.name}
              item={agent}
              badge={isAdmin ? { label: 'Admin Access', variant: 'brand' } : requiresAdmin}
              action={isAdmin ? { label: 'Launch Agent', to: agent.to } : requestAccess}
            />
          ))}
        </ul>
      </section>

      <Dialog
        open={restrictedOpen}
        onOpenChange={setRestrictedOpen}
        title="Admin Access Required"
        description="AI features need administrator privileges. Access is limited to administrators to keep API usage and cost under control."
        footer={
          <DialogClose asChild>
            <Button>I Understand</Button>
          </DialogClose>
        }
      >
        <div className="mt-4 rounded-lg border border-brand-100 bg-brand-50 p-4 text-sm">
          <p className="font-semibold text-slate-900">Why is this restricted?</p>
          <p className="mt-1 text-slate-700">
            Every message to an AI model and every agent run is billed by the provider. Limiting these features to
            administrators keeps spending predictable. Ask an administrator if you need access.
          </p>
        </div>
        <p className="mt-4 text-sm text-slate-700">
          Current role: <strong className="font-semibold text-slate-900">{role ?? 'guest'}</strong>
        </p>
      </Dialog>
    </div>
  );
}
