// An agent's budget on its row of the Agents page.
import { useState } from 'react';
import type { AgentSummary } from '../../model';
import { setAgentBudget } from '../../sync';

/** The agent's budget (brakes, hub/control/brakes.ts): messages per conversation per hour; empty = off. */
export function BudgetField({ agent }: { agent: AgentSummary }) {
  const current = agent.brakes?.budget_per_hour;
  const [value, setValue] = useState(current === null || current === undefined ? '' : String(current));
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="budget-field"
      onSubmit={async (e) => {
        e.preventDefault();
        const v = value.trim();
        const budget = v === '' || v === 'off' ? 'off' : Number(v);
        if (budget !== 'off' && !(Number.isInteger(budget) && budget >= 1)) return;
        setBusy(true);
        await setAgentBudget(agent.name, budget);
        setBusy(false);
      }}
    >
      <label>
        Budget{' '}
        <input
          aria-label={`Budget of ${agent.name}`}
          inputMode="numeric"
          size={7}
          placeholder="off"
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />{' '}
        messages per conversation per hour{agent.brakes?.budget_is_default ? ' (default)' : ''}
      </label>{' '}
      <button type="submit" className="btn btn-ghost" disabled={busy}>
        Set
      </button>
    </form>
  );
}
