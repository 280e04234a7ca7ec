// The Ledger page: what the agents' harnesses reported (owner API ledger.costs, ledger.calls): today's spend per agent,
// the last 14 days as a chart, the tool calls as a timeline grouped by session, with filters and search, and Perch's
// own events (PerchEvents.tsx).
import { useEffect, useMemo, useState } from 'react';
import { api } from '../../transport';
import { hrefOf } from '../../sync';
import { perchDecisionText, type CostLine, type ToolCallView } from '../../../shared/ledger/views';
import { PerchEvents } from './PerchEvents';
import { LEDGER_HARNESSES, type LedgerHarness } from '../../../shared/ledger/harness-events';
import { PROMPT_HARNESS_LABEL } from '../../../shared/agents/harness';

const DAYS = 14;

function money(n: number): string {
  return `$${n < 1 ? n.toFixed(4) : n.toFixed(2)}`;
}

function dayBefore(today: string, n: number): string {
  const d = new Date(`${today}T12:00:00`);
  d.setDate(d.getDate() - n);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** How a call ended, in words: "ran 2.3 s, exit 0", "failed: …", "outcome not yet known". */
export function outcomeText(c: ToolCallView): string {
  const o = c.outcome;
  if (!o) return 'outcome not yet known';
  const secs = o.duration_ms != null ? ` ${(o.duration_ms / 1000).toFixed(1)} s` : '';
  const exit = o.exit_code != null ? `, exit ${o.exit_code}` : '';
  if (o.success === false) return `failed${secs}${exit}${o.error ? `: ${o.error}` : ''}`;
  return `ran${secs}${exit}`;
}

/** Whether Perch's own record says who decided the call (then it is the call's line: "In Perch: allowed by you …"). */
function perchDecided(c: ToolCallView): boolean {
  return !!c.perch && c.perch.decision !== 'none' && (c.decided_by === 'perch' || c.decided_by === null);
}

function decidedText(c: ToolCallView): string {
  if (perchDecided(c)) return `In Perch: ${perchDecisionText(c.perch!)}`;
  if (!c.decided_by) return 'decision not reported';
  const who = {
    allowlist: "the harness's allowlist",
    perch: 'Perch (you or a standing rule)',
    user: 'at the terminal',
    harness: 'the harness',
  }[c.decided_by];
  return `${c.decision ?? 'decided'} by ${who}`;
}

interface Filters {
  agent: string;
  harness: '' | LedgerHarness;
  tool: string;
  search: string;
  failedOnly: boolean;
}

/** call: show that one tool call (an approval card's link to its outcome), with a way back to all of them. */
export function LedgerPage(props: { call?: string } = {}) {
  const [costs, setCosts] = useState<{ costs: CostLine[]; today: string } | null>(null);
  const [calls, setCalls] = useState<ToolCallView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [f, setF] = useState<Filters>({ agent: '', harness: '', tool: '', search: '', failedOnly: false });

  useEffect(() => {
    api('ledger.costs', {}).then(setCosts, (e: Error) => setError(e.message));
  }, []);
  useEffect(() => {
    const t = setTimeout(() => {
      api('ledger.calls', {
        ...(props.call ? { call_id: props.call } : {}),
        ...(f.agent ? { agent: f.agent } : {}),
        ...(f.harness ? { harness: f.harness } : {}),
        ...(f.tool.trim() ? { tool: f.tool.trim() } : {}),
        ...(f.search.trim() ? { search: f.search.trim() } : {}),
        ...(f.failedOnly ? { failed_only: true } : {}),
        limit: 200,
      }).then(
        (r) => setCalls(r.calls),
        (e: Error) => setError(e.message),
      );
    }, 150);
    return () => clearTimeout(t);
  }, [f, props.call]);

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
  const agents = useMemo(
    () => [...new Set((costs?.costs ?? []).map((c) => c.agent).concat((calls ?? []).map((c) => c.agent.name)))].sort(),
    [costs, calls],
  );
  const sessions = useMemo(() => {
    const m = new Map<string, ToolCallView[]>();
    for (const c of calls ?? []) {
      const k = `${c.agent.name} · ${c.harness} · ${c.session_id ?? 'no session'}`;
      m.set(k, [...(m.get(k) ?? []), c]);
    }
    return [...m.entries()];
  }, [calls]);

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
      <section aria-label="Tool calls">
        <h2>Tool calls</h2>
        {props.call && (
          <p className="ledger-one-call">
            One tool call: <code>{props.call}</code> · <a href={hrefOf({ name: 'ledger' })}>Show all calls</a>
          </p>
        )}
        <div className="ledger-filters">
          <label>
            Agent{' '}
            <select value={f.agent} onChange={(e) => setF({ ...f, agent: e.target.value })}>
              <option value="">all</option>
              {agents.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          </label>
          <label>
            Harness{' '}
            <select value={f.harness} onChange={(e) => setF({ ...f, harness: e.target.value as Filters['harness'] })}>
              <option value="">all</option>
              {LEDGER_HARNESSES.map((h) => (
                <option key={h} value={h}>
                  {PROMPT_HARNESS_LABEL[h] ?? h}
                </option>
              ))}
            </select>
          </label>
          <label>
            Tool <input value={f.tool} onChange={(e) => setF({ ...f, tool: e.target.value })} placeholder="Bash" size={10} />
          </label>
          <label>
            Search <input type="search" value={f.search} onChange={(e) => setF({ ...f, search: e.target.value })} placeholder="rm -rf" />
          </label>
          <label>
            <input type="checkbox" checked={f.failedOnly} onChange={(e) => setF({ ...f, failedOnly: e.target.checked })} /> Failed only
          </label>
        </div>
        {calls === null ? (
          <p className="muted">Loading…</p>
        ) : calls.length === 0 ? (
          <p className="muted">No tool calls match.</p>
        ) : (
          sessions.map(([session, list]) => (
            <div key={session} className="ledger-session" aria-label={`Session ${session}`}>
              <h3>{session}</h3>
              <ol className="ledger-calls">
                {list.map((c) => (
                  <li
                    key={`${c.agent.id}:${c.call_id}`}
                    className={c.outcome?.success === false ? 'ledger-call failed' : 'ledger-call'}
                    aria-label={`Call ${c.call_id}`}
                  >
                    <span className="ledger-time">{new Date(c.first_at).toLocaleTimeString()}</span> <strong>{c.tool ?? '?'}</strong>{' '}
                    {c.asked && <code className="ledger-asked">{c.asked.slice(0, 200)}</code>}
                    <div className="ledger-why">
                      {decidedText(c)} · {outcomeText(c)}
                    </div>
                    {c.perch && !perchDecided(c) && <div className="ledger-perch">In Perch: {perchDecisionText(c.perch)}</div>}
                    {c.outcome?.output_head && <pre className="ledger-output">{c.outcome.output_head}</pre>}
                  </li>
                ))}
              </ol>
            </div>
          ))
        )}
      </section>
      {!props.call && <PerchEvents />}
    </div>
  );
}
