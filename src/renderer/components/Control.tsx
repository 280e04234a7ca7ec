// Owner control: pause / resume (one agent, all agents, Alt+Shift+P), paused shown plainly,
// today's usage against the daily caps, a 14-day usage chart and the caps form.
import { useEffect, useState } from 'react';
import type { AgentSummary } from '../model';
import type { Caps, PauseInfo, UsageDay } from '../../shared/control';
import { useAgents } from '../stores/agents';
import { useControl } from '../stores/control';
import { typingInField } from '../hooks';
import { pauseAgent, pauseAll, resumeAgent, resumeAll, setCaps } from '../sync';

/** Why an agent is stopped, in plain words. */
export function pauseText(p: PauseInfo): string {
  if (p.by === 'budget') return `Paused — daily cap reached${p.detail ? ` (${p.detail})` : ''}`;
  return p.reason ? `Paused by you — ${p.reason}` : 'Paused by you';
}

/** "Paused" as a chip, with why in its title. Nothing when the agent runs. */
export function PausedBadge({ paused }: { paused: PauseInfo | null | undefined }) {
  if (!paused) return null;
  return (
    <span className="chip chip-paused" title={pauseText(paused)} aria-label={pauseText(paused)}>
      {paused.by === 'budget' ? 'paused · budget' : 'paused'}
    </span>
  );
}

/** One click pauses (or resumes) one agent. */
/** named: the button says whom it pauses ("Pause ping"), where several agents' buttons stand side by side. */
export function PauseButton({ agent, small, named }: { agent: Pick<AgentSummary, 'id' | 'name' | 'paused' | 'revoked'>; small?: boolean; named?: boolean }) {
  if (agent.revoked) return null;
  const cls = `btn ${agent.paused ? 'btn-primary' : 'btn-ghost'} ${small ? 'btn-small' : ''}`;
  return agent.paused ? (
    <button type="button" className={cls} aria-label={`Resume ${agent.name}`} onClick={() => void resumeAgent(agent.id)}>
      {named ? `Resume ${agent.name}` : 'Resume'}
    </button>
  ) : (
    <button type="button" className={cls} aria-label={`Pause ${agent.name}`} onClick={() => void pauseAgent(agent.id)}>
      {named ? `Pause ${agent.name}` : 'Pause'}
    </button>
  );
}

/** The kill switch, on every screen (it lives in the sidebar), with its key: Alt+Shift+P pauses every agent. */
export function PauseAllControl() {
  const agents = useAgents((s) => s.list);
  const active = agents.filter((a) => !a.revoked);
  const running = active.filter((a) => !a.paused).length;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey && e.shiftKey && !e.ctrlKey && !e.metaKey && e.code === 'KeyP' && !typingInField(e.target)) {
        e.preventDefault();
        void pauseAll();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
  if (active.length === 0) return null;
  return (
    <div className="pause-all" role="group" aria-label="All agents">
      {running > 0 ? (
        <button type="button" className="btn btn-danger btn-small" title="Pause every agent at once (Alt+Shift+P)" aria-keyshortcuts="Alt+Shift+P" onClick={() => void pauseAll()}>
          Pause all agents
        </button>
      ) : (
        <button type="button" className="btn btn-primary btn-small" onClick={() => void resumeAll()}>
          Resume all agents
        </button>
      )}
      <span className="muted small" role="status">
        {/* paused or not: whether an agent runs is its state (shared/agent-state.ts), not this count */}
        {running === active.length ? `none of ${active.length} paused` : `${active.length - running} of ${active.length} paused`}
      </span>
    </div>
  );
}

function capText(v: number | null, unit = ''): string {
  return v == null ? 'no cap' : `${unit}${v}`;
}

