// The Ledger page: what the agents' harnesses reported (owner API ledger.costs, ledger.calls): today's spend per agent,
// the last 14 days as a chart (LedgerSpend.tsx), the tool calls as a timeline grouped by session, with filters and
// search (LedgerCalls.tsx), and Perch's own events (PerchEvents.tsx). Each agent's Ledger tab (AgentLedger.tsx) shows
// the same pieces for that agent and links here filtered to it (`agent`, #/ledger/agent/NAME).
import { useState } from 'react';
import { PerchEvents } from './PerchEvents';
import { LedgerSpend } from './LedgerSpend';
import { LedgerCalls } from './LedgerCalls';

export { outcomeText } from './LedgerCalls';

/** call: show that one tool call (an approval card's link to its outcome), with a way back to all of them; agent: the calls filtered to it. */
export function LedgerPage(props: { call?: string; agent?: string } = {}) {
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="page ledger-page" aria-label="Ledger">
      <h1>Ledger</h1>
      <p className="muted">
        What your agents&apos; harnesses reported themselves: each tool call, who allowed it, what happened, and what it cost.
      </p>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <LedgerSpend onError={setError} />
      <LedgerCalls call={props.call} initialAgent={props.agent} onError={setError} />
      {!props.call && <PerchEvents />}
    </div>
  );
}
