import '../../../lib/zod-csp.ts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { Controller, useForm } from 'react-hook-form';
import type { z } from 'zod';
import { canOwnAgents } from '../../../../contracts/constants.ts';
import { ZUpdateSettings, type TSettings, type TUpdateSettings } from '../../../../contracts/settings.ts';
import { Field } from '../../../components/field.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { ApiError, apiRequest, errorMessage } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth-context.ts';
import { notify } from '../../../lib/notify.ts';
import { browserTimeZone } from '../../../lib/time-zone.ts';
import { SETTINGS_QUERY_KEY } from '../api/settings-api.ts';
import { AccessTokensSection } from './access-tokens-section.tsx';
import { ChannelsSection } from './channels-section.tsx';
import { PasskeysSection } from './passkeys-section.tsx';

type FormValues = z.input<typeof ZUpdateSettings>;
type FieldName = keyof FormValues;

const CONTROL =
  'mt-1.5 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-slate-900 shadow-sm placeholder:text-slate-500 ' +
  'focus:border-brand-600 focus:outline-2 focus:outline-brand-600/30 aria-[invalid=true]:border-red-600';

/** Every zone the browser knows, plus the browser's own and the saved one when the list lacks
 * them (Chrome lists no 'UTC'; a zone saved elsewhere may be an alias). */
function timeZoneOptions(...extra: Array<string | null>): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return [...new Set([...known, ...extra.filter((zone): zone is string => Boolean(zone))])].sort();
}

/** /settings (signed in): where agent alerts are emailed, and the user's time zone, both about
 * agents' alerts, so only a user who can own agents sees them; and everyone's access tokens for
 * MCP clients. */
export default function SettingsPage() {
  usePageTitle('Settings');
  const { role } = useAuth();
  return (
    <div className="mx-auto max-w-2xl px-4 py-10 sm:px-6 lg:px-8">
      <h1 className="text-3xl font-bold text-slate-900">Settings</h1>
      {canOwnAgents(role) ? (
        <>
          <p className="mt-2 text-slate-600">Where your agents’ alerts are emailed, and the time zone every time is shown in.</p>
          <AlertSettings />
        </>
      ) : (
        <p className="mt-2 text-slate-600">Alert settings come with market agents, which need the admin role; you are signed in as {role}.</p>
      )}
      {/* Any signed-in user may hold tokens (docs/decisions/0078); the section says what theirs reach. */}
      <AccessTokensSection />
      {/* Passkey accounts only (docs/decisions/0092): the section shows itself when the account has passkeys. */}
      <PasskeysSection />
    </div>
  );
}

function AlertSettings() {
  const settings = useQuery<TSettings>({ queryKey: SETTINGS_QUERY_KEY });
  return settings.isPending ? (
    <div className="mt-10 flex justify-center">
      <Spinner label="Loading settings" />
    </div>
  ) : settings.isError ? (
    <LoadFailed what="Your settings" error={settings.error} onRetry={() => void settings.refetch()} />
  ) : (
    <>
      <Card className="mt-8 p-6">
        <SettingsForm settings={settings.data} />
      </Card>
      <ChannelsSection />
    </>
  );
}

function SettingsForm({ settings }: { settings: TSettings }) {
  const queryClient = useQueryClient();
  const deviceZone = useMemo(() => browserTimeZone(), []);
  const zones = useMemo(() => timeZoneOptions(deviceZone, settings.timeZone), [deviceZone, settings.timeZone]);
  const {
    register,
    control,
    handleSubmit,
    setError,
    reset,
    formState: { errors },
  } = useForm<FormValues, unknown, z.output<typeof ZUpdateSettings>>({
    resolver: zodResolver(ZUpdateSettings),
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    // No saved zone yet: the browser's is suggested, and saved with the first Save.
    defaultValues: { alertEmail: settings.alertEmail ?? '', timeZone: settings.timeZone ?? deviceZone },
  });

  const save = useMutation({
    mutationFn: (values: TUpdateSettings) => apiRequest<TSettings>('PUT', '/api/settings', values),
    onSuccess: (saved) => {
      queryClient.setQueryData(SETTINGS_QUERY_KEY, saved);
      reset({ alertEmail: saved.alertEmail ?? '', timeZone: saved.timeZone ?? deviceZone });
      notify.success('Settings saved');
    },
    onError: (err) => {
      // The server's field errors go under their fields; anything else is a toast.
      const details = err instanceof ApiError && err.status === 400 ? fieldErrors(err.body) : [];
      for (const { path, message } of details) setError(path, { type: 'server', message }, { shouldFocus: true });
      if (details.length === 0) notify.error('Could not save your settings', errorMessage(err));
    },
  });

  return (
    <form noValidate onSubmit={handleSubmit((values) => save.mutate(values))} className="space-y-6">
      <Field
        label="Alert email"
        hint={
          <>
            Agent alerts are emailed here. Leave it empty to use your sign-in email, <span className="font-medium break-all">{settings.signInEmail}</span>.
          </>
        }
        error={errors.alertEmail}
      >
        {(props) => <input {...props} type="email" autoComplete="email" placeholder={settings.signInEmail} className={CONTROL} {...register('alertEmail')} />}
      </Field>
      <Field
        label="Time zone"
        hint={`Times on every screen, in alert emails and in channel messages are shown in this zone, with its name.${deviceZone ? ` This browser is set to ${deviceZone}.` : ''}`}
        error={errors.timeZone}
      >
        {(props) => (
          // Controlled: the chosen zone is always one of the options shown.
          <Controller
            control={control}
            name="timeZone"
            render={({ field }) => (
              <select {...props} {...field} value={field.value ?? ''} className={CONTROL}>
                {zones.map((zone) => (
                  <option key={zone} value={zone}>
                    {zone === deviceZone ? `${zone} (this browser)` : zone}
                  </option>
                ))}
              </select>
            )}
          />
        )}
      </Field>
      <div className="flex justify-end">
        <Button type="submit" disabled={save.isPending} aria-busy={save.isPending}>
          {save.isPending ? 'Saving…' : 'Save'}
        </Button>
      </div>
    </form>
  );
}

/** The 400 body's details that name one of our fields. */
function fieldErrors(body: unknown): Array<{ path: FieldName; message: string }> {
  if (!body || typeof body !== 'object' || !('details' in body) || !Array.isArray(body.details)) return [];
  return body.details.flatMap((d: unknown) => {
    if (!d || typeof d !== 'object' || !('path' in d) || !('message' in d)) return [];
    const { path, message } = d as { path: unknown; message: unknown };
    return (path === 'alertEmail' || path === 'timeZone') && typeof message === 'string' ? [{ path, message }] : [];
  });
}
