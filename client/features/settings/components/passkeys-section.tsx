import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { TPasskey, TPasskeyList } from '../../../../contracts/passkeys.ts';
import { DATE, DATE_TIME } from '../../../../contracts/time-format.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Dialog } from '../../../components/ui/dialog.tsx';
import { ApiError, apiRequest, errorMessage } from '../../../lib/api-client.ts';
import { appConfig } from '../../../lib/app-config.ts';
import { notify } from '../../../lib/notify.ts';
import { useTimes } from '../../../lib/times.ts';
import { createPasskey, passkeyProblem } from '../../../lib/webauthn.ts';
import { PASSKEYS_QUERY_KEY } from '../api/settings-api.ts';

const CONTROL =
  'mt-1.5 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-slate-900 shadow-sm placeholder:text-slate-500 ' +
  'focus:border-brand-600 focus:outline-2 focus:outline-brand-600/30';

const describe = (err: unknown) => (err instanceof ApiError ? errorMessage(err) : passkeyProblem(err));

/**
 * Settings → Passkeys (docs/decisions/0092), for accounts that sign in with one: each passkey
 * with its name, when it was created and last used; add one on another device, remove one. The
 * last one stays: it is the only way in.
 */
export function PasskeysSection() {
  // Asked only where the server offers passkeys (no identity provider configured).
  const list = useQuery<TPasskeyList>({ queryKey: PASSKEYS_QUERY_KEY, enabled: appConfig().passkeys === true });
  // Accounts that sign in with a provider have no passkeys here; a failed load says nothing either.
  if (!list.data?.available) return null;
  return (
    <section aria-labelledby="passkeys-heading" className="mt-10">
      <h2 id="passkeys-heading" className="text-xl font-semibold text-slate-900">
        Passkeys
      </h2>
      <p className="mt-1 text-slate-600">You sign in with these. Add one on each device you use; remove one you no longer have.</p>
      <PasskeyList passkeys={list.data.passkeys} />
      <Card className="mt-6 p-6">
        <AddPasskeyForm />
      </Card>
    </section>
  );
}

function PasskeyList({ passkeys }: { passkeys: TPasskey[] }) {
  const times = useTimes();
  const [removing, setRemoving] = useState<TPasskey | null>(null);
  const only = passkeys.length <= 1;
  return (
    <>
      <ul className="mt-4 divide-y divide-slate-200 rounded-md border border-slate-200 bg-white" aria-label="Your passkeys">
        {passkeys.map((passkey) => (
          <li key={passkey.id} className="flex flex-wrap items-center gap-3 px-4 py-3">
            <div className="min-w-0 flex-1">
              <p className="font-medium break-words text-slate-900">{passkey.name}</p>
              <p className="text-sm text-slate-600">
                Created {times.format(passkey.createdAt, DATE, 'unknown')} · {passkey.lastUsedAt ? `Last used ${times.format(passkey.lastUsedAt, DATE_TIME, 'unknown')}` : 'Never used to sign in'}
              </p>
            </div>
            <Button size="sm" variant="ghost" onClick={() => setRemoving(passkey)} disabled={only} aria-label={`Remove ${passkey.name}`} aria-describedby={only ? 'passkeys-only-one' : undefined}>
              Remove
            </Button>
          </li>
        ))}
      </ul>
      {only && (
        <p id="passkeys-only-one" className="mt-2 text-sm text-slate-600">
          Your only passkey cannot be removed: add another first.
        </p>
      )}
      <RemoveDialog passkey={removing} onClose={() => setRemoving(null)} />
    </>
  );
}

function RemoveDialog({ passkey, onClose }: { passkey: TPasskey | null; onClose(): void }) {
  const queryClient = useQueryClient();
  const remove = useMutation({
    mutationFn: (id: string) => apiRequest<void>('DELETE', `/api/passkeys/${id}`),
    onSuccess: () => {
      notify.success('Passkey removed', passkey?.name);
      onClose();
    },
    onError: (err) => notify.error('Could not remove the passkey', errorMessage(err)),
    onSettled: () => queryClient.invalidateQueries({ queryKey: PASSKEYS_QUERY_KEY }),
  });
  return (
    <Dialog
      open={passkey !== null}
      onOpenChange={(open) => !open && onClose()}
      title={`Remove ${passkey?.name ?? 'this passkey'}?`}
      description="It will no longer sign you in, and the devices it signed in are signed out (this one stays signed in). Your device may still list it: delete it there too."
      footer={
        <>
          <Button variant="outline" onClick={onClose}>
            Keep it
          </Button>
          <Button className="bg-red-700 hover:bg-red-800" disabled={remove.isPending} aria-busy={remove.isPending} onClick={() => passkey && remove.mutate(passkey.id)}>
            {remove.isPending ? 'Removing…' : 'Remove passkey'}
          </Button>
        </>
      }
    />
  );
}

function AddPasskeyForm() {
  const queryClient = useQueryClient();
  const [problem, setProblem] = useState<string | null>(null);
  const add = useMutation({
    mutationFn: async (name: string) => {
      const options = await apiRequest<unknown>('POST', '/api/passkeys/options', {});
      const credential = await createPasskey(options);
      return apiRequest<TPasskey>('POST', '/api/passkeys', { name, credential });
    },
    onMutate: () => setProblem(null),
    onSuccess: (passkey) => notify.success('Passkey added', passkey.name),
    onError: (err) => setProblem(describe(err)),
    onSettled: () => queryClient.invalidateQueries({ queryKey: PASSKEYS_QUERY_KEY }),
  });
  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    add.mutate(String(new FormData(form).get('name') ?? ''), { onSuccess: () => form.reset() });
  };
  return (
    <form onSubmit={onSubmit} className="space-y-4">
      <h3 className="font-semibold text-slate-900">Add a passkey</h3>
      <div>
        <label htmlFor="new-passkey-name" className="block text-sm font-medium text-slate-900">
          Passkey name
        </label>
        <input id="new-passkey-name" name="name" type="text" required maxLength={60} placeholder="e.g. Phone" className={CONTROL} />
      </div>
      {problem && (
        <p role="alert" className="text-sm font-medium text-red-700">
          {problem}
        </p>
      )}
      <Button type="submit" disabled={add.isPending} aria-busy={add.isPending}>
        {add.isPending ? 'Adding…' : 'Add passkey'}
      </Button>
    </form>
  );
}
