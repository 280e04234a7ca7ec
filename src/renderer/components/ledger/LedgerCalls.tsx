// The ledger's tool calls (owner API ledger.calls) as a timeline grouped by agent and session, then by turn (a header
// per turn with its model calls' tokens and cost), with filters (agent,
// harness, tool, decided by, failed only) and search: of every agent (the Ledger page, `initialAgent` from its address) or of one
// (`agent`: its Ledger tab on the Agents page, where there is no agent to choose). `call`: that one call only.
import { useEffect, useMemo, useRef, useState } from 'react';
import { api } from '../../transport';
import { hrefOf } from '../../sync';
import { useAgents } from '../../stores/agents';
import { perchDecisionText, turnHeaderText, type ToolCallView } from '../../../shared/ledger/views';
import { DECIDED_BY, LEDGER_HARNESSES, type DecidedBy, type LedgerHarness } from '../../../shared/ledger/harness-events';
import { PROMPT_HARNESS_LABEL } from '../../../shared/agents/harness';

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
  decidedBy: '' | DecidedBy;
}

/** The decision's makers as the filter names them. */
const DECIDED_BY_LABEL: Record<DecidedBy, string> = {
  allowlist: "the harness's allowlist",
  perch: 'Perch (you or a rule)',
  user: 'the user at the terminal',
  harness: 'the harness',
};

export function LedgerCalls(props: { call?: string; agent?: string; initialAgent?: string; onError: (message: string) => void }) {
  const { onError } = props;
  const [calls, setCalls] = useState<ToolCallView[] | null>(null);
  const [f, setF] = useState<Filters>({
    agent: props.initialAgent ?? '',
    harness: '',
    tool: '',
    search: '',
    failedOnly: false,
    decidedBy: '',
  });
  const agent = props.agent ?? f.agent;
  const known = useAgents((s) => s.list);

  // The first list is asked for at once (the page's first paint waits for it); a change of the filters waits 150 ms
  // for the typing to pause. An answer to filters already changed again is dropped.
  const asked = useRef(false);
  useEffect(() => {
    let live = true;
    const t = setTimeout(
      () => {
        asked.current = true;
        api('ledger.calls', {
          ...(props.call ? { call_id: props.call } : {}),
          ...(agent ? { agent } : {}),
          ...(f.harness ? { harness: f.harness } : {}),
          ...(f.tool.trim() ? { tool: f.tool.trim() } : {}),
          ...(f.search.trim() ? { search: f.search.trim() } : {}),
          ...(f.failedOnly ? { failed_only: true } : {}),
          ...(f.decidedBy ? { decided_by: f.decidedBy } : {}),
          limit: 200,
        }).then(
          (r) => live && setCalls(r.calls),
          (e: Error) => live && onError(e.message),
        );
      },
      asked.current ? 150 : 0,
    );
    return () => {
      live = false;
      clearTimeout(t);
    };
  }, [f, agent, props.call, onError]);

  const agents = useMemo(() => {
    const names = new Set([...known.map((a) => a.name), ...(calls ?? []).map((c) => c.agent.name)]);
    if (f.agent) names.add(f.agent);
    return [...names].sort();
  }, [known, calls, f.agent]);
  // Session, then turn, each in the order its newest call comes in the list (newest first).
  const sessions = useMemo(() => {
    const m = new Map<string, Map<string, ToolCallView[]>>();
    for (const c of calls ?? []) {
      const k = `${c.agent.name} · ${c.harness} · ${c.session_id ?? 'no session'}`;
      const turns = m.get(k) ?? new Map<string, ToolCallView[]>();
      m.set(k, turns);
      const t = c.turn ?? '';
      turns.set(t, [...(turns.get(t) ?? []), c]);
    }
    return [...m.entries()].map(([k, turns]) => [k, [...turns.values()]] as const);
  }, [calls]);

  return (
    <section aria-label="Tool calls">
      <h2>Tool calls</h2>
      {props.call && (
        <p className="ledger-one-call">
          One tool call: <code>{props.call}</code> · <a href={hrefOf({ name: 'ledger' })}>Show all calls</a>
        </p>
      )}
      <div className="ledger-filters">
        {!props.agent && (
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
        )}
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
          Decided by{' '}
          <select value={f.decidedBy} onChange={(e) => setF({ ...f, decidedBy: e.target.value as Filters['decidedBy'] })}>
            <option value="">anyone</option>
            {DECIDED_BY.map((d) => (
              <option key={d} value={d}>
                {DECIDED_BY_LABEL[d]}
              </option>
            ))}
          </select>
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
        sessions.map(([session, turns]) => (
          <div key={session} className="ledger-session" aria-label={`Session ${session}`}>
            <h3>{session}</h3>
            {turns.map((list) => (
              <section key={list[0]!.turn ?? ''} className="ledger-turn" aria-label={`Turn ${list[0]!.turn ?? 'not named'}`}>
                <h4 className="ledger-turn-head">{turnHeaderText(list[0]!.turn, list[0]!.turn_usage)}</h4>
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
              </section>
            ))}
          </div>
        ))
      )}
    </section>
  );
}
