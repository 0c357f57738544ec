import { Plus, Trash2 } from 'lucide-react';
import { useId, useMemo, type ReactNode } from 'react';
import {
  clauseCount,
  CLAUSES_MAX,
  CONDITIONS_MAX,
  conditionText,
  JOIN_LABELS,
  JOINS,
  type TClause,
  type TCondition,
  type TConditionGroup,
  type TJoin,
  type TSubGroup,
} from '../../../../contracts/conditions.ts';
import type { TCandleTimeframe } from '../../../../contracts/market.ts';
import { Button } from '../../../components/ui/button.tsx';
import { errorsUnder, type TFieldErrors } from '../lib/field-errors.ts';
import { clausesIn, conditionProblems, newClause, newCondition, newConditionId } from '../lib/condition-drafts.ts';
import { ConditionClause } from './condition-clause.tsx';
import { TriggerFields } from './condition-trigger-fields.tsx';
import { FieldErrorList } from './field-error-list.tsx';
import { CONTROL } from './form-controls.tsx';

export const CONDITIONS_PATH = 'conditions';
/** Whether a refused field is one the conditions builder shows. */
export const isConditionPath = (path: string) => path === CONDITIONS_PATH || path.startsWith(`${CONDITIONS_PATH}.`);

const SELECT =
  'rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 aria-invalid:border-red-700';

type Props = {
  value: TCondition[];
  onChange(next: TCondition[]): void;
  /** The server's messages by path; the builder adds the contract's own as the fields change. */
  errors: TFieldErrors;
  agentTimeframe: TCandleTimeframe;
  /** The zone an expiry is taken and shown in: the owner's. */
  timeZone: string;
  /** Another way to add a condition ("Describe it", issue 30 item 5): it hands a drafted condition
   * to `add`, which puts it in the builder for review (nothing is saved until the owner saves). */
  describe?: (add: (condition: TCondition) => void) => ReactNode;
};

/**
 * "Conditions": the owner's own (issue 30, docs/decisions/0071), the same builder in the wizard
 * and in the details. Each condition: an optional name, all of / any of its clauses (a group
 * inside, once), its plain words, and its trigger. The contract's schema runs on every change, so
 * a message follows the value; a server's message shows until its field changes.
 */
export function ConditionsEditor({ value, onChange, errors, agentTimeframe, timeZone, describe }: Props) {
  const id = useId();
  const local = useMemo(() => conditionProblems(value, agentTimeframe), [value, agentTimeframe]);
  // The server's word first (it knows the agent's other rules); the contract's where it has none.
  const shown = useMemo(() => ({ ...local, ...errors }), [local, errors]);
  const full = value.length >= CONDITIONS_MAX;
  const update = (index: number, next: TCondition) => onChange(value.map((c, i) => (i === index ? next : c)));
  // A draft keeps its id unless the builder already holds it (an id keeps a trigger state).
  const addDrafted = (condition: TCondition) => {
    if (value.length >= CONDITIONS_MAX) return;
    onChange([...value, value.some((c) => c.id === condition.id) ? { ...condition, id: newConditionId() } : condition]);
  };
  return (
    <section aria-labelledby={`${id}-title`} className="space-y-3">
      <div>
        <h3 id={`${id}-title`} className="text-sm font-semibold text-slate-900">
          Conditions
        </h3>
        <p className="mt-1 text-sm text-slate-600">
          {`Conditions of your own: any price or indicator against a number or another indicator, on this agent's timeframe or a longer one. A met condition notifies as an alert does. Up to ${CONDITIONS_MAX} conditions of up to ${CLAUSES_MAX} clauses each.`}
        </p>
      </div>
      {value.length === 0 && <p className="text-sm text-slate-600">No conditions</p>}
      <ol className="space-y-4">
        {value.map((condition, index) => (
          <li key={condition.id}>
            <ConditionEditor
              condition={condition}
              number={index + 1}
              path={`${CONDITIONS_PATH}.${index}`}
              errors={shown}
              agentTimeframe={agentTimeframe}
              timeZone={timeZone}
              onChange={(next) => update(index, next)}
              onRemove={() => onChange(value.filter((_, i) => i !== index))}
            />
          </li>
        ))}
      </ol>
      <FieldErrorList label="Condition problems" errors={errorsUnder(shown, CONDITIONS_PATH).filter(([path]) => path === CONDITIONS_PATH)} />
      <div className="flex flex-wrap items-center gap-3">
        <Button variant="outline" size="sm" disabled={full} onClick={() => onChange([...value, newCondition()])}>
          <Plus aria-hidden="true" /> Add condition
        </Button>
        {full && <p className="text-sm text-slate-600">{`An agent may have at most ${CONDITIONS_MAX} conditions.`}</p>}
      </div>
      {describe && !full && describe(addDrafted)}
    </section>
  );
}

