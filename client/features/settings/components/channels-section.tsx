import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import type { FieldError } from 'react-hook-form';
import {
  CHANNEL_KIND_LABELS,
  CHANNEL_KINDS,
  channelMovedNote,
  TELEGRAM_CHAT_RULE,
  TELEGRAM_TOKEN_RULE,
  WEBHOOK_TEMPLATE_MAX,
  WEBHOOK_TEMPLATE_PLACEHOLDERS,
  type TChannel,
  type TChannelKind,
  type TChannelList,
  type TChannelTestResult,
  type TCreatedChannel,
} from '../../../../contracts/channels.ts';
import { Field } from '../../../components/field.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { ApiError, apiRequest, errorMessage } from '../../../lib/api-client.ts';
import { notify } from '../../../lib/notify.ts';
import { deleteWithUndo, useHiddenByUndo } from '../../../lib/undoable-delete.ts';

export const CHANNELS_QUERY_KEY = ['/api/channels'] as const;

const CONTROL =
  'mt-1.5 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-slate-900 shadow-sm placeholder:text-slate-500 ' +
  'focus:border-brand-600 focus:outline-2 focus:outline-brand-600/30 aria-[invalid=true]:border-red-600';

const URL_HINTS: Record<Exclude<TChannelKind, 'telegram'>, string> = {
  webhook: 'Your https endpoint. Each message is signed (Standard Webhooks and X-Signature); the signing secret is shown once, after adding.',
  slack: 'The incoming webhook URL Slack gave you (https://hooks.slack.com/services/…).',
  discord: "The channel's webhook URL from Discord (https://discord.com/api/webhooks/…).",
  teams: "The URL of a Teams workflow made from the template 'Send webhook alerts to a channel' (Workflows app in Teams).",
};

const TEMPLATE_HINT = `Optional. The JSON body to post instead of the standard one, for an API such as ntfy or Mattermost. Placeholders go inside JSON strings and are filled in escaped: ${Object.keys(
  WEBHOOK_TEMPLATE_PLACEHOLDERS,
)
  .map((name) => `{{${name}}}`)
  .join(', ')}.`;

type Draft = { kind: TChannelKind; name: string; url: string; botToken: string; chatId: string; template: string };
const EMPTY: Draft = { kind: 'webhook', name: '', url: '', botToken: '', chatId: '', template: '' };
const FIELDS = ['kind', 'name', 'url', 'botToken', 'chatId', 'template'] as const;
type Errors = Partial<Record<(typeof FIELDS)[number], string>>;

const asFieldError = (message: string | undefined): FieldError | undefined => (message ? { type: 'server', message } : undefined);

/** Settings' Channels: where agents' notifications go besides the bell and email (docs/decisions/0043). */
export function ChannelsSection() {
  const channels = useQuery<TChannelList>({ queryKey: CHANNELS_QUERY_KEY });
  return (
    <section aria-labelledby="channels-heading" className="mt-10">
      <h2 id="channels-heading" className="text-xl font-semibold text-slate-900">
        Channels
      </h2>
      <p className="mt-1 text-slate-600">Webhooks, Slack, Discord, Telegram chats and Microsoft Teams channels your agents can notify. Choose them per agent in its notifications.</p>
      {channels.isPending ? (
        <div className="mt-6 flex justify-center">
          <Spinner label="Loading channels" />
        </div>
      ) : channels.isError ? (
        <LoadFailed what="Your channels" error={channels.error} onRetry={() => void channels.refetch()} />
      ) : (
        <>
          <ChannelList channels={channels.data.channels} />
          <Card className="mt-6 p-6">
            <AddChannelForm />
          </Card>
        </>
      )}
    </section>
  );
}

/** A removed channel's key while it waits for Undo (docs/decisions/0070). */
const removalKey = (id: string) => `channel:${id}`;

function ChannelList({ channels: all }: { channels: TChannel[] }) {
  const removed = useHiddenByUndo();
  const channels = all.filter((channel) => !removed.has(removalKey(channel.id)));
  if (channels.length === 0) return <p className="mt-4 text-sm text-slate-600">No channels yet.</p>;
  return (
    <ul className="mt-4 divide-y divide-slate-200 rounded-md border border-slate-200 bg-white" aria-label="Your channels">
      {channels.map((channel) => (
        <ChannelRow key={channel.id} channel={channel} />
      ))}
    </ul>
  );
}

