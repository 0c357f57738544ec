import type { ReactNode } from 'react';
import { conditionText, triggerText, type TCondition, type TTrigger } from '../../../../contracts/conditions.ts';
import { DATE_TIME, formatInZone, type TInstant } from '../../../../contracts/time-format.ts';
import { useTimeZone } from '../../../lib/time-zone.ts';

/** A time in the owner's zone with the zone named: 'Dec 1, 2026 09:00 (Europe/Paris)'. */
export const zonedText = (at: TInstant, zone: string) => `${formatInZone(at, DATE_TIME, zone)} (${zone})`;

/** A trigger in words with its expiry in the owner's zone: 'Only once, at most every 2 hours, until Dec 1, 2026 09:00 (Europe/Paris)'. */
export function fullTriggerText(trigger: TTrigger, zone: string): string {
  return trigger.expiresAt ? `${triggerText(trigger)}, until ${zonedText(trigger.expiresAt, zone)}` : triggerText(trigger);
}

/**
 * The conditions for reading (the wizard's Review, the details): each by its name or plain
 * words, its plain words under a name, its trigger; `state` adds what the details know of it.
 */
export function ConditionsSummary({
  conditions,
  state,
}: {
  conditions: readonly TCondition[];
  state?: (condition: TCondition) => ReactNode;
}) {
  const zone = useTimeZone();
  if (conditions.length === 0) return <p className="mt-2 text-sm text-slate-600">No conditions</p>;
  return (
    <ul className="mt-2 space-y-3 text-sm" aria-label="Conditions">
      {conditions.map((condition) => {
        const words = conditionText(condition.when);
        const named = condition.name !== undefined && condition.name.trim() !== '';
        return (
          <li key={condition.id}>
            <p className="font-medium break-words text-slate-900">{named ? condition.name : words}</p>
            {named && <p className="break-words text-slate-700">{words}</p>}
            <p className="text-slate-600">{fullTriggerText(condition.trigger, zone)}</p>
            {state?.(condition)}
          </li>
        );
      })}
    </ul>
  );
}
