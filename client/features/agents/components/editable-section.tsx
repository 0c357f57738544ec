import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Pencil } from 'lucide-react';
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { TAgent, TAgentConfig } from '../../../../contracts/agents.ts';
import { Button } from '../../../components/ui/button.tsx';
import { errorMessage } from '../../../lib/api-client.ts';
import { notify } from '../../../lib/notify.ts';
import { agentQueryKey, editAgent, invalidateAgents, type TAgentEdit } from '../api/agents-api.ts';
import { clearChanged, fieldErrors, NO_FIELD_ERRORS, type TFieldErrors } from '../lib/field-errors.ts';
import { FIX_MARKED_FIELDS } from './config-fields.tsx';
import { FieldErrorList, FIRST_INVALID } from './field-error-list.tsx';

export const SECTION = 'rounded-lg border border-slate-200 p-4';

/** An open edit with unsaved changes: what its Save would send, from the agent as it stands. */
export type TOpenEdit = (agent: TAgent) => TAgentEdit;
/** A section's open editor: its draft (to reopen it as it was), and its edit when it changed anything. */
type TOpenDraft = { draft: unknown; edit: TOpenEdit | null };

/**
 * The open editors of one details dialog, by section title, lifted out of the sections: a
 * section left for another tab finds its draft again on return, the dialog asks before closing
 * while any holds a change, and a test on history applies those changes to the saved
 * configuration. A small store rather than state, so a keystroke in an editor re-renders only
 * what reads it.
 */