function ChannelRow({ channel }: { channel: TChannel }) {
  const queryClient = useQueryClient();
  const [result, setResult] = useState<string | null>(null);
  const test = useMutation({
    mutationFn: () => apiRequest<TChannelTestResult>('POST', `/api/channels/${channel.id}/test`),
    onMutate: () => setResult(null),
    onSuccess: (outcome) => setResult(outcome.status === 'sent' ? 'Test message delivered.' : `Not delivered: ${outcome.error}`),
    onError: (err) => setResult(`Not delivered: ${errorMessage(err)}`),
  });
  // Removed after a few seconds for Undo (docs/decisions/0070); the row leaves the list at once.
  const remove = () =>
    deleteWithUndo({
      key: removalKey(channel.id),
      title: 'Channel removed',
      description: channel.name,
      commit: async ({ keepalive }) => {
        await apiRequest<void>('DELETE', `/api/channels/${channel.id}`, undefined, { keepalive });
        queryClient.setQueryData<TChannelList>(CHANNELS_QUERY_KEY, (list) => list && { ...list, channels: list.channels.filter((c) => c.id !== channel.id) });
        void queryClient.invalidateQueries({ queryKey: CHANNELS_QUERY_KEY });
      },
      onError: (err) => notify.error('Could not remove the channel', errorMessage(err)),
    });
  return (
    <li className="flex flex-wrap items-center gap-3 px-4 py-3">
      <div className="min-w-0 flex-1">
        <p className="font-medium text-slate-900">
          {channel.name} <span className="text-sm font-normal text-slate-600">· {CHANNEL_KIND_LABELS[channel.kind]}</span>
        </p>
        <p className="truncate font-mono text-sm text-slate-600">{channel.target}</p>
        {/* A Telegram group that became a supergroup: the channel follows it, and says so. */}
        {channel.movedFrom !== null && <p className="text-sm text-amber-800">{channelMovedNote(channel.movedFrom)}</p>}
        <p role="status" className="text-sm text-slate-700">
          {result}
        </p>
      </div>
      <Button size="sm" variant="outline" onClick={() => test.mutate()} disabled={test.isPending} aria-label={`Send test to ${channel.name}`}>
        {test.isPending ? 'Sending…' : 'Send test'}
      </Button>
      <Button
        size="sm"
        variant="ghost"
        onClick={(event) => {
          // The row leaves with the button that had focus: focus goes to the next channel's first button.
          const row = event.currentTarget.closest('li');
          const next = (row?.nextElementSibling ?? row?.previousElementSibling)?.querySelector('button');
          remove();
          next?.focus();
        }}
        aria-label={`Remove ${channel.name}`}
      >
        Remove
      </Button>
    </li>
  );
}

