import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { FieldError } from 'react-hook-form';
import {
  TOKEN_EXPIRY_DAYS,
  TOKEN_SCOPE_LABELS,
  TOKEN_SCOPES,
  type TAccessToken,
  type TCreatedAccessToken,
  type TTokenScope,
} from '../../../../contracts/assistant-tools.ts';
import { canOwnAgents } from '../../../../contracts/constants.ts';
import { DATE, DATE_TIME } from '../../../../contracts/time-format.ts';
import { Field } from '../../../components/field.tsx';
import { Badge } from '../../../components/ui/badge.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Dialog } from '../../../components/ui/dialog.tsx';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { ApiError, apiRequest, errorMessage } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth-context.ts';
import { notify } from '../../../lib/notify.ts';
import { useTimes, type Times } from '../../../lib/times.ts';
import { ACCESS_TOKENS_QUERY_KEY } from '../api/settings-api.ts';

const CONTROL =
  'mt-1.5 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-slate-900 shadow-sm placeholder:text-slate-500 ' +
  'focus:border-brand-600 focus:outline-2 focus:outline-brand-600/30 aria-[invalid=true]:border-red-600';

const SCOPE_HINTS: Record<TTokenScope, string> = {
  read: 'Reads your agents, runs, alerts and market data, and tests on history. Writes nothing.',
  propose: 'Also proposes new agents and changes, which wait under Proposals in your agents console until you apply or discard them.',
};
const DEFAULT_EXPIRY = 30;

type Draft = { name: string; scope: TTokenScope; expiresInDays: (typeof TOKEN_EXPIRY_DAYS)[number] };
type Errors = Partial<Record<keyof Draft, string>>;
const asFieldError = (message: string | undefined): FieldError | undefined => (message ? { type: 'server', message } : undefined);

/** Where MCP clients reach this server (docs/reference/mcp.md shows how to add it to one). */
export const mcpUrl = () => `${window.location.origin}/mcp`;

/**
 * Settings → Access tokens (docs/decisions/0078): personal tokens with which an MCP client
 * (Claude Desktop, Cursor, an IDE) reaches the agent tools at /mcp as this user. Any signed-in
 * user may hold them; what a token reaches is decided by its scope and the user's role at each
 * request, so a user who is not an admin is told theirs reach no tools.
 */
export function AccessTokensSection() {
  const { role } = useAuth();
  const tokens = useQuery<TAccessToken[]>({ queryKey: ACCESS_TOKENS_QUERY_KEY });
  return (
    <section aria-labelledby="access-tokens-heading" className="mt-10">
      <h2 id="access-tokens-heading" className="text-xl font-semibold text-slate-900">
        Access tokens
      </h2>
      <p className="mt-1 text-slate-600">
        Personal tokens for MCP clients such as Claude Desktop or Cursor, which then reach your agents’ tools at <code className="font-mono text-sm break-all">{mcpUrl()}</code>. A token
        acts as you, with your role at each request; revoke it and it stops working at once.
      </p>
      {!canOwnAgents(role) && (
        <p className="mt-2 text-sm text-amber-900">The agent tools need the admin role: while you are signed in as {role}, your tokens reach no tools.</p>
      )}
      {tokens.isPending ? (
        <div className="mt-6 flex justify-center">
          <Spinner label="Loading access tokens" />
        </div>
      ) : tokens.isError ? (
        <LoadFailed what="Your access tokens" error={tokens.error} onRetry={() => void tokens.refetch()} />
      ) : (
        <>
          <TokenList tokens={tokens.data} />
          <Card className="mt-6 p-6">
            <CreateTokenForm />
          </Card>
        </>
      )}
    </section>
  );
}

function TokenList({ tokens }: { tokens: TAccessToken[] }) {
  const times = useTimes();
  // When the page opened: a token that expires while it stays open is refused by the server all the same.
  const [now] = useState(() => Date.now());
  const [revoking, setRevoking] = useState<TAccessToken | null>(null);
  if (tokens.length === 0) return <p className="mt-4 text-sm text-slate-600">No access tokens yet.</p>;
  return (
    <>
      <ul className="mt-4 divide-y divide-slate-200 rounded-md border border-slate-200 bg-white" aria-label="Your access tokens">
        {tokens.map((token) => (
          <TokenRow key={token.id} token={token} expired={new Date(token.expiresAt).getTime() <= now} times={times} onRevoke={() => setRevoking(token)} />
        ))}
      </ul>
      <RevokeDialog token={revoking} onClose={() => setRevoking(null)} />
    </>
  );
}

