import { Trash2 } from 'lucide-react';
import { useId } from 'react';
import { OPERATOR_FIELDS, OPERATOR_LABELS, OPERATORS, TIMEFRAME_LABELS, type TClause, type TOperand, type TOperator } from '../../../../contracts/conditions.ts';
import type { TCandleTimeframe } from '../../../../contracts/market.ts';
import { Button } from '../../../components/ui/button.tsx';
import { errorsUnder, type TFieldErrors } from '../lib/field-errors.ts';
import { longerTimeframes, NUMBER_CHOICE, OPERAND_CHOICES, OPERAND_PARAMETERS, operandFor, operandKey, withOperator } from '../lib/condition-drafts.ts';

const SELECT =
  'rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 aria-invalid:border-red-700';
const NUMBER = `${SELECT} w-20`;
const WORD = 'text-sm text-slate-600';

/** Marks a control by its path: invalid, and described by its message, when it has one. */
type Mark = (path: string) => { 'aria-invalid'?: true; 'aria-describedby'?: string };

type Props = {
  clause: TClause;
  /** Its number in the condition, groups included (its controls are named by it: 'Clause 2: operator'). */
  number: number;
  /** Its path in the configuration ('conditions.0.when.clauses.1'): where its messages are. */
  path: string;
  agentTimeframe: TCandleTimeframe;
  errors: TFieldErrors;
  onChange(next: TClause): void;
  /** Absent when it is the condition's only clause. */
  onRemove?: () => void;
};

/**
 * One clause as a sentence of selects and number fields: "[RSI] ([14]) on [1 hour] [crosses
 * below] [number] [30]". The operator decides which fields follow (OPERATOR_FIELDS); changing it
 * keeps what still applies. Each refused field is marked and described by its message, which
 * shows under the sentence.
 */