function AddChannelForm() {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<Draft>(EMPTY);
  const [errors, setErrors] = useState<Errors>({});
  const [secret, setSecret] = useState<{ name: string; value: string } | null>(null);
  const set = (field: keyof Draft) => (value: string) => setDraft((d) => ({ ...d, [field]: value }));

  const add = useMutation({
    mutationFn: (body: object) => apiRequest<TCreatedChannel>('POST', '/api/channels', body),
    onSuccess: (created) => {
      setDraft({ ...EMPTY, kind: draft.kind });
      setErrors({});
      if (created.signingSecret) setSecret({ name: created.name, value: created.signingSecret });
      notify.success(`Added ${created.name}`);
      void queryClient.invalidateQueries({ queryKey: CHANNELS_QUERY_KEY });
    },
    onError: (err) => {
      const details = err instanceof ApiError && err.status === 400 ? detailsOf(err.body) : {};
      setErrors(details);
      if (Object.keys(details).length === 0) notify.error('Could not add the channel', errorMessage(err));
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const { kind, name, url, botToken, chatId, template } = draft;
    add.mutate(kind === 'telegram' ? { kind, name, botToken, chatId } : kind === 'webhook' && template.trim() ? { kind, name, url, template } : { kind, name, url });
  };

  return (
    <>
      {secret && (
        <div role="alert" className="mb-6 rounded-md border border-amber-300 bg-amber-50 p-4">
          <p className="font-medium text-slate-900">Signing secret for {secret.name}</p>
          <p className="mt-1 text-sm text-slate-700">Copy it now: it is shown this once. Your endpoint checks each request’s Standard Webhooks signature (webhook-signature) or X-Signature with it (the webhooks reference, docs/reference/webhooks.md).</p>
          <code className="mt-2 block break-all rounded bg-white px-2 py-1 font-mono text-sm" aria-label="Signing secret">
            {secret.value}
          </code>
          <div className="mt-3 flex gap-2">
            <Button size="sm" variant="outline" onClick={() => void navigator.clipboard?.writeText(secret.value).then(() => notify.success('Signing secret copied'))}>
              Copy
            </Button>
            <Button size="sm" variant="ghost" onClick={() => setSecret(null)}>
              Done
            </Button>
          </div>
        </div>
      )}
      <form noValidate onSubmit={submit} className="space-y-5" aria-label="Add a channel">
        <h3 className="text-lg font-semibold text-slate-900">Add a channel</h3>
        <Field label="Kind" error={asFieldError(errors.kind)}>
          {(props) => (
            <select {...props} value={draft.kind} onChange={(e) => set('kind')(e.target.value)} className={CONTROL}>
              {CHANNEL_KINDS.map((kind) => (
                <option key={kind} value={kind}>
                  {CHANNEL_KIND_LABELS[kind]}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Name" hint="How it is listed here and in your agents’ notifications." error={asFieldError(errors.name)}>
          {(props) => <input {...props} value={draft.name} onChange={(e) => set('name')(e.target.value)} maxLength={60} className={CONTROL} />}
        </Field>
        {draft.kind === 'telegram' ? (
          <>
            <Field label="Bot token" hint={TELEGRAM_TOKEN_RULE} error={asFieldError(errors.botToken)}>
              {(props) => <input {...props} value={draft.botToken} onChange={(e) => set('botToken')(e.target.value)} autoComplete="off" className={CONTROL} />}
            </Field>
            <Field label="Chat id" hint={TELEGRAM_CHAT_RULE} error={asFieldError(errors.chatId)}>
              {(props) => <input {...props} value={draft.chatId} onChange={(e) => set('chatId')(e.target.value)} autoComplete="off" className={CONTROL} />}
            </Field>
          </>
        ) : (
          <Field label="Web address" hint={URL_HINTS[draft.kind]} error={asFieldError(errors.url)}>
            {(props) => <input {...props} type="url" value={draft.url} onChange={(e) => set('url')(e.target.value)} autoComplete="off" placeholder="https://" className={CONTROL} />}
          </Field>
        )}
        {draft.kind === 'webhook' && (
          <Field label="Message template" hint={TEMPLATE_HINT} error={asFieldError(errors.template)}>
            {(props) => (
              <textarea
                {...props}
                value={draft.template}
                onChange={(e) => set('template')(e.target.value)}
                maxLength={WEBHOOK_TEMPLATE_MAX}
                rows={4}
                spellCheck={false}
                placeholder={'{"topic": "alerts", "title": "{{agent.name}}", "message": "{{alerts}}"}'}
                className={`${CONTROL} font-mono text-sm`}
              />
            )}
          </Field>
        )}
        <div className="flex justify-end">
          <Button type="submit" disabled={add.isPending} aria-busy={add.isPending}>
            {add.isPending ? 'Adding…' : 'Add channel'}
          </Button>
        </div>
      </form>
    </>
  );
}

/** The 400 body's details, by field (the first message of each). */
function detailsOf(body: unknown): Errors {
  if (!body || typeof body !== 'object' || !('details' in body) || !Array.isArray(body.details)) return {};
  const errors: Errors = {};
  for (const d of body.details as Array<{ path?: unknown; message?: unknown }>) {
    const path = FIELDS.find((field) => field === String(d.path));
    if (path && typeof d.message === 'string') errors[path] ??= d.message;
  }
  return errors;
}
