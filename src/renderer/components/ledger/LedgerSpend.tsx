// The ledger's spend (owner API ledger.costs): today's spend per agent and the last 14 days as a chart, of every agent
// (the Ledger page) or of one (`agent`: its Ledger tab on the Agents page, ledger/AgentLedger.tsx).
import { useEffect, useMemo, useState } from 'react';
import { api } from '../../transport';
import type { CostLine } from '../../../shared/ledger/views';

const DAYS = 14;

function money(n: number): string {
  return `$${n < 1 ? n.toFixed(4) : n.toFixed(2)}`;
}

function dayBefore(today: string, n: number): string {
  const d = new Date(`${today}T12:00:00`);
  d.setDate(d.getDate() - n);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** Today's spend and the 14-day chart; `agent`: of that agent only. Errors go to onError. */
export function LedgerSpend(props: { agent?: string; onError: (message: string) => void }) {
  const { agent, onError } = props;
  const [costs, setCosts] = useState<{ costs: CostLine[]; today: string } | null>(null);
  useEffect(() => {
    api('ledger.costs', agent ? { agent } : {}).then(setCosts, (e: Error) => onError(e.message));
  }, [agent, onError]);
  const today = costs?.today;
  const perAgent = useMemo(() => {
    const m = new Map<string, number>();
    for (const c of costs?.costs ?? []) if (c.day === today) m.set(c.agent, (m.get(c.agent) ?? 0) + (c.cost_usd ?? 0));
    return [...m.entries()].sort((a, b) => b[1] - a[1]);
  }, [costs, today]);
  const unpriced = (costs?.costs ?? []).some((c) => c.day === today && c.cost_source === 'unknown');
  const days = useMemo(() => {
    if (!today) return [];
    const m = new Map<string, number>();
    for (const c of costs?.costs ?? []) m.set(c.day, (m.get(c.day) ?? 0) + (c.cost_usd ?? 0));
    return Array.from({ length: DAYS }, (_, i) => {
      const day = dayBefore(today, DAYS - 1 - i);
      return { day, usd: m.get(day) ?? 0 };
    });
  }, [costs, today]);
  const top = Math.max(...days.map((d) => d.usd), 0);

  return (
    <>
      <section aria-label="Spend today">
        <h2>Today{today ? ` (${today})` : ''}</h2>
        {perAgent.length === 0 ? (
          <p className="muted">No cost recorded today.</p>
        ) : (
          <ul className="ledger-spend">
            {perAgent.map(([agent, usd]) => (
              <li key={agent} aria-label={`${agent} spent today`}>
                <span className="ledger-agent">{agent}</span> <span className="ledger-usd">{money(usd)}</span>
              </li>
            ))}
          </ul>
        )}
        {unpriced && <p className="muted">Some of today&apos;s tokens have no price (a model not in the price table): price unknown.</p>}
      </section>
      <section aria-label="Last 14 days">
        <h2>Last {DAYS} days</h2>
        <div className="ledger-chart" role="img" aria-label={`Spend per day, last ${DAYS} days`}>
          {days.map((d) => (
            <div key={d.day} className="ledger-bar" title={`${d.day}: ${money(d.usd)}`} data-day={d.day} data-usd={d.usd}>
              <div className="ledger-bar-fill" style={{ height: `${top > 0 ? Math.max(2, (d.usd / top) * 100) : 0}%` }} />
            </div>
          ))}
        </div>
      </section>
    </>
  );
}