function TokenRow({ token, expired, times, onRevoke }: { token: TAccessToken; expired: boolean; times: Times; onRevoke(): void }) {
  return (
    <li className="flex flex-wrap items-center gap-3 px-4 py-3">
      <div className="min-w-0 flex-1">
        <p className="font-medium text-slate-900">
          {token.name} <Badge variant={token.scope === 'propose' ? 'brand' : 'neutral'}>{TOKEN_SCOPE_LABELS[token.scope]}</Badge>{' '}
          {expired && <Badge variant="warning">Expired</Badge>}
        </p>
        <p className="font-mono text-sm text-slate-600">agt_{token.prefix}…</p>
        <p className="text-sm text-slate-600">
          Created {times.format(token.createdAt, DATE, 'unknown')} · {expired ? 'Expired' : 'Expires'} {times.format(token.expiresAt, DATE, 'unknown')} ·{' '}
          {token.lastUsedAt ? `Last used ${times.format(token.lastUsedAt, DATE_TIME, 'unknown')}` : 'Never used'}
        </p>
      </div>
      <Button size="sm" variant="ghost" onClick={onRevoke} aria-label={`Revoke ${token.name}`}>
        Revoke
      </Button>
    </li>
  );
}

/** Asks before revoking: a client using the token is refused from its next request. */
function RevokeDialog({ token, onClose }: { token: TAccessToken | null; onClose(): void }) {
  const queryClient = useQueryClient();
  const revoke = useMutation({
    mutationFn: (id: string) => apiRequest<void>('DELETE', `/api/settings/access-tokens/${id}`),
    onSuccess: (_none, id) => {
      queryClient.setQueryData<TAccessToken[]>(ACCESS_TOKENS_QUERY_KEY, (list) => list?.filter((t) => t.id !== id));
      void queryClient.invalidateQueries({ queryKey: ACCESS_TOKENS_QUERY_KEY });
      notify.success('Access token revoked', token?.name);
      onClose();
    },
    onError: (err) => notify.error('Could not revoke the access token', errorMessage(err)),
  });
  return (
    <Dialog
      open={token !== null}
      onOpenChange={(open) => !open && onClose()}
      title={`Revoke ${token?.name ?? 'this token'}?`}
      description="Clients using it are refused from their next request. This cannot be undone: to connect them again, create a new token."
      footer={
        <>
          <Button variant="outline" onClick={onClose}>
            Keep it
          </Button>
          <Button className="bg-red-700 hover:bg-red-800" disabled={revoke.isPending} aria-busy={revoke.isPending} onClick={() => token && revoke.mutate(token.id)}>
            {revoke.isPending ? 'Revoking…' : 'Revoke token'}
          </Button>
        </>
      }
    />
  );
}

