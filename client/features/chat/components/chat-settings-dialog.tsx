import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { MAX_PRESETS, type TPreset } from '../../../../contracts/chat-history.ts';
import { CHAT_LIMITS, type TChatModel, type TChatProviderInfo } from '../../../../contracts/chat.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Dialog, DialogClose } from '../../../components/ui/dialog.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { notify } from '../../../lib/notify.ts';
import { PRESETS_URL, createPreset, deletePreset, listPresets, updatePreset } from '../api/chat-api.ts';
import type { ChatSettings } from '../lib/chat-storage.ts';
import { FIELD, PromptField } from './prompt-field.tsx';

type Props = {
  open: boolean;
  onOpenChange(open: boolean): void;
  info: TChatProviderInfo;
  /** The model the next message goes to: whether it takes a temperature. */
  model: TChatModel | undefined;
  settings: ChatSettings;
  onSave(settings: ChatSettings): void;
};

const DEFAULT_TEMPERATURE = 0.7;

/**
 * A chat's own settings (docs/decisions/0047): its system prompt and temperature, and the
 * user's presets to apply, save, update or delete. The temperature's range is the assistant's
 * (Claude: 0 to 1); a model that takes none (o3, o4-mini, DeepSeek R1, image generation) is
 * said to, and is not sent one.
 */
export function ChatSettingsDialog({ open, onOpenChange, ...rest }: Props) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Chat settings" description="How this chat's assistant answers: its instructions and how varied its words are." size="lg">
      {open && <SettingsForm {...rest} onDone={() => onOpenChange(false)} />}
    </Dialog>
  );
}

