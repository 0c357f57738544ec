import { useMutation, useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { CHAT_PROVIDER_INFO, type TChatProvider, type TChatProviderStatus, type TChatProvidersResponse } from '../../../../contracts/chat.ts';
import { conditionText, DESCRIBE_TEXT_MAX, type TCondition } from '../../../../contracts/conditions.ts';
import type { TCandleTimeframe } from '../../../../contracts/market.ts';
import { Button } from '../../../components/ui/button.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { draftCondition } from '../api/agents-api.ts';
import { defaultTextModel, textModels } from '../lib/assistant-models.ts';
import { CONTROL } from './form-controls.tsx';

/** The assistants the owner may use, with their key on this server and a model that writes text. */
const usable = (providers: readonly TChatProviderStatus[]) => providers.filter((p) => p.allowed && p.configured && textModels(p).length > 0);
/** Only called with usable assistants, which have a text model. */
const defaultModel = (provider: TChatProviderStatus) => defaultTextModel(provider)!;

/** What went wrong, in the server's sentence: its message, else the fields' rules, else the status. */
function problemOf(err: unknown): string {
  if (err instanceof ApiError && err.body && typeof err.body === 'object') {
    const body = err.body as { message?: unknown; details?: unknown };
    if (typeof body.message === 'string' && body.message) return body.message;
    if (Array.isArray(body.details) && body.details.length > 0) return body.details.map((d: { message?: unknown }) => String(d.message)).join('; ');
  }
  return err instanceof Error && err.message ? err.message : 'The condition could not be drafted. Please try again.';
}

type Props = {
  /** The agent's own timeframe: a side without one reads it. */
  agentTimeframe: TCandleTimeframe;
  templateId: string;
  /** A drafted condition, for the builder to show for review; nothing is saved. */
  onDraft(condition: TCondition): void;
};

/**
 * "Describe it" (issue 30 item 5, docs/decisions/0075): the owner writes what to watch, picks one
 * of the hub's assistants they may use that has its key here, and the assistant drafts the
 * condition (POST /api/agents/conditions/draft). A draft goes to `onDraft` for review; words the
 * assistant could not map, or any failure, are said here and `onDraft` is not called.
 */
export function DescribeCondition({ agentTimeframe, templateId, onDraft }: Props) {
  const id = useId();
  const [text, setText] = useState('');
  const [choice, setChoice] = useState<{ provider: TChatProvider; model: string } | null>(null);
  const providers = useQuery<TChatProvidersResponse>({ queryKey: ['/api/chat/providers'] });
  const offered = usable(providers.data?.providers ?? []);
  // The owner's pick while it is still offered, else the first assistant offered.
  const chosenProvider = offered.find((p) => p.id === choice?.provider) ?? offered[0];
  const chosenModel = chosenProvider && (textModels(chosenProvider).some((m) => m.id === choice?.model) ? choice!.model : defaultModel(chosenProvider));

  const drafting = useMutation({ mutationFn: draftCondition, onSuccess: (condition) => onDraft(condition) });

  const submit = () => {
    if (!chosenProvider || !chosenModel || text.trim() === '' || drafting.isPending) return;
    drafting.mutate({ text: text.trim(), provider: chosenProvider.id, model: chosenModel, agentTimeframe, templateId });
  };

  const problem = drafting.isError ? problemOf(drafting.error) : null;
  const notUnderstood = drafting.error instanceof ApiError && drafting.error.status === 422;
  const describedBy = [`${id}-hint`, problem ? `${id}-problem` : null].filter(Boolean).join(' ');

  return (
    // Not a <form>: the builder that holds it is one, and a form inside a form would submit it.
    <div role="group" aria-labelledby={`${id}-title`} className="rounded-lg border border-slate-200 bg-slate-50 p-4">
      <h3 id={`${id}-title`} className="text-base font-semibold text-slate-900">
        Describe it
      </h3>
      <label htmlFor={`${id}-text`} className="mt-2 block text-sm font-medium text-slate-900">
        Describe the condition in words
      </label>
      <textarea
        id={`${id}-text`}
        value={text}
        rows={3}
        maxLength={DESCRIBE_TEXT_MAX}
        aria-describedby={describedBy}
        aria-invalid={problem ? true : undefined}
        placeholder="alert me when the RSI on the hour drops below 30 while the price is above its 200-day average"
        onChange={(event) => setText(event.target.value)}
        className={`${CONTROL} mt-1`}
      />
      <p id={`${id}-hint`} className="mt-1 text-sm text-slate-600">
        An assistant drafts the condition for you to review; nothing is saved until you save the agent. Each draft counts against your daily AI budget, like a chat message.
      </p>

      {providers.isPending ? (
        <p className="mt-2 text-sm text-slate-600">Loading the assistants…</p>
      ) : providers.isError ? (
        <p className="mt-2 text-sm text-red-700">The assistants could not be loaded.</p>
      ) : !chosenProvider ? (
        <p className="mt-2 text-sm text-slate-600">No assistant with an API key is open to you on this server.</p>
      ) : (
        <div className="mt-3 grid gap-3 sm:grid-cols-2">
          <div>
            <label htmlFor={`${id}-provider`} className="block text-sm font-medium text-slate-900">
              Assistant
            </label>
            <select
              id={`${id}-provider`}
              value={chosenProvider.id}
              onChange={(event) => {
                const next = offered.find((p) => p.id === event.target.value);
                if (next) setChoice({ provider: next.id, model: defaultModel(next) });
              }}
              className={`${CONTROL} mt-1`}
            >
              {offered.map((p) => (
                <option key={p.id} value={p.id}>
                  {CHAT_PROVIDER_INFO[p.id].label}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor={`${id}-model`} className="block text-sm font-medium text-slate-900">
              Model
            </label>
            <select id={`${id}-model`} value={chosenModel} onChange={(event) => setChoice({ provider: chosenProvider.id, model: event.target.value })} className={`${CONTROL} mt-1`}>
              {textModels(chosenProvider).map((m) => (
                <option key={m.id} value={m.id}>
                  {m.label}
                  {m.note ? ` (${m.note})` : ''}
                </option>
              ))}
            </select>
          </div>
        </div>
      )}

      <div className="mt-3 flex flex-wrap items-center gap-3">
        <Button onClick={submit} disabled={!chosenProvider || text.trim() === '' || drafting.isPending} aria-busy={drafting.isPending || undefined}>
          {drafting.isPending && <span aria-hidden="true" className="size-4 animate-spin rounded-full border-2 border-white/40 border-t-white motion-reduce:animate-none" />}
          {drafting.isPending ? 'Drafting…' : 'Draft'}
        </Button>
        <p role="status" className="text-sm text-slate-700">
          {drafting.isPending
            ? `${chosenProvider ? CHAT_PROVIDER_INFO[chosenProvider.id].label : 'The assistant'} is drafting the condition…`
            : drafting.isSuccess
              ? `Drafted: ${conditionText(drafting.data.when)}. Review it before saving.`
              : ''}
        </p>
      </div>
      {problem && (
        <p id={`${id}-problem`} role="alert" className={`mt-2 text-sm font-medium ${notUnderstood ? 'text-amber-800' : 'text-red-700'}`}>
          {problem}
        </p>
      )}
    </div>
  );
}