export function ConditionClause({ clause, number, path, agentTimeframe, errors, onChange, onRemove }: Props) {
  const id = useId();
  const name = `Clause ${number}`;
  const messages = errorsUnder(errors, path);
  const errorId = (at: string) => `${id}${at.slice(path.length).replaceAll('.', '-')}`;
  const mark: Mark = (at) => (errors[at] ? { 'aria-invalid': true, 'aria-describedby': errorId(at) } : {});
  const fields = OPERATOR_FIELDS[clause.operator];
  const side = (field: 'left' | 'right' | 'lower' | 'upper', operand: TOperand | undefined) =>
    operand && (
      <OperandFields
        name={`${name}: ${field}`}
        path={`${path}.${field}`}
        operand={operand}
        allowNumber={field !== 'left'}
        agentTimeframe={agentTimeframe}
        mark={mark}
        onChange={(next) => onChange({ ...clause, [field]: next })}
      />
    );
  const amount = (field: 'percent' | 'candles', label: string) => (
    <input
      type="number"
      aria-label={`${name}: ${label}`}
      {...mark(`${path}.${field}`)}
      step={field === 'percent' ? 'any' : 1}
      value={Number.isFinite(clause[field]) ? clause[field] : ''}
      onChange={(event) => onChange({ ...clause, [field]: event.target.value === '' ? Number.NaN : Number(event.target.value) })}
      className={NUMBER}
    />
  );
  return (
    <div role="group" aria-label={name} className="rounded-md border border-slate-200 bg-white p-2">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-2">
        {side('left', clause.left)}
        <select
          aria-label={`${name}: operator`}
          {...mark(`${path}.operator`)}
          value={clause.operator}
          onChange={(event) => onChange(withOperator(clause, event.target.value as TOperator))}
          className={SELECT}
        >
          {OPERATORS.map((operator) => (
            <option key={operator} value={operator}>
              {OPERATOR_LABELS[operator]}
            </option>
          ))}
        </select>
        {fields.includes('right') && side('right', clause.right)}
        {fields.includes('lower') && (
          <>
            {side('lower', clause.lower)}
            <span className={WORD}>and</span>
            {side('upper', clause.upper)}
          </>
        )}
        {fields.includes('percent') && (
          <>
            {amount('percent', 'percent')}
            <span className={WORD}>% within</span>
          </>
        )}
        {fields.includes('candles') && (
          <>
            {amount('candles', 'candles')}
            <span className={WORD}>{clause.candles === 1 ? 'candle' : 'candles'}</span>
          </>
        )}
        {onRemove && (
          <Button variant="ghost" size="icon" className="ml-auto" aria-label={`Remove clause ${number}`} onClick={onRemove}>
            <Trash2 aria-hidden="true" />
          </Button>
        )}
      </div>
      {messages.length > 0 && (
        <ul className="mt-2 space-y-1 text-sm font-medium text-red-700">
          {messages.map(([at, message]) => (
            <li key={at} id={errorId(at)}>
              {message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/**
 * A side: what it reads, its parameters, and its timeframe (the agent's own, or longer); on the
 * right a number may stand in its place.
 */
function OperandFields({
  name,
  path,
  operand,
  allowNumber,
  agentTimeframe,
  mark,
  onChange,
}: {
  name: string;
  path: string;
  operand: TOperand;
  allowNumber: boolean;
  agentTimeframe: TCandleTimeframe;
  mark: Mark;
  onChange(next: TOperand): void;
}) {
  const choices = allowNumber ? [NUMBER_CHOICE, ...OPERAND_CHOICES] : OPERAND_CHOICES;
  const parameters = OPERAND_PARAMETERS[operand.indicator] ?? [];
  const values = operand as Record<string, unknown>;
  // A side refused as a whole (no shape matched) is marked on what it reads.
  return (
    <>
      <select aria-label={`${name} side`} {...mark(path)} value={operandKey(operand)} onChange={(event) => onChange(operandFor(event.target.value, operand))} className={SELECT}>
        {choices.map((choice) => (
          <option key={choice.key} value={choice.key}>
            {choice.label}
          </option>
        ))}
      </select>
      {parameters.length > 0 && (
        <span className="inline-flex flex-wrap items-center gap-1">
          {operand.indicator !== 'number' && (
            <span aria-hidden="true" className={WORD}>
              (
            </span>
          )}
          {parameters.map(({ field, label, step }) => {
            const value = values[field];
            return (
              <input
                key={field}
                type="number"
                aria-label={`${name} ${label}`}
                {...mark(`${path}.${field}`)}
                step={step ?? 1}
                value={typeof value === 'number' && Number.isFinite(value) ? value : ''}
                onChange={(event) => onChange({ ...operand, [field]: event.target.value === '' ? Number.NaN : Number(event.target.value) } as TOperand)}
                className={NUMBER}
              />
            );
          })}
          {operand.indicator !== 'number' && (
            <span aria-hidden="true" className={WORD}>
              )
            </span>
          )}
        </span>
      )}
      {operand.indicator !== 'number' && (
        <>
          <span className={WORD}>on</span>
          <TimeframeSelect
            label={`${name} timeframe`}
            mark={mark(`${path}.timeframe`)}
            value={operand.timeframe}
            agentTimeframe={agentTimeframe}
            onChange={(timeframe) => {
              const { timeframe: _old, ...rest } = operand;
              onChange(timeframe ? { ...rest, timeframe } : rest);
            }}
          />
        </>
      )}
    </>
  );
}

/** The agent's own timeframe (stored as none) or a longer one; a shorter one stored before the
 * agent's changed stays shown, so its message has a place. */
function TimeframeSelect({
  label,
  mark,
  value,
  agentTimeframe,
  onChange,
}: {
  label: string;
  mark: ReturnType<Mark>;
  value: TCandleTimeframe | undefined;
  agentTimeframe: TCandleTimeframe;
  onChange(next: TCandleTimeframe | undefined): void;
}) {
  const longer = longerTimeframes(agentTimeframe);
  const stored = value !== undefined && value !== agentTimeframe && !longer.includes(value) ? value : null;
  return (
    <select aria-label={label} {...mark} value={value === undefined || value === agentTimeframe ? '' : value} onChange={(event) => onChange((event.target.value || undefined) as TCandleTimeframe | undefined)} className={SELECT}>
      <option value="">{`${TIMEFRAME_LABELS[agentTimeframe]} (the agent's)`}</option>
      {stored && <option value={stored}>{`${TIMEFRAME_LABELS[stored]} (shorter than the agent's)`}</option>}
      {longer.map((t) => (
        <option key={t} value={t}>
          {TIMEFRAME_LABELS[t]}
        </option>
      ))}
    </select>
  );
}