export function createOpenEdits() {
  let drafts: Readonly<Record<string, TOpenDraft>> = {};
  // Each clear (the dialog closing) starts a new session: a section of the closing body that
  // renders once more on its way out cannot put its draft back for the next opening.
  let session = 0;
  let edits: Readonly<Record<string, TOpenEdit>> = {};
  const listeners = new Set<() => void>();
  const publish = (next: Readonly<Record<string, TOpenDraft>>) => {
    drafts = next;
    const changed = Object.entries(next).flatMap(([section, open]) => (open.edit ? [[section, open.edit] as const] : []));
    // A snapshot is replaced only when the edits change, as useSyncExternalStore requires.
    if (changed.length !== Object.keys(edits).length || changed.some(([section, edit]) => edits[section] !== edit)) {
      edits = Object.fromEntries(changed);
      for (const listener of listeners) listener();
    }
  };
  return {
    /** The draft a section left open, if any. */
    draft: (section: string): unknown => drafts[section]?.draft,
    /** The session a section belongs to: the one current when it mounted. */
    session: () => session,
    set(section: string, open: TOpenDraft | null, from: number) {
      if (from !== session) return;
      const { [section]: _replaced, ...rest } = drafts;
      publish(open === null ? rest : { ...rest, [section]: open });
    },
    clear() {
      session++;
      publish({});
    },
    /** The edits that change something, by section. */
    snapshot: () => edits,
    subscribe(listener: () => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
export type TOpenEdits = ReturnType<typeof createOpenEdits>;

/** Where sections keep their open editors. Without a provider an editor lives and dies with its
 * section, nobody asks before closing, and nothing is applied. */
export const OpenEdits = createContext<TOpenEdits | null>(null);

/** The agent's saved configuration with every open edit applied (the name's has none). */
export function withOpenEdits(agent: TAgent, edits: Readonly<Record<string, TOpenEdit>>): TAgentConfig {
  return Object.values(edits).reduce((config, edit) => edit({ ...agent, config }).config ?? config, agent.config);
}

type Props<D> = {
  title: string;
  agent: TAgent;
  /** The draft an edit starts from: the agent's current settings. */
  start(agent: TAgent): D;
  /** What a Save sends: the name and/or the whole configuration (the server checks it all). */
  toEdit(draft: D, agent: TAgent): TAgentEdit;
  /** The part of the answer's paths this section edits ('schedule', 'name'). */
  paths: string;
  canSave?(draft: D): boolean;
  view: ReactNode;
  editor(draft: D, onChange: (next: D) => void, errors: TFieldErrors): ReactNode;
};

/**
 * One part of an agent's settings in the details dialog: read-only until Edit, then the wizard's
 * own fields with Save and Cancel. A refusal is shown on the fields it names, focus moves to the
 * first, and a field the user changes drops its message. Saving keeps the run history; the
 * server moves the next run to the new schedule's first slot.
 */
export function EditableSection<D>({ title, agent, start, toEdit, paths, canSave, view, editor }: Props<D>) {
  const queryClient = useQueryClient();
  const edits = useContext(OpenEdits);
  // Reopened as it was left: the store holds this section's own draft, of this section's type.
  const [draft, setDraft] = useState<D | null>(() => (edits?.draft(title) as D | undefined) ?? null);
  const [session] = useState(() => edits?.session() ?? 0);
  const [errors, setErrors] = useState<TFieldErrors>(NO_FIELD_ERRORS);
  const [focusRequest, setFocusRequest] = useState(0);
  const body = useRef<HTMLElement>(null);
  const close = () => {
    setDraft(null);
    setErrors(NO_FIELD_ERRORS);
  };
  const save = useMutation({
    mutationFn: (edit: TAgentEdit) => editAgent(agent.id, edit),
    onSuccess: (updated) => {
      queryClient.setQueryData(agentQueryKey(agent.id), updated);
      notify.success('Agent updated successfully', 'The changes have been saved.');
      close();
      void invalidateAgents(queryClient);
    },
    onError: (err) => {
      const refused = fieldErrors(err);
      if (refused) {
        setErrors(refused);
        setFocusRequest((n) => n + 1);
      }
      notify.error('Failed to update agent', refused ? FIX_MARKED_FIELDS : errorMessage(err, 'There was a problem updating the agent. Please try again.', { serverWords: false }));
    },
  });
  useEffect(() => {
    if (focusRequest > 0) body.current?.querySelector<HTMLElement>(FIRST_INVALID)?.focus();
  }, [focusRequest]);
  const unsaved = draft !== null && JSON.stringify(draft) !== JSON.stringify(start(agent));
  useEffect(() => {
    edits?.set(title, draft === null ? null : { draft, edit: unsaved ? (a) => toEdit(draft, a) : null }, session);
  }, [edits, session, title, unsaved, draft, toEdit]);

  const change = (next: D) => {
    // A whole-value draft (the name) drops its one message; a group drops its changed fields'.
    setErrors((e) =>
      isGroup(draft) && isGroup(next) ? clearChanged(e, paths, draft, next) : Object.fromEntries(Object.entries(e).filter(([path]) => path !== paths)),
    );
    setDraft(next);
  };
  // A stored setting another section shows may be what the server refused: say so here too.
  const elsewhere = Object.entries(errors).filter(([path]) => path !== paths && !path.startsWith(`${paths}.`));
  const lower = title.toLowerCase();

  return (
    <section ref={body} className={SECTION} aria-label={title}>
      <div className="flex items-center justify-between">
        <h3 className="text-sm font-semibold text-slate-900">{title}</h3>
        {draft === null && (
          <Button variant="ghost" size="sm" aria-label={`Edit ${lower}`} onClick={() => setDraft(start(agent))}>
            <Pencil aria-hidden="true" /> Edit
          </Button>
        )}
      </div>
      {draft === null ? (
        view
      ) : (
        <div className="mt-3">
          {editor(draft, change, errors)}
          <FieldErrorList label="Other problems" errors={elsewhere} />
          <div className="mt-4 flex justify-end gap-2">
            <Button variant="outline" onClick={close}>
              Cancel
            </Button>
            <Button disabled={save.isPending || (canSave ? !canSave(draft) : false)} onClick={() => save.mutate(toEdit(draft, agent))}>
              {save.isPending ? 'Saving...' : 'Save'}
            </Button>
          </div>
        </div>
      )}
    </section>
  );
}

const isGroup = (value: unknown): value is object => typeof value === 'object' && value !== null;