type ConditionProps = {
  condition: TCondition;
  number: number;
  path: string;
  errors: TFieldErrors;
  agentTimeframe: TCandleTimeframe;
  timeZone: string;
  onChange(next: TCondition): void;
  onRemove(): void;
};

function ConditionEditor({ condition, number, path, errors, agentTimeframe, timeZone, onChange, onRemove }: ConditionProps) {
  const id = useId();
  const name = `Condition ${number}`;
  const when = condition.when;
  const whenPath = `${path}.when`;
  const full = clausesIn(condition) >= CLAUSES_MAX;
  const setWhen = (next: TConditionGroup) => onChange({ ...condition, when: next });
  const setItems = (clauses: TConditionGroup['clauses']) => setWhen({ ...when, clauses });
  const nameError = errors[`${path}.name`];
  // Messages about the condition or its group as a whole (too many clauses, none at all).
  const whole = Object.entries(errors).filter(([at]) => at === path || at === whenPath || at === `${whenPath}.clauses` || at === `${path}.id`);
  const only = clausesIn(condition) === 1;

  // Clauses are numbered through the groups, as the plain words read them; groups on their own.
  const firstClause = (i: number) => clauseCount({ clauses: when.clauses.slice(0, i) }) + 1;
  const groupNumber = (i: number) => when.clauses.slice(0, i + 1).filter((item) => item.kind === 'group').length;
  const items = when.clauses.map((item, i) => {
    const itemPath = `${whenPath}.clauses.${i}`;
    if (item.kind === 'clause') {
      return (
        <li key={i}>
          <ConditionClause
            clause={item}
            number={firstClause(i)}
            path={itemPath}
            agentTimeframe={agentTimeframe}
            errors={errors}
            onChange={(next) => setItems(when.clauses.map((c, k) => (k === i ? next : c)))}
            onRemove={only ? undefined : () => setItems(when.clauses.filter((_, k) => k !== i))}
          />
        </li>
      );
    }
    return (
      <li key={i}>
        <GroupEditor
          group={item}
          number={groupNumber(i)}
          firstClause={firstClause(i)}
          path={itemPath}
          conditionName={name}
          canAdd={!full}
          onlyClause={only}
          agentTimeframe={agentTimeframe}
          errors={errors}
          onChange={(next) => setItems(next === null ? when.clauses.filter((_, k) => k !== i) : when.clauses.map((c, k) => (k === i ? next : c)))}
        />
      </li>
    );
  });

  return (
    <div role="group" aria-labelledby={`${id}-title`} className="rounded-lg border border-slate-300 bg-slate-50 p-3">
      <div className="flex items-center justify-between gap-2">
        <h4 id={`${id}-title`} className="text-sm font-semibold text-slate-900">
          {name}
        </h4>
        <Button variant="ghost" size="sm" className="text-red-700" aria-label={`Remove condition ${number}`} onClick={onRemove}>
          <Trash2 aria-hidden="true" /> Remove
        </Button>
      </div>
      <label className="mt-2 block text-sm text-slate-700">
        Name (optional)
        <input
          type="text"
          aria-label={`${name}: name (optional)`}
          aria-invalid={nameError ? true : undefined}
          aria-describedby={nameError ? `${id}-name-error` : undefined}
          placeholder="Its plain words stand in"
          value={condition.name ?? ''}
          onChange={(event) => {
            const { name: _old, ...rest } = condition;
            onChange(event.target.value === '' ? rest : { ...rest, name: event.target.value });
          }}
          className={`${CONTROL} mt-1`}
        />
      </label>
      {nameError && (
        <p id={`${id}-name-error`} className="mt-1 text-sm font-medium text-red-700">
          {nameError}
        </p>
      )}
      <div className="mt-3 flex flex-wrap items-center gap-2 text-sm text-slate-700">
        <span>Notify when</span>
        <JoinSelect label={`${name}: join`} value={when.join} onChange={(join) => setWhen({ ...when, join })} />
        <span>these are true:</span>
      </div>
      <ol className="mt-2 space-y-2">{items}</ol>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <Button variant="outline" size="sm" disabled={full} aria-label={`${name}: add clause`} onClick={() => setItems([...when.clauses, newClause()])}>
          <Plus aria-hidden="true" /> Add clause
        </Button>
        <Button
          variant="outline"
          size="sm"
          disabled={full}
          aria-label={`${name}: add group`}
          onClick={() => setItems([...when.clauses, { kind: 'group', join: when.join === 'all' ? 'any' : 'all', clauses: [newClause()] }])}
        >
          <Plus aria-hidden="true" /> Add group
        </Button>
        {full && <p className="text-sm text-slate-600">{`A condition may have at most ${CLAUSES_MAX} clauses.`}</p>}
      </div>
      {whole.length > 0 && <FieldErrorList label={`${name} problems`} errors={whole} />}
      <p className="mt-3 text-sm text-slate-900">
        <span className="font-medium">In plain words: </span>
        <span>{conditionText(when)}</span>
      </p>
      <TriggerFields trigger={condition.trigger} name={name} path={`${path}.trigger`} errors={errors} timeZone={timeZone} onChange={(trigger) => onChange({ ...condition, trigger })} />
    </div>
  );
}

