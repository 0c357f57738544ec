import type { TAgentTemplate } from '../../../../contracts/agents.ts';

/**
 * The template's signals: the decision rules every run evaluates with the agent's parameters
 * (Run History shows each one's outcome). Named apart from the alerts the user sets, so the two
 * are never taken for each other (decision 0027).
 */
export function SignalsList({ template, className }: { template: TAgentTemplate; className?: string }) {
  const rules = template.implementation.decisionRules;
  // The Custom Monitor has none (issue 30): only the owner's conditions and alerts decide.
  if (rules.length === 0) {
    return (
      <section aria-label="Signals" className={className}>
        <h3 className="text-sm font-semibold text-slate-900">Signals</h3>
        <p className="mt-1 text-sm text-slate-600">{`${template.name} has no signals of its own: only your conditions and the alerts you set decide, and they are what notify you.`}</p>
      </section>
    );
  }
  return (
    <section aria-label="Signals" className={className}>
      <h3 className="text-sm font-semibold text-slate-900">Signals</h3>
      <p className="mt-1 text-sm text-slate-600">What {template.name} evaluates on every run, using the agent's parameters. Run History records each outcome; the alerts you set are what notify you.</p>
      <ul className="mt-2 space-y-1 text-sm">
        {rules.map((rule) => (
          <li key={rule.name}>
            <span className="font-medium text-slate-900">{rule.name}</span> <span className="text-slate-600">{rule.description}</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
