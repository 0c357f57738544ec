import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { TCreatedInvite } from '../../../../contracts/passkeys.ts';
import type { TRole } from '../../../../contracts/users.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Dialog } from '../../../components/ui/dialog.tsx';
import { ApiError, apiRequest, errorMessage } from '../../../lib/api-client.ts';

const CONTROL =
  'mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-slate-900 shadow-sm ' +
  'focus:border-brand-600 focus:outline-2 focus:outline-brand-600/30 aria-[invalid=true]:border-red-600';

/** The server's refusal of one field (400 details), for the field it names. */
function fieldProblem(err: unknown, field: string): string | undefined {
  if (!(err instanceof ApiError) || err.status !== 400) return undefined;
  const details = (err.body as { details?: Array<{ path: string; message: string }> } | null)?.details ?? [];
  return details.find((d) => d.path === field)?.message;
}

/**
 * Users → Invite (docs/decisions/0092): an email and a role; the server emails a one-time link
 * (SMTP_URL), or, without email, gives it here for the admin to pass on.
 */
export function InviteButton() {
  const [open, setOpen] = useState(false);
  const invite = useMutation({
    mutationFn: (input: { email: string; role: TRole }) => apiRequest<TCreatedInvite>('POST', '/api/invites', input),
  });
  const close = () => {
    setOpen(false);
    invite.reset();
  };
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    invite.mutate({ email: String(form.get('email') ?? ''), role: form.get('role') === 'admin' ? 'admin' : 'guest' });
  };
  const emailProblem = fieldProblem(invite.error, 'email');
  const otherProblem = invite.error && !emailProblem ? errorMessage(invite.error) : null;
  const created = invite.data;

  return (
    <>
      <Button onClick={() => setOpen(true)}>Invite</Button>
      <Dialog
        open={open}
        onOpenChange={(next) => (next ? setOpen(true) : close())}
        title="Invite someone"
        description="They get a one-time link to create a passkey and sign in with it. The link expires, and works once."
      >
        {created ? (
          <div className="mt-4 space-y-3">
            {created.link ? (
              <>
                <p className="text-sm text-slate-700">
                  Email is not configured on this server (SMTP_URL), so pass this link on to <strong>{created.email}</strong> yourself. It is shown only now.
                </p>
                <label htmlFor="invite-link" className="block text-sm font-medium text-slate-900">
                  Invite link
                </label>
                <input id="invite-link" readOnly value={created.link} className={`${CONTROL} font-mono text-sm`} onFocus={(event) => event.currentTarget.select()} />
              </>
            ) : (
              <p role="status" className="text-sm text-slate-700">
                Invite emailed to <strong>{created.email}</strong>.
              </p>
            )}
            <p className="text-sm text-slate-600">It expires on {new Date(created.expiresAt).toLocaleString()}.</p>
            <div className="flex justify-end">
              <Button onClick={close}>Done</Button>
            </div>
          </div>
        ) : (
          <form className="mt-4 space-y-4" onSubmit={onSubmit} noValidate>
            <div>
              <label htmlFor="invite-email" className="block text-sm font-medium text-slate-900">
                Email
              </label>
              <input
                id="invite-email"
                name="email"
                type="email"
                required
                maxLength={254}
                className={CONTROL}
                aria-invalid={Boolean(emailProblem)}
                aria-describedby={emailProblem ? 'invite-email-error' : undefined}
              />
              {emailProblem && (
                <p id="invite-email-error" className="mt-1 text-sm font-medium text-red-700">
                  {emailProblem}
                </p>
              )}
            </div>
            <div>
              <label htmlFor="invite-role" className="block text-sm font-medium text-slate-900">
                Role
              </label>
              <select id="invite-role" name="role" defaultValue="guest" className={CONTROL}>
                <option value="guest">guest</option>
                <option value="admin">admin</option>
              </select>
            </div>
            {otherProblem && (
              <p role="alert" className="text-sm font-medium text-red-700">
                {otherProblem}
              </p>
            )}
            <div className="flex justify-end gap-2">
              <Button variant="outline" onClick={close}>
                Cancel
              </Button>
              <Button type="submit" disabled={invite.isPending} aria-busy={invite.isPending}>
                {invite.isPending ? 'Inviting…' : 'Send invite'}
              </Button>
            </div>
          </form>
        )}
      </Dialog>
    </>
  );
}