function JoinSelect({ label, value, onChange }: { label: string; value: TJoin; onChange(next: TJoin): void }) {
  return (
    <select aria-label={label} value={value} onChange={(event) => onChange(event.target.value as TJoin)} className={SELECT}>
      {JOINS.map((join) => (
        <option key={join} value={join}>
          {JOIN_LABELS[join]}
        </option>
      ))}
    </select>
  );
}

/** A group inside the top group: its own join and clauses; its last clause removed removes it. */
function GroupEditor({
  group,
  number,
  firstClause,
  path,
  conditionName,
  canAdd,
  onlyClause,
  agentTimeframe,
  errors,
  onChange,
}: {
  group: TSubGroup;
  number: number;
  firstClause: number;
  path: string;
  conditionName: string;
  canAdd: boolean;
  onlyClause: boolean;
  agentTimeframe: TCandleTimeframe;
  errors: TFieldErrors;
  onChange(next: TSubGroup | null): void;
}) {
  const name = `Group ${number}`;
  const setClauses = (clauses: TClause[]) => onChange(clauses.length === 0 ? null : { ...group, clauses });
  const whole = Object.entries(errors).filter(([at]) => at === path || at === `${path}.clauses` || at === `${path}.join`);
  return (
    <div role="group" aria-label={`${conditionName}, ${name.toLowerCase()}`} className="rounded-md border border-dashed border-slate-400 p-2">
      <div className="flex flex-wrap items-center gap-2 text-sm text-slate-700">
        <span>{name}:</span>
        <JoinSelect label={`${name}: join`} value={group.join} onChange={(join) => onChange({ ...group, join })} />
        <span>these:</span>
        {!onlyClause && (
          <Button variant="ghost" size="icon" className="ml-auto" aria-label={`Remove group ${number}`} onClick={() => onChange(null)}>
            <Trash2 aria-hidden="true" />
          </Button>
        )}
      </div>
      <ol className="mt-2 space-y-2">
        {group.clauses.map((clause, j) => (
          <li key={j}>
            <ConditionClause
              clause={clause}
              number={firstClause + j}
              path={`${path}.clauses.${j}`}
              agentTimeframe={agentTimeframe}
              errors={errors}
              onChange={(next) => setClauses(group.clauses.map((c, k) => (k === j ? next : c)))}
              onRemove={onlyClause ? undefined : () => setClauses(group.clauses.filter((_, k) => k !== j))}
            />
          </li>
        ))}
      </ol>
      {whole.length > 0 && <FieldErrorList label={`${name} problems`} errors={whole} />}
      <Button variant="outline" size="sm" className="mt-2" disabled={!canAdd} aria-label={`Add clause to group ${number}`} onClick={() => setClauses([...group.clauses, newClause()])}>
        <Plus aria-hidden="true" /> Add clause
      </Button>
    </div>
  );
}
