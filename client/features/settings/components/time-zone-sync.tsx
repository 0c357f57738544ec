import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import type { TSettings } from '../../../../contracts/settings.ts';
import { isTimeZone } from '../../../../contracts/time-zone.ts';
import { useAuth } from '../../../lib/auth-context.ts';
import { setSettingsTimeZone } from '../../../lib/time-zone.ts';
import { SETTINGS_QUERY_KEY } from '../api/settings-api.ts';

/**
 * Hands the signed-in user's Settings zone to every time on screen (client/lib/time-zone.ts,
 * docs/decisions/0066), and takes it back at sign-out. Renders nothing.
 */
export default function TimeZoneSync() {
  const { user } = useAuth();
  // Signed out, nothing observes the settings, so the sign-out forgets them with the user's
  // other answers (app-auth-provider.tsx).
  return user ? <SettingsTimeZone key={user.id} /> : null;
}

/** The same query as the Settings page, so a saved zone applies at once. */
function SettingsTimeZone() {
  const saved = useQuery<TSettings>({ queryKey: SETTINGS_QUERY_KEY }).data?.timeZone ?? null;
  // A zone saved from a browser that knows more zones than this one: this browser's, rather than none.
  const zone = saved && isTimeZone(saved) ? saved : null;
  useEffect(() => {
    setSettingsTimeZone(zone);
    return () => setSettingsTimeZone(null);
  }, [zone]);
  return null;
}