function SettingsForm({ info, model, settings, onSave, onDone }: Omit<Props, 'open' | 'onOpenChange'> & { onDone(): void }) {
  const [systemPrompt, setSystemPrompt] = useState(settings.systemPrompt);
  const [temperature, setTemperature] = useState<number | null>(settings.temperature === null ? null : Math.min(settings.temperature, info.temperatureMax));
  const [presetName, setPresetName] = useState('');
  const ids = { prompt: useId(), temperature: useId(), preset: useId(), presetError: useId() };
  const queryClient = useQueryClient();
  const presets = useQuery({ queryKey: [PRESETS_URL], queryFn: ({ signal }) => listPresets(signal) });
  const refresh = () => void queryClient.invalidateQueries({ queryKey: [PRESETS_URL] });

  const current = { systemPrompt, temperature };
  const save = useMutation({
    mutationFn: () => createPreset({ name: presetName.trim(), ...current }),
    onSuccess: (preset) => {
      setPresetName('');
      refresh();
      notify.success('Preset saved', `${preset.name} is ready to apply to any chat.`);
    },
  });
  const overwrite = useMutation({
    mutationFn: (preset: TPreset) => updatePreset(preset.id, current),
    onSuccess: (preset) => {
      refresh();
      notify.success('Preset updated', `${preset.name} now holds these settings.`);
    },
    onError: (err) => notify.error('Could not update the preset', errorMessage(err)),
  });
  const remove = useMutation({
    mutationFn: (preset: TPreset) => deletePreset(preset.id),
    onSuccess: refresh,
    onError: (err) => notify.error('Could not delete the preset', errorMessage(err)),
  });

  const apply = (preset: TPreset) => {
    setSystemPrompt(preset.systemPrompt);
    setTemperature(preset.temperature === null ? null : Math.min(preset.temperature, info.temperatureMax));
  };
  const noTemperature = model?.temperature === false;
  const list = presets.data?.presets ?? [];

  return (
    <form
      className="mt-4 space-y-5"
      // The fields hold their own limits; a browser's step check (0.9 on a 0.1 step) must not block saving.
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onSave({ ...settings, systemPrompt: systemPrompt.trim(), temperature });
        onDone();
      }}
    >
      <PromptField
        id={ids.prompt}
        label="System prompt"
        value={systemPrompt}
        onChange={setSystemPrompt}
        placeholder="For example: You are a concise assistant. Answer in French."
        hint={`Sent with every message of this chat. ${systemPrompt.length.toLocaleString('en-US')} / ${CHAT_LIMITS.maxSystemPromptChars.toLocaleString('en-US')} characters.`}
      />

      <fieldset>
        <legend className="text-sm font-medium text-slate-800">Temperature</legend>
        <label className="mt-2 flex items-center gap-2 text-sm text-slate-700">
          <input type="checkbox" checked={temperature === null} onChange={(event) => setTemperature(event.target.checked ? null : Math.min(DEFAULT_TEMPERATURE, info.temperatureMax))} className="size-4" />
          The model’s default
        </label>
        {temperature !== null && (
          <div className="mt-2 flex items-center gap-3">
            <label htmlFor={ids.temperature} className="sr-only">
              Temperature, from 0 to {info.temperatureMax}
            </label>
            <input
              id={ids.temperature}
              type="range"
              min={0}
              max={info.temperatureMax}
              step={0.1}
              value={temperature}
              onChange={(event) => setTemperature(Number(event.target.value))}
              className="flex-1 accent-brand-600"
            />
            <output htmlFor={ids.temperature} className="w-8 text-right text-sm tabular-nums">
              {temperature.toFixed(1)}
            </output>
          </div>
        )}
        <p className="mt-1 text-xs text-slate-600">
          Lower is steadier, higher more varied ({info.label}: 0 to {info.temperatureMax}).
          {noTemperature && ` ${model?.label ?? 'This model'} takes no temperature: it is not sent to it.`}
        </p>
      </fieldset>

      <section aria-labelledby={`${ids.preset}-heading`} className="rounded-lg border border-slate-200 p-3">
        <h3 id={`${ids.preset}-heading`} className="text-sm font-medium text-slate-800">
          Presets
        </h3>
        {presets.isError ? (
          <p className="mt-2 text-sm text-red-700">Presets could not be loaded.</p>
        ) : list.length === 0 ? (
          <p className="mt-2 text-sm text-slate-600">{presets.isPending ? 'Loading presets...' : 'No presets yet. Save these settings as one below.'}</p>
        ) : (
          <ul className="mt-2 divide-y divide-slate-100">
            {list.map((preset) => (
              <li key={preset.id} className="flex flex-wrap items-center gap-2 py-2">
                <span className="mr-auto min-w-0 truncate text-sm text-slate-800">
                  {preset.name}
                  {preset.temperature !== null && <span className="text-slate-600"> · {preset.temperature}</span>}
                </span>
                <Button variant="secondary" size="sm" onClick={() => apply(preset)} aria-label={`Apply preset ${preset.name}`}>
                  Apply
                </Button>
                <Button variant="ghost" size="sm" onClick={() => overwrite.mutate(preset)} disabled={overwrite.isPending} aria-label={`Update preset ${preset.name} with these settings`}>
                  Update
                </Button>
                <Button variant="ghost" size="sm" onClick={() => remove.mutate(preset)} disabled={remove.isPending} aria-label={`Delete preset ${preset.name}`}>
                  Delete
                </Button>
              </li>
            ))}
          </ul>
        )}
        <div className="mt-2 flex items-end gap-2">
          <div className="flex-1">
            <label htmlFor={ids.preset} className="block text-xs text-slate-700">
              Save these settings as a preset
            </label>
            <input
              id={ids.preset}
              value={presetName}
              onChange={(event) => setPresetName(event.target.value)}
              maxLength={60}
              placeholder="Preset name"
              aria-invalid={save.isError || undefined}
              aria-describedby={save.isError ? ids.presetError : undefined}
              className={`${FIELD} mt-1`}
            />
          </div>
          <Button variant="outline" onClick={() => save.mutate()} disabled={presetName.trim() === '' || save.isPending || list.length >= MAX_PRESETS}>
            Save preset
          </Button>
        </div>
        {save.isError && (
          <p id={ids.presetError} role="alert" className="mt-1 text-sm text-red-700">
            {presetError(save.error)}
          </p>
        )}
      </section>

      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <DialogClose asChild>
          <Button variant="outline">Cancel</Button>
        </DialogClose>
        <Button type="submit">Save settings</Button>
      </div>
    </form>
  );
}

/** The server's rule for the name ('You already have a preset named ...'), else its message. */
function presetError(err: unknown): string {
  const body = (err as { body?: { details?: Array<{ message?: string }> } } | null)?.body;
  return body?.details?.[0]?.message ?? errorMessage(err);
}
