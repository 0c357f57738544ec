import { AlarmClockOff, ChevronDown } from 'lucide-react';
import { DropdownMenu } from 'radix-ui';
import { useId, useRef, useState, type FormEvent } from 'react';
import { SNOOZE_PRESET_LABELS, SNOOZE_PRESETS, type TSnoozeRequest } from '../../../../contracts/conditions.ts';
import { DATE_TIME, instantOfWallTime, wallTimeOf } from '../../../../contracts/time-format.ts';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { notify } from '../../../lib/notify.ts';
import { useTimes } from '../../../lib/times.ts';
import { Button, buttonClasses } from '../../../components/ui/button.tsx';
import { useSnoozeCondition } from '../api/notifications-api.ts';

const ITEM =
  'flex cursor-default items-center gap-2 rounded-md px-3 py-2 text-sm text-slate-800 outline-none select-none data-[disabled]:pointer-events-none data-[disabled]:opacity-50 data-[highlighted]:bg-slate-100';
const HOUR_MS = 3_600_000;

type Props = { agentId: string; conditionId: string; title: string };

/**
 * Snooze from a notification (issue 30, docs/decisions/0073): the condition stays quiet on all its
 * markets for 1 hour, 4 hours, until tomorrow 09:00 in the owner's zone, or until a chosen time
 * (taken in the zone every time is shown in); a toast says until when, the zone named
 * (docs/decisions/0066). Its firings meanwhile are still recorded in Run History.
 */
export function ConditionSnooze({ agentId, conditionId, title }: Props) {
  const times = useTimes();
  const snooze = useSnoozeCondition();
  const [choosing, setChoosing] = useState(false);
  const [until, setUntil] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const field = useRef<HTMLInputElement>(null);
  /** 'Choose a time…' hands the focus to the field, not back to the menu's button. */
  const focusField = useRef(false);
  const fieldId = useId();
  const problemId = useId();

  function send(request: TSnoozeRequest, onRefused?: (message: string) => void) {
    snooze.mutate(
      { agentId, conditionId, request },
      {
        onSuccess: (state) => {
          setChoosing(false);
          setProblem(null);
          notify.success(`Snoozed until ${times.format(state.snoozedUntil, DATE_TIME, 'further notice')}`, title);
        },
        onError: (err) => {
          const detail = err instanceof ApiError && err.status === 400 ? fieldProblem(err.body) : null;
          if (detail && onRefused) onRefused(detail);
          else notify.error('Could not snooze the condition', errorMessage(err));
        },
      },
    );
  }

  function chooseTime() {
    setUntil(wallTimeOf(Date.now() + HOUR_MS, times.zone));
    setProblem(null);
    setChoosing(true);
    focusField.current = true;
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const at = instantOfWallTime(until, times.zone);
    if (!at) {
      setProblem('Choose a date and a time');
      field.current?.focus();
      return;
    }
    send({ until: at.toISOString() }, (message) => {
      setProblem(message);
      field.current?.focus();
    });
  }

  return (
    <div className="mt-1">
      <DropdownMenu.Root modal={false}>
        <DropdownMenu.Trigger aria-label={`Snooze: ${title}`} disabled={snooze.isPending} className={buttonClasses({ variant: 'ghost', size: 'sm', className: '-ml-3' })}>
          <AlarmClockOff aria-hidden="true" className="size-4" />
          Snooze
          <ChevronDown aria-hidden="true" className="size-3.5" />
        </DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content
            align="start"
            sideOffset={4}
            className="z-[60] min-w-52 rounded-lg border border-slate-200 bg-white p-1 shadow-lg"
            onCloseAutoFocus={(event) => {
              if (!focusField.current) return;
              focusField.current = false;
              event.preventDefault();
              field.current?.focus();
            }}
          >
            {SNOOZE_PRESETS.map((preset) => (
              <DropdownMenu.Item key={preset} className={ITEM} onSelect={() => send({ preset })}>
                {SNOOZE_PRESET_LABELS[preset]}
              </DropdownMenu.Item>
            ))}
            <DropdownMenu.Item className={ITEM} onSelect={chooseTime}>
              Choose a time…
            </DropdownMenu.Item>
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
      {choosing && (
        <form onSubmit={submit} aria-label={`Snooze until a time: ${title}`} className="mt-1 flex flex-wrap items-end gap-2">
          <div className="flex flex-col gap-0.5">
            <label htmlFor={fieldId} className="text-xs font-medium text-slate-700">
              Snooze until ({times.zone})
            </label>
            <input
              ref={field}
              id={fieldId}
              type="datetime-local"
              value={until}
              onChange={(event) => setUntil(event.target.value)}
              aria-invalid={problem !== null}
              aria-describedby={problem ? problemId : undefined}
              className="rounded-md border border-slate-300 px-2 py-1 text-sm text-slate-900"
            />
          </div>
          <Button type="submit" size="sm" disabled={snooze.isPending}>
            Snooze
          </Button>
          <Button variant="ghost" size="sm" onClick={() => setChoosing(false)}>
            Cancel
          </Button>
          {problem && (
            <p id={problemId} role="alert" className="w-full text-xs text-red-700">
              {problem}
            </p>
          )}
        </form>
      )}
    </div>
  );
}

/** The server's word on the chosen time (a 400 on `until`), else null. */
function fieldProblem(body: unknown): string | null {
  const details = (body as { details?: Array<{ path?: string; message?: string }> } | null)?.details;
  return details?.find((d) => d.path === 'until')?.message ?? null;
}
