import { DATE_TIME } from '../../../../contracts/time-format.ts';
import { Button } from '../../../components/ui/button.tsx';
import { useTimes } from '../../../lib/times.ts';

/** Offers back the unsaved work an earlier visit to the form left in this browser. */
export function UnsavedChangesPrompt({ savedAt, onRestore, onDiscard }: { savedAt: string; onRestore(): void; onDiscard(): void }) {
  const times = useTimes();
  return (
    <div role="status" className="flex flex-col gap-3 rounded-lg border border-amber-300 bg-amber-50 p-4 sm:flex-row sm:items-center sm:justify-between">
      <p className="text-sm font-medium text-amber-900">Restore unsaved changes from {times.format(savedAt, DATE_TIME, 'earlier')}?</p>
      <div className="flex gap-2">
        <Button size="sm" onClick={onRestore}>
          Restore
        </Button>
        <Button size="sm" variant="outline" onClick={onDiscard}>
          Discard
        </Button>
      </div>
    </div>
  );
}
