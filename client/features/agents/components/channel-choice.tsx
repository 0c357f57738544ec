import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { CHANNEL_KIND_LABELS, type TChannelList } from '../../../../contracts/channels.ts';

/**
 * Which of the owner's delivery channels the agent also notifies (docs/decisions/0043): one
 * checkbox each. The channels themselves are set up at Settings.
 */
export function ChannelChoice({ value, onChange }: { value: readonly string[] | undefined; onChange(next: string[]): void }) {
  const channels = useQuery<TChannelList>({ queryKey: ['/api/channels'] });
  const chosen = new Set(value ?? []);
  const toggle = (id: string, on: boolean) => onChange((channels.data?.channels ?? []).map((c) => c.id).filter((c) => (c === id ? on : chosen.has(c))));
  return (
    <fieldset>
      <legend className="text-sm font-medium text-slate-900">Channels</legend>
      {channels.isPending ? (
        <p className="text-sm text-slate-600">Loading your channels…</p>
      ) : channels.isError ? (
        <p className="text-sm text-red-700">Your channels could not be loaded.</p>
      ) : channels.data.channels.length === 0 ? (
        <p className="text-sm text-slate-600">
          No channels yet: add a webhook, Slack, Discord or Telegram chat in{' '}
          <Link to="/settings" className="text-brand-700 underline">
            Settings
          </Link>
          .
        </p>
      ) : (
        <div className="mt-1 space-y-1.5">
          {channels.data.channels.map((channel) => (
            <label key={channel.id} className="flex items-center gap-2 text-sm text-slate-900">
              <input type="checkbox" className="size-4 accent-brand-600" checked={chosen.has(channel.id)} onChange={(e) => toggle(channel.id, e.target.checked)} />
              {channel.name} <span className="text-slate-600">({CHANNEL_KIND_LABELS[channel.kind]})</span>
            </label>
          ))}
        </div>
      )}
    </fieldset>
  );
}

/**
 * The agent's channels as the read-only summaries list them (the wizard's Review, the details'
 * Settings): each by its name and kind, in the order chosen; 'None' without any.
 */
export function ChannelNames({ ids }: { ids: readonly string[] | undefined }) {
  const chosen = ids ?? [];
  const channels = useQuery<TChannelList>({ queryKey: ['/api/channels'], enabled: chosen.length > 0 });
  if (chosen.length === 0) return 'None';
  if (channels.isPending) return 'Loading your channels…';
  if (channels.isError) return `${chosen.length} channel${chosen.length === 1 ? '' : 's'} (their names could not be loaded)`;
  const byId = new Map(channels.data.channels.map((channel) => [channel.id, channel]));
  return chosen
    .map((id) => {
      const channel = byId.get(id);
      // Deleting a channel takes it off its agents; until this list catches up it is gone.
      return channel ? `${channel.name} (${CHANNEL_KIND_LABELS[channel.kind]})` : 'A deleted channel';
    })
    .join(', ');
}
