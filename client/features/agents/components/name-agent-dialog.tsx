import { useState, type FormEvent } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { Dialog } from '../../../components/ui/dialog.tsx';
import { notify } from '../../../lib/notify.ts';
import { AgentNameField } from './agent-name-field.tsx';

type Props = { open: boolean; onOpenChange(open: boolean): void; initialName: string; pending: boolean; onContinue(name: string): void };

/** 'Name Your New Agent': the first step of creating an agent. */
export function NameAgentDialog({ open, onOpenChange, initialName, pending, onContinue }: Props) {
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title="Name Your New Agent" description="Give your agent a name you will recognise in the console.">
      <NameForm key={initialName} initialName={initialName} pending={pending} onContinue={onContinue} onCancel={() => onOpenChange(false)} />
    </Dialog>
  );
}

function NameForm({ initialName, pending, onContinue, onCancel }: { initialName: string; pending: boolean; onContinue(name: string): void; onCancel(): void }) {
  const [name, setName] = useState(initialName);
  const blank = name.trim() === '';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (blank) {
      notify.error('Name required', 'Please provide a name for your agent');
      return;
    }
    if (!pending) onContinue(name.trim());
  };
  return (
    <form onSubmit={submit} className="mt-4" noValidate>
      <AgentNameField
        value={name}
        onChange={setName}
        // A disabled Continue would swallow Enter: submit ourselves so a blank name is explained.
        onKeyDown={(event) => {
          if (event.key === 'Enter') submit(event);
        }}
        hint="For example: Tech Stocks Scanner, BTC Volatility Watch, Crypto Market Monitor - BTC/ETH."
      />
      <div className="mt-6 flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={onCancel}>
          Cancel
        </Button>
        <Button type="submit" disabled={blank || pending}>
          Continue
        </Button>
      </div>
    </form>
  );
}
