import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import type { TAlertBriefChoice } from '../../../../contracts/agents.ts';
import { CHAT_PROVIDER_INFO, type TChatProvider, type TChatProviderStatus, type TChatProvidersResponse } from '../../../../contracts/chat.ts';
import { briefAttribution } from '../../../../contracts/notifications.ts';
import type { TFieldErrors } from '../lib/field-errors.ts';
import { defaultTextModel, textModels } from '../lib/assistant-models.ts';
import { CONTROL } from './form-controls.tsx';

export const BRIEF_PATH = 'notifications.brief';

/** The first choice when Explain alerts is turned on: an assistant with its key, else any allowed. */
function firstChoice(providers: readonly TChatProviderStatus[]): TAlertBriefChoice | undefined {
  const usable = providers.filter((p) => p.allowed && textModels(p).length > 0);
  const provider = usable.find((p) => p.configured) ?? usable[0];
  return provider && { provider: provider.id, model: defaultTextModel(provider)! };
}

/** An agent's settings summary of it: 'Off', or who writes the briefs. */
export const explainAlertsText = (brief: TAlertBriefChoice | undefined) => (brief ? `On: ${briefAttribution(brief).replace(/^Brief by /, '')}` : 'Off');

/**
 * "Explain alerts" (docs/decisions/0044): whether a chat assistant writes a plain-language brief
 * of each alert, and which one and which model. Only the assistants the user may use are offered;
 * one without its API key on this server is offered too, marked, so the owner knows beforehand
 * why its briefs would fail. The server checks the choice again on save (its message shows here).
 */
export function ExplainAlertsField({ value, onChange, errors }: { value: TAlertBriefChoice | undefined; onChange(next: TAlertBriefChoice | undefined): void; errors: TFieldErrors }) {
  const id = useId();
  const providers = useQuery<TChatProvidersResponse>({ queryKey: ['/api/chat/providers'] });
  const list = providers.data?.providers ?? [];
  const offered = list.filter((p) => p.allowed && textModels(p).length > 0);
  const chosen = value ? list.find((p) => p.id === value.provider) : undefined;
  const providerError = errors[`${BRIEF_PATH}.provider`] ?? errors[BRIEF_PATH];
  const modelError = errors[`${BRIEF_PATH}.model`];
  const describedBy = (error: string | undefined, own: string) => [error ? `${own}-error` : null, `${id}-hint`].filter(Boolean).join(' ');

  return (
    <div role="group" aria-label="Explain alerts">
      <label className="flex items-center gap-2 text-sm font-medium text-slate-900">
        <input
          type="checkbox"
          className="size-4 accent-brand-600"
          checked={value !== undefined}
          disabled={value === undefined && offered.length === 0}
          aria-describedby={`${id}-hint`}
          onChange={(event) => onChange(event.target.checked ? firstChoice(list) : undefined)}
        />
        Explain alerts
      </label>
      <p id={`${id}-hint`} className="mt-1 text-sm text-slate-600">
        A chat assistant writes two or three plain sentences under each alert: what moved, how unusual that is against the recent average, and which signals agreed, from the
        run&apos;s recorded numbers only. Each brief counts against your daily AI budget, like a chat message. The email and channels wait a few seconds for it; a brief that
        comes later follows them.
      </p>
      {providers.isPending ? (
        <p className="mt-1 text-sm text-slate-600">Loading the assistants…</p>
      ) : providers.isError ? (
        <p className="mt-1 text-sm text-red-700">The assistants could not be loaded.</p>
      ) : offered.length === 0 && value === undefined ? (
        <p className="mt-1 text-sm text-slate-600">No assistant is open to you on this server.</p>
      ) : null}
      {value && (
        <div className="mt-2 grid gap-3 sm:grid-cols-2">
          <div>
            <label htmlFor={`${id}-provider`} className="block text-sm font-medium text-slate-900">
              Assistant
            </label>
            <select
              id={`${id}-provider`}
              value={value.provider}
              aria-invalid={providerError ? true : undefined}
              aria-describedby={describedBy(providerError, `${id}-provider`)}
              onChange={(event) => {
                const next = list.find((p) => p.id === event.target.value);
                if (next) onChange({ provider: next.id, model: defaultTextModel(next) ?? '' });
              }}
              className={`${CONTROL} mt-1`}
            >
              {offered.map((p) => (
                <option key={p.id} value={p.id}>
                  {CHAT_PROVIDER_INFO[p.id].label}
                  {p.configured ? '' : ' (not configured)'}
                </option>
              ))}
              {!offered.some((p) => p.id === value.provider) && <option value={value.provider}>{labelOf(value.provider)} (not available to you)</option>}
            </select>
            {providerError && (
              <p id={`${id}-provider-error`} className="mt-1 text-sm font-medium text-red-700">
                {providerError}
              </p>
            )}
            {chosen && !chosen.configured && (
              <p className="mt-1 text-sm text-amber-800">
                {CHAT_PROVIDER_INFO[chosen.id].label} has no API key on this server: its briefs would fail with &lsquo;API key not configured&rsquo;.
              </p>
            )}
          </div>
          <div>
            <label htmlFor={`${id}-model`} className="block text-sm font-medium text-slate-900">
              Model
            </label>
            <select
              id={`${id}-model`}
              value={value.model}
              aria-invalid={modelError ? true : undefined}
              aria-describedby={describedBy(modelError, `${id}-model`)}
              onChange={(event) => onChange({ ...value, model: event.target.value })}
              className={`${CONTROL} mt-1`}
            >
              {(chosen ? textModels(chosen) : []).map((m) => (
                <option key={m.id} value={m.id}>
                  {m.label}
                  {m.note ? ` (${m.note})` : ''}
                </option>
              ))}
              {!(chosen && textModels(chosen).some((m) => m.id === value.model)) && <option value={value.model}>{value.model || 'Choose a model'}</option>}
            </select>
            {modelError && (
              <p id={`${id}-model-error`} className="mt-1 text-sm font-medium text-red-700">
                {modelError}
              </p>
            )}
          </div>
        </div>
      )}
    </div>
  );
}

const labelOf = (provider: string) => (provider in CHAT_PROVIDER_INFO ? CHAT_PROVIDER_INFO[provider as TChatProvider].label : provider);
