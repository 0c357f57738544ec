import { Switch } from 'radix-ui';
import { useId, type Ref } from 'react';
import { Controller, type Control, type FieldError } from 'react-hook-form';
import type { TArticleInput } from '../../../../contracts/articles.ts';
import { DATE_TIME, instantOfWallTime, wallTimeOf } from '../../../../contracts/time-format.ts';
import { Button } from '../../../components/ui/button.tsx';
import { useTimes } from '../../../lib/times.ts';

const CONTROL =
  'mt-1.5 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-slate-900 shadow-sm ' +
  'focus:border-brand-600 focus:outline-2 focus:outline-brand-600/30 aria-[invalid=true]:border-red-600 sm:w-64';

/**
 * The form's publishing choices (SPEC's "Publish Article" switch, and issue 34 item 2,
 * docs/decisions/0098): publish now, or a time to publish at, or neither (a draft). One at a
 * time: turning the switch on clears the time, and setting a time turns the switch off. The time
 * is typed on the wall clock of the zone every time is shown in, named beside the field, and
 * held in the form as the instant it means (ISO), which the shared schema checks.
 */
export function PublishingSection({ control, error }: { control: Control<TArticleInput>; error: FieldError | undefined }) {
  return (
    <Controller
      control={control}
      name="publishAt"
      render={({ field: time }) => (
        <Controller
          control={control}
          name="published"
          render={({ field: now }) => (
            <PublishingControls
              published={now.value ?? false}
              publishAt={time.value ?? null}
              onPublished={(checked) => {
                now.onChange(checked);
                if (checked) time.onChange(null);
              }}
              onPublishAt={(iso) => {
                time.onChange(iso);
                if (iso) now.onChange(false);
              }}
              switchRef={now.ref}
              timeRef={time.ref}
              onSwitchBlur={now.onBlur}
              onTimeBlur={time.onBlur}
              error={error}
            />
          )}
        />
      )}
    />
  );
}

type ControlsProps = {
  published: boolean;
  publishAt: string | null;
  onPublished(checked: boolean): void;
  onPublishAt(iso: string | null): void;
  switchRef: Ref<HTMLButtonElement>;
  timeRef: Ref<HTMLInputElement>;
  onSwitchBlur(): void;
  onTimeBlur(): void;
  error: FieldError | undefined;
};

function PublishingControls({ published, publishAt: at, onPublished, onPublishAt, switchRef, timeRef, onSwitchBlur, onTimeBlur, error }: ControlsProps) {
  const switchId = useId();
  const timeId = useId();
  const times = useTimes();
  const setTime = (wall: string) => {
    const instant = wall === '' ? null : instantOfWallTime(wall, times.zone);
    onPublishAt(instant ? instant.toISOString() : null);
  };

  return (
    <div className="space-y-4 rounded-lg border border-slate-200 p-4">
      <div className="flex items-start gap-3">
        <Switch.Root
          id={switchId}
          ref={switchRef}
          checked={published}
          onCheckedChange={onPublished}
          onBlur={onSwitchBlur}
          aria-describedby={`${switchId}-hint`}
          className="relative mt-0.5 inline-flex h-6 w-11 shrink-0 cursor-pointer items-center rounded-full bg-slate-300 transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 data-[state=checked]:bg-brand-600"
        >
          <Switch.Thumb className="block size-5 translate-x-0.5 rounded-full bg-white shadow transition-transform data-[state=checked]:translate-x-[22px] motion-reduce:transition-none" />
        </Switch.Root>
        <div>
          <label htmlFor={switchId} className="text-sm font-medium text-slate-900">
            Publish Article
          </label>
          <p id={`${switchId}-hint`} className="text-sm text-slate-600">
            Make this article visible on the website
          </p>
        </div>
      </div>
      <div className="border-t border-slate-200 pt-4">
        <label htmlFor={timeId} className="text-sm font-medium text-slate-900">
          Schedule for ({times.zone})
        </label>
        <p id={`${timeId}-hint`} className="text-sm text-slate-600">
          {at ? `Appears on the website on ${times.format(at, DATE_TIME, '')}.` : 'Leave empty to keep it a draft until you publish it.'}
        </p>
        <div className="flex flex-wrap items-end gap-2">
          <input
            id={timeId}
            ref={timeRef}
            type="datetime-local"
            value={at ? wallTimeOf(at, times.zone) : ''}
            onChange={(event) => setTime(event.target.value)}
            onBlur={onTimeBlur}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? `${timeId}-hint ${timeId}-error` : `${timeId}-hint`}
            className={CONTROL}
          />
          {at && (
            <Button size="sm" variant="outline" onClick={() => setTime('')}>
              Clear the time
            </Button>
          )}
        </div>
        {error && (
          <p id={`${timeId}-error`} className="mt-1.5 text-sm font-medium text-red-700">
            {error.message}
          </p>
        )}
      </div>
    </div>
  );
}
