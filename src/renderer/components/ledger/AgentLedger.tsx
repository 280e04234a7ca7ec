// An agent's Ledger tab on the Agents page: the Ledger page's pieces for that agent only (its spend today with the
// 14-day chart, LedgerSpend.tsx; its tool calls, LedgerCalls.tsx, with no agent to choose), and a link to the Ledger
// page filtered to it (#/ledger/agent/NAME), where its Perch's events and the other agents are.
import { useState } from 'react';
import { hrefOf } from '../../sync';
import { LedgerSpend } from './LedgerSpend';
import { LedgerCalls } from './LedgerCalls';

export function AgentLedger({ agent }: { agent: string }) {
  const [error, setError] = useState<string | null>(null);
  return (
    <div className="agent-ledger ledger-page" role="tabpanel" aria-label={`${agent}'s ledger`}>
      <p className="muted small">
        What {agent}&apos;s harness reported: each tool call, who allowed it, what happened, and what it cost.{' '}
        <a href={hrefOf({ name: 'ledger', agent })} aria-label={`Open ${agent} in the Ledger`}>
          Open in the Ledger
        </a>
      </p>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      <LedgerSpend agent={agent} onError={setError} />
      <LedgerCalls agent={agent} onError={setError} />
    </div>
  );
}
