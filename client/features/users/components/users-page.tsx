import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { TRole, TUser } from '../../../../contracts/users.ts';
import { Avatar } from '../../../components/ui/avatar.tsx';
import { Badge } from '../../../components/ui/badge.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';
import { apiRequest, errorMessage } from '../../../lib/api-client.ts';
import { appConfig } from '../../../lib/app-config.ts';
import { notify } from '../../../lib/notify.ts';
import { useLocalDate } from '../../../lib/time-zone.ts';
import { currentChatPolicy, roleSummary } from '../lib/role-summary.ts';
import { InviteButton } from './invite-dialog.tsx';

export const USERS_QUERY_KEY = ['/api/users'] as const;
/** The session's query (owned by the auth feature): refreshed after a role change in case the
 * admin changed their own role. */
const ME_QUERY_KEY = ['/api/auth/me'] as const;

// Not contracts' ROLES: importing a value from contracts/users.ts would pull zod into this chunk.
const ROLES: TRole[] = ['admin', 'guest'];

const displayName = (user: TUser) => user.name || user.email;

/** /admin/users (admin): every account with its role; an admin changes roles here. The server
 * checks the role and refuses to remove the last admin. */
export default function UsersPage() {
  usePageTitle('Users');
  const queryClient = useQueryClient();
  const users = useQuery<TUser[]>({ queryKey: USERS_QUERY_KEY });
  const changeRole = useMutation({
    mutationFn: ({ user, role }: { user: TUser; role: TRole }) => apiRequest<TUser>('PATCH', `/api/users/${user.id}`, { role }),
    onSuccess: (updated) => notify.success('Role updated', `${displayName(updated)} is now ${updated.role}.`),
    onError: (err, { user }) => notify.error(`Could not change ${displayName(user)}'s role`, errorMessage(err)),
    onSettled: () => Promise.all([queryClient.invalidateQueries({ queryKey: USERS_QUERY_KEY }), queryClient.invalidateQueries({ queryKey: ME_QUERY_KEY })]),
  });

  return (
    <div className="mx-auto max-w-5xl px-4 py-10 sm:px-6 lg:px-8">
      <div className="flex flex-wrap items-center justify-between gap-4">
        <h1 className="text-3xl font-bold text-slate-900">Users</h1>
        {/* Passkey accounts (docs/decisions/0092): only where no identity provider is configured. */}
        {appConfig().passkeys && <InviteButton />}
      </div>
      <p className="mt-2 text-slate-600">Everyone who has signed in. {roleSummary(currentChatPolicy())}</p>

      {users.isPending ? (
        <div className="mt-10 flex justify-center">
          <Spinner label="Loading users" />
        </div>
      ) : users.isError ? (
        <LoadFailed what="The list of users" error={users.error} onRetry={() => void users.refetch()} />
      ) : (
        <Card className="mt-8 overflow-x-auto">
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Users and their roles</caption>
            <thead className="border-b border-slate-200 bg-slate-50 text-slate-700">
              <tr>
                <th scope="col" className="px-4 py-3 font-semibold">
                  Name
                </th>
                {/* A phone shows the email and the date under the name: the role stays in reach. */}
                <th scope="col" className="hidden px-4 py-3 font-semibold sm:table-cell">
                  Email
                </th>
                <th scope="col" className="px-4 py-3 font-semibold">
                  Role
                </th>
                <th scope="col" className="hidden px-4 py-3 font-semibold sm:table-cell">
                  Created
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-200">
              {users.data.map((user) => {
                const pending = changeRole.isPending && changeRole.variables.user.id === user.id;
                return (
                  <tr key={user.id}>
                    <th scope="row" className="px-4 py-3 font-medium text-slate-900">
                      <span className="flex items-center gap-3">
                        <Avatar name={user.name} src={user.profilePicture} />
                        <span className="min-w-0 break-words">{user.name || <span className="text-slate-600">(no name)</span>}</span>
                      </span>
                      <span className="mt-1 block text-xs font-normal break-all text-slate-600 sm:hidden">{user.email}</span>
                      <span className="mt-0.5 block text-xs font-normal text-slate-600 sm:hidden">
                        Since <Created user={user} />
                      </span>
                    </th>
                    <td className="hidden px-4 py-3 break-all text-slate-700 sm:table-cell">{user.email}</td>
                    <td className="px-4 py-3">
                      <span className="flex items-center gap-2">
                        <select
                          aria-label={`Role for ${displayName(user)}`}
                          value={user.role}
                          disabled={pending}
                          onChange={(event) => changeRole.mutate({ user, role: event.target.value as TRole })}
                          className="rounded-md border border-slate-300 bg-white px-2 py-1.5 text-slate-900 focus:outline-2 focus:outline-brand-600 disabled:opacity-60"
                        >
                          {ROLES.map((role) => (
                            <option key={role} value={role}>
                              {role}
                            </option>
                          ))}
                        </select>
                        {pending && <Badge>Saving…</Badge>}
                      </span>
                    </td>
                    <td className="hidden px-4 py-3 whitespace-nowrap text-slate-700 sm:table-cell">
                      <Created user={user} />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </Card>
      )}
    </div>
  );
}

function Created({ user }: { user: TUser }) {
  return <time dateTime={user.createdAt}>{useLocalDate(user.createdAt)}</time>;
}