function CreateTokenForm() {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>({ name: '', scope: 'read', expiresInDays: DEFAULT_EXPIRY });
  const [errors, setErrors] = useState<Errors>({});
  const [created, setCreated] = useState<TCreatedAccessToken | null>(null);

  const create = useMutation({
    mutationFn: (body: Draft) => apiRequest<TCreatedAccessToken>('POST', '/api/settings/access-tokens', body),
    onSuccess: (token) => {
      setCreated(token);
      setDraft({ name: '', scope: 'read', expiresInDays: DEFAULT_EXPIRY });
      setErrors({});
      void queryClient.invalidateQueries({ queryKey: ACCESS_TOKENS_QUERY_KEY });
    },
    onError: (err) => {
      const details = err instanceof ApiError && err.status === 400 ? detailsOf(err.body) : {};
      setErrors(details);
      if (Object.keys(details).length === 0) notify.error('Could not create the access token', errorMessage(err));
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    create.mutate(draft);
  };

  return (
    <>
      {created && <NewToken token={created} onDone={() => setCreated(null)} />}
      <form noValidate onSubmit={submit} className="space-y-5" aria-label="Create an access token">
        <h3 className="text-lg font-semibold text-slate-900">Create an access token</h3>
        <Field label="Name" hint="Where you will use it, so you can tell your tokens apart (“Claude Desktop on my laptop”)." error={asFieldError(errors.name)}>
          {(props) => <input {...props} value={draft.name} onChange={(e) => setDraft((d) => ({ ...d, name: e.target.value }))} maxLength={60} autoComplete="off" className={CONTROL} />}
        </Field>
        <fieldset aria-describedby={errors.scope ? 'token-scope-error' : undefined}>
          <legend className="block text-sm font-medium text-slate-900">Scope</legend>
          <div className="mt-2 space-y-2">
            {TOKEN_SCOPES.map((scope) => (
              <label key={scope} className="flex items-start gap-2 text-sm text-slate-900">
                <input
                  type="radio"
                  name="token-scope"
                  value={scope}
                  checked={draft.scope === scope}
                  onChange={() => setDraft((d) => ({ ...d, scope }))}
                  aria-describedby={`token-scope-${scope}-hint`}
                  className="mt-0.5 accent-brand-600"
                />
                <span>
                  <span className="font-medium">{TOKEN_SCOPE_LABELS[scope]}</span>
                  <span id={`token-scope-${scope}-hint`} className="block text-slate-600">
                    {SCOPE_HINTS[scope]}
                  </span>
                </span>
              </label>
            ))}
          </div>
          {errors.scope && (
            <p id="token-scope-error" className="mt-1 text-sm font-medium text-red-700">
              {errors.scope}
            </p>
          )}
        </fieldset>
        <Field label="Expires after" error={asFieldError(errors.expiresInDays)}>
          {(props) => (
            <select
              {...props}
              value={draft.expiresInDays}
              onChange={(e) => setDraft((d) => ({ ...d, expiresInDays: Number(e.target.value) as Draft['expiresInDays'] }))}
              className={CONTROL}
            >
              {TOKEN_EXPIRY_DAYS.map((days) => (
                <option key={days} value={days}>
                  {days} days
                </option>
              ))}
            </select>
          )}
        </Field>
        <div className="flex justify-end">
          <Button type="submit" disabled={create.isPending} aria-busy={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create token'}
          </Button>
        </div>
      </form>
    </>
  );
}

/** The new token's secret, this once: the server keeps only its hash. */
function NewToken({ token, onDone }: { token: TCreatedAccessToken; onDone(): void }) {
  const copy = () =>
    void navigator.clipboard
      ?.writeText(token.token)
      .then(() => notify.success('Access token copied'))
      .catch(() => notify.error('Could not copy the token', 'Select it and copy it by hand.'));
  return (
    <div role="alert" className="mb-6 rounded-md border border-amber-300 bg-amber-50 p-4">
      <p className="font-medium text-slate-900">Your new token “{token.name}”</p>
      <p className="mt-1 text-sm text-slate-700">Copy it now: it will not be shown again. Give it to your MCP client as the bearer token for {mcpUrl()} (the MCP reference, docs/reference/mcp.md, shows how).</p>
      <code className="mt-2 block rounded bg-white px-2 py-1 font-mono text-sm break-all" aria-label="New access token">
        {token.token}
      </code>
      <div className="mt-3 flex gap-2">
        <Button size="sm" variant="outline" onClick={copy}>
          Copy
        </Button>
        <Button size="sm" variant="ghost" onClick={onDone}>
          Done
        </Button>
      </div>
    </div>
  );
}

/** The 400 body's details, by field (the first message of each). */
function detailsOf(body: unknown): Errors {
  if (!body || typeof body !== 'object' || !('details' in body) || !Array.isArray(body.details)) return {};
  const errors: Errors = {};
  for (const d of body.details as Array<{ path?: unknown; message?: unknown }>) {
    const path = String(d.path);
    if ((path === 'name' || path === 'scope' || path === 'expiresInDays') && typeof d.message === 'string') errors[path] ??= d.message;
  }
  return errors;
}
