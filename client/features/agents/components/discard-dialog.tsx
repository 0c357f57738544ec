import { Button } from '../../../components/ui/button.tsx';
import { Dialog } from '../../../components/ui/dialog.tsx';

/** 'Discard your changes?': asked before a form with changes closes. Escape, an outside click
 * or Keep editing return to the form; only Discard changes closes it. */
export function DiscardDialog({ open, what, onKeepEditing, onDiscard }: { open: boolean; what: string; onKeepEditing(): void; onDiscard(): void }) {
  return (
    <Dialog
      open={open}
      onOpenChange={(next) => !next && onKeepEditing()}
      title="Discard your changes?"
      description={what}
      footer={
        <>
          <Button variant="outline" onClick={onKeepEditing}>
            Keep editing
          </Button>
          <Button className="bg-red-700 hover:bg-red-800" onClick={onDiscard}>
            Discard changes
          </Button>
        </>
      }
    />
  );
}