/** Today's usage against the caps, as short lines with bars. */
export function UsageMeter({ agentId }: { agentId: string }) {
  const row = useControl((s) => s.byAgent[agentId]);
  if (!row) return null;
  const lines: Array<{ label: string; used: number; cap: number | null; text: string }> = [
    { label: 'Messages', used: row.today.messages, cap: row.caps.messages, text: `${row.today.messages} / ${capText(row.caps.messages)}` },
    { label: 'Tool calls', used: row.today.tool_calls, cap: row.caps.tool_calls, text: `${row.today.tool_calls} / ${capText(row.caps.tool_calls)}` },
    { label: 'Cost', used: row.today.cost_usd, cap: row.caps.cost_usd, text: `$${row.today.cost_usd.toFixed(2)} / ${capText(row.caps.cost_usd, '$')}` },
  ];
  return (
    <dl className="usage-meter" aria-label="Today's usage against the daily caps">
      {lines.map((l) => (
        <div key={l.label} className={`usage-line ${l.cap != null && l.used >= l.cap ? 'over' : ''}`}>
          <dt>{l.label}</dt>
          <dd>
            {l.text}
            {l.cap != null && l.cap > 0 && (
              <span className="usage-bar" aria-hidden="true">
                <span style={{ width: `${Math.min(100, (l.used / l.cap) * 100)}%` }} />
              </span>
            )}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/** Messages (or cost, when the agent reports any) per day over the last 14 days, today on the right. */
export function UsageChart({ agentId, width = 180, height = 32 }: { agentId: string; width?: number; height?: number }) {
  const row = useControl((s) => s.byAgent[agentId]);
  if (!row) return null;
  const byCost = row.days.some((d) => d.cost_usd > 0);
  const value = (d: UsageDay) => (byCost ? d.cost_usd : d.messages);
  const max = Math.max(...row.days.map(value), byCost ? 0.0001 : 1);
  const bw = width / row.days.length;
  const total = row.days.reduce((a, d) => a + value(d), 0);
  const label = byCost ? `Cost per day, last ${row.days.length} days: $${total.toFixed(2)}` : `Messages per day, last ${row.days.length} days: ${total}`;
  return (
    <svg className="usage-chart" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
      <title>{label}</title>
      <line x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} className="spark-base" />
      {row.days.map((d, i) => {
        const v = value(d);
        if (!v) return null;
        const h = Math.max(2, (v / max) * (height - 4));
        return <rect key={d.day} x={i * bw + 1} y={height - h} width={Math.max(1, bw - 2)} height={h} className="spark-bar" rx="1"><title>{`${d.day}: ${byCost ? `$${d.cost_usd.toFixed(2)}` : `${d.messages} messages`}, ${d.tool_calls} tool calls`}</title></rect>;
      })}
    </svg>
  );
}

/** The daily caps of one agent (empty = no cap). */
export function CapsForm({ agent }: { agent: Pick<AgentSummary, 'id' | 'name'> }) {
  const caps = useControl((s) => s.byAgent[agent.id]?.caps);
  const [draft, setDraft] = useState<Record<keyof Caps, string>>({ cost_usd: '', messages: '', tool_calls: '' });
  useEffect(() => {
    if (caps) setDraft({ cost_usd: caps.cost_usd?.toString() ?? '', messages: caps.messages?.toString() ?? '', tool_calls: caps.tool_calls?.toString() ?? '' });
  }, [caps?.cost_usd, caps?.messages, caps?.tool_calls]);
  const num = (s: string) => (s.trim() === '' ? null : Number(s));
  return (
    <form
      className="caps-form"
      aria-label={`Daily caps of ${agent.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void setCaps(agent.id, { cost_usd: num(draft.cost_usd), messages: num(draft.messages), tool_calls: num(draft.tool_calls) });
      }}
    >
      <span className="small muted">Daily caps (empty = none; reaching one pauses {agent.name}):</span>
      <label>
        Cost $ <input type="number" min="0" step="0.01" inputMode="decimal" value={draft.cost_usd} onChange={(e) => setDraft({ ...draft, cost_usd: e.target.value })} />
      </label>
      <label>
        Messages <input type="number" min="0" step="1" value={draft.messages} onChange={(e) => setDraft({ ...draft, messages: e.target.value })} />
      </label>
      <label>
        Tool calls <input type="number" min="0" step="1" value={draft.tool_calls} onChange={(e) => setDraft({ ...draft, tool_calls: e.target.value })} />
      </label>
      <button type="submit" className="btn btn-ghost btn-small">
        Save caps
      </button>
    </form>
  );
}

/** The conversation header: each agent member's paused state and a one-click Pause / Resume (up to 3 agents). */
export function ConvPauseControls({ memberIds }: { memberIds: string[] }) {
  const agents = useAgents((s) => s.list);
  const members = memberIds.map((id) => agents.find((a) => a.id === id)).filter((a): a is AgentSummary => !!a && !a.revoked);
  if (members.length === 0 || members.length > 3) {
    const paused = members.filter((a) => a.paused).length;
    return paused ? <span className="chip chip-paused">{paused} paused</span> : null;
  }
  return (
    <span className="conv-pause" role="group" aria-label="Pause agents of this conversation">
      {members.map((a) => (
        <span key={a.id} className="conv-pause-agent">
          {a.paused && <span className="chip chip-paused" title={pauseText(a.paused)}>{a.name} paused</span>}
          <PauseButton agent={a} small named />
        </span>
      ))}
    </span>
  );
}
