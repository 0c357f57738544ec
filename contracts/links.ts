/**
 * Where a notification leads in the app, built here only: the bell, the alert emails and every
 * channel's message (webhook, Slack, Discord, Telegram) link to the same page (issue 29: the
 * channels' messages pointed at `/agents`, which is no page). The agents console reads the two
 * parameters and opens the agent's details at Run History with the run in view.
 */

/** The agents console (contracts/site.ts's APP_ROUTES has it: it answers 200 for its owner). */
export const AGENTS_CONSOLE_PATH = '/agents-console';

/** Settings, where an owner chooses where alerts go and manages their channels. */
export const SETTINGS_PATH = '/settings';

/** The console's query parameters naming the agent whose details open, and the run in view. */
export const NOTIFICATION_LINK_PARAMS = { agent: 'agent', run: 'run' } as const;

/** What a link is about: an agent (and one of its runs), or neither (a channel's test message). */
export type TLinkTarget = { agentId: string | null; runId: number | null };

/** The path of a notification's page: its agent's details at its run, else the console itself. */
export function notificationPath({ agentId, runId }: TLinkTarget): string {
  if (!agentId) return AGENTS_CONSOLE_PATH;
  const params = new URLSearchParams({ [NOTIFICATION_LINK_PARAMS.agent]: agentId });
  if (runId !== null) params.set(NOTIFICATION_LINK_PARAMS.run, String(runId));
  return `${AGENTS_CONSOLE_PATH}?${params}`;
}

/** The same page as an absolute address on the site (`publicUrl` is PUBLIC_URL, no trailing slash). */
export function notificationUrl(publicUrl: string, target: TLinkTarget): string {
  return `${publicUrl}${notificationPath(target)}`;
}
