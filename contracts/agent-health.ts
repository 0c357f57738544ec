import { z } from 'zod';

/**
 * An agent's health as its runs show it (issue 15 item 3, docs/decisions/0028): derived from the
 * runs table on every read, never stored, so it cannot drift from Run History.
 */

/** Failed runs in a row after which the owner is told once that the agent is failing. */
export const FAILING_AFTER_RUNS = 3;

/** The longest reason a card or a notification title shows; the whole error is in Run History. */
const REASON_CHARS = 140;

export const ZAgentHealth = z.object({
  /** 'failing': its latest finished run failed; 'healthy': it succeeded; 'new': none finished yet. */
  state: z.enum(['new', 'healthy', 'failing']),
  /** The latest failure's one-line reason (failureReason of its error); null unless failing. */
  reason: z.string().nullable(),
  /** When the latest successful run ended (its performance is the agent's), or null. */
  lastSuccessAt: z.string().nullable(),
});
export type TAgentHealth = z.infer<typeof ZAgentHealth>;

export const NO_HEALTH: TAgentHealth = { state: 'new', reason: null, lastSuccessAt: null };

/** A run's error as one line: its first line, spaces collapsed, cut at a word with '…'. */
export function failureReason(error: string | null): string {
  const line = (error ?? '').split('\n').find((l) => l.trim() !== '')?.replace(/\s+/g, ' ').trim() ?? '';
  if (line === '') return 'the run failed without a reason';
  if (line.length <= REASON_CHARS) return line;
  const cut = line.slice(0, REASON_CHARS);
  const space = cut.lastIndexOf(' ');
  return `${(space > REASON_CHARS / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`;
}

/** The notification kinds: a run's alerts, an agent failing, an agent recovered, and the one
 * notice of an hour whose alerts were held back by the agent's cap (docs/decisions/0041). */
export const NOTIFICATION_KINDS = ['alerts', 'failing', 'recovered', 'alert-storm'] as const;
export type TNotificationKind = (typeof NOTIFICATION_KINDS)[number];

/** '{name} is failing: {reason}' (issue 15), the failing notification's title. */
export const failingTitle = (name: string, reason: string) => `${name} is failing: ${reason}`;
export const recoveredTitle = (name: string) => `${name} has recovered`;

/** The health mark's key in alert_states (the server's): no threshold's market is empty. */
export const FAILING_CONDITION = { market: '', thresholdType: 'agent-failing' } as const;
