// Owner control: pause / resume (one agent, all agents, Alt+Shift+P), paused shown plainly,
// today's usage against the daily caps, a 14-day usage chart and the caps form.
import { useEffect, useRef, useState } from 'react';
import type { AgentSummary } from '../../model';
import type { CapName, Caps, PauseInfo, UsageDay } from '../../../shared/agents/control';
import { useAgents } from '../../stores/agents';
import { useControl } from '../../stores/control';
import { money, moneyIn } from '../../format';
import { Dialog, ErrorLine } from '../common';
import { Icon } from '../Icon';
import { pauseAgent, pauseAll, resumeAgent, resumeAll, setCaps } from '../../sync';

/** Why an agent is stopped, in plain words. */
export function pauseText(p: PauseInfo): string {
  if (p.by === 'budget') return `Paused — daily cap reached${p.detail ? ` (${moneyIn(p.detail)})` : ''}`;
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

/** One click pauses (or resumes) one agent. A cap-paused agent's Resume offers raising the cap in the same place. */
/** named: the button says whom it pauses ("Pause ping"), where several agents' buttons stand side by side. */
export function PauseButton({
  agent,
  small,
  named,
}: {
  agent: Pick<AgentSummary, 'id' | 'name' | 'paused' | 'revoked'>;
  small?: boolean;
  named?: boolean;
}) {
  const [asking, setAsking] = useState(false);
  if (agent.revoked) return null;
  const cls = `btn ${agent.paused ? 'btn-primary' : 'btn-ghost'} ${small ? 'btn-small' : ''}`;
  return agent.paused ? (
    <>
      <button
        type="button"
        className={cls}
        aria-label={`Resume ${agent.name}`}
        aria-haspopup={agent.paused.by === 'budget' ? 'dialog' : undefined}
        onClick={() => (agent.paused?.by === 'budget' ? setAsking(true) : void resumeAgent(agent.id))}
      >
        {named ? `Resume ${agent.name}` : 'Resume'}
      </button>
      {asking && agent.paused.by === 'budget' && <ResumeFromCapDialog agent={agent} onClose={() => setAsking(false)} />}
    </>
  ) : (
    <button type="button" className={cls} aria-label={`Pause ${agent.name}`} onClick={() => void pauseAgent(agent.id)}>
      {named ? `Pause ${agent.name}` : 'Pause'}
    </button>
  );
}

const CAP_LABEL: Record<CapName, string> = {
  cost_usd: 'Cost cap ($ per day)',
  messages: 'Messages cap (per day)',
  tool_calls: 'Tool calls cap (per day)',
};

/** The cap a budget pause names ("messages: 50 of 50 today" → messages); cost when it cannot tell. */
function capOfPause(p: PauseInfo): CapName {
  const name = /^(cost_usd|messages|tool_calls):/.exec(p.detail ?? '')?.[1];
  return (name as CapName | undefined) ?? 'cost_usd';
}

/**
 * Resume after a daily cap paused the agent: the cap still holds, so a plain resume lets one call through and
 * pauses again. Raise the cap here and resume, or resume anyway knowing that.
 */
function ResumeFromCapDialog({ agent, onClose }: { agent: Pick<AgentSummary, 'id' | 'name' | 'paused'>; onClose: () => void }) {
  const row = useControl((s) => s.byAgent[agent.id]);
  const cap = capOfPause(agent.paused!);
  const current = row?.caps[cap] ?? null;
  // The cost cap counts the harness's measured cost once there is any (cap_cost), not the self-reported figure.
  const used = (cap === 'cost_usd' ? row?.cap_cost?.usd : row?.today[cap]) ?? 0;
  const suggest = current == null ? '' : String(cap === 'cost_usd' ? Math.max(current * 2, used + 1) : Math.max(current * 2, used + 10));
  const [value, setValue] = useState(suggest);
  const [error, setError] = useState<string | null>(null);
  const fmt = (v: number) => (cap === 'cost_usd' ? money(v) : String(v));
  return (
    <Dialog title={`Resume ${agent.name}?`} onClose={onClose}>
      <form
        className="form"
        onSubmit={async (e) => {
          e.preventDefault();
          const v = Number(value);
          if (value.trim() === '' || !Number.isFinite(v) || v <= used || (cap !== 'cost_usd' && !Number.isInteger(v))) {
            setError(`Raise the cap above today's use (${fmt(used)})${cap !== 'cost_usd' ? ' as a whole number' : ''}, or resume anyway.`);
            return;
          }
          setError(null);
          if (!(await setCaps(agent.id, { [cap]: v }))) return;
          if (await resumeAgent(agent.id)) onClose();
        }}
      >
        <p>
          {agent.name} reached its daily cap: {moneyIn(agent.paused?.detail ?? 'budget')}. The cap still holds, so resuming lets one call
          through and pauses {agent.name} again. Raise the cap first to let it work today.
        </p>
        <div className="field">
          <label htmlFor={`raise-${agent.id}`}>{CAP_LABEL[cap]}</label>
          <input
            id={`raise-${agent.id}`}
            type="number"
            min="0"
            step={cap === 'cost_usd' ? '0.01' : '1'}
            inputMode="decimal"
            value={value}
            onChange={(e) => setValue(e.target.value)}
            autoFocus
          />
          <span className="hint">
            Today: {fmt(used)} of {current == null ? 'no cap' : fmt(current)}.
          </span>
        </div>
        <ErrorLine error={error} />
        <div className="row">
          <button type="submit" className="btn btn-primary">
            Raise cap and resume
          </button>
          <button
            type="button"
            className="btn btn-ghost"
            onClick={async () => {
              if (await resumeAgent(agent.id)) onClose();
            }}
          >
            Resume anyway
          </button>
        </div>
      </form>
    </Dialog>
  );
}

/** The kill switch, on every screen (it lives in the sidebar), with its key: Alt+Shift+P pauses every agent. */
export function PauseAllControl() {
  const agents = useAgents((s) => s.list);
  const active = agents.filter((a) => !a.revoked);
  const running = active.filter((a) => !a.paused).length;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // Also while typing (the composer is where the owner usually is): Alt+Shift+P types nothing worth keeping.
      if (e.altKey && e.shiftKey && !e.ctrlKey && !e.metaKey && e.code === 'KeyP') {
        e.preventDefault();
        void pauseAll();
      }
    };
    window.addEventListener('keydown', onKey, true); // capture: no field's own key handling comes first
    return () => window.removeEventListener('keydown', onKey, true);
  }, []);
  if (active.length === 0) return null;
  return (
    <div className="pause-all" role="group" aria-label="All agents">
      {running > 0 ? (
        <button
          type="button"
          className="btn btn-danger btn-small"
          title="Pause every agent at once (Alt+Shift+P)"
          aria-keyshortcuts="Alt+Shift+P"
          onClick={() => void pauseAll()}
        >
          Pause all agents
        </button>
      ) : (
        <button type="button" className="btn btn-primary btn-small" onClick={() => void resumeAll()}>
          Resume all agents
        </button>
      )}
      <span className="muted small" role="status">
        {/* paused or not: whether an agent runs is its state (shared/agents/agent-state.ts), not this count */}
        {running === active.length ? `none of ${active.length} paused` : `${active.length - running} of ${active.length} paused`}
      </span>
    </div>
  );
}

function capText(v: number | null, asMoney = false): string {
  return v == null ? 'no cap' : asMoney ? money(v) : String(v);
}

/** Today's usage against the caps, as short lines with bars. */
export function UsageMeter({ agentId }: { agentId: string }) {
  const row = useControl((s) => s.byAgent[agentId]);
  if (!row) return null;
  const lines: Array<{ label: string; used: number; cap: number | null; text: string }> = [
    { label: 'Messages', used: row.today.messages, cap: row.caps.messages, text: `${row.today.messages} / ${capText(row.caps.messages)}` },
    {
      label: 'Tool calls',
      used: row.today.tool_calls,
      cap: row.caps.tool_calls,
      text: `${row.today.tool_calls} / ${capText(row.caps.tool_calls)}`,
    },
    {
      label: 'Cost',
      used: row.cap_cost.usd,
      cap: row.caps.cost_usd,
      text: `${money(row.cap_cost.usd)} / ${capText(row.caps.cost_usd, true)} (${row.cap_cost.source === 'measured' ? 'measured' : 'self-reported'})`,
    },
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

/**
 * Messages (or the cost the agent reported itself in progress, when it reports any) per day over the last 14 days,
 * today on the right. The cost its harness measured is the Ledger's chart (ledger/LedgerSpend.tsx).
 */
export function UsageChart({ agentId, width = 180, height = 32 }: { agentId: string; width?: number; height?: number }) {
  const row = useControl((s) => s.byAgent[agentId]);
  if (!row) return null;
  const byCost = row.days.some((d) => d.cost_usd > 0);
  const value = (d: UsageDay) => (byCost ? d.cost_usd : d.messages);
  const max = Math.max(...row.days.map(value), byCost ? 0.0001 : 1);
  const bw = width / row.days.length;
  const total = row.days.reduce((a, d) => a + value(d), 0);
  const label = byCost
    ? `Self-reported cost per day, last ${row.days.length} days: ${money(total)}`
    : `Messages per day, last ${row.days.length} days: ${total}`;
  return (
    <>
      {/* Said on screen too: beside the 30-minute sparkline, an unnamed second bar chart read as the same one. */}
      <p className="usage-caption" aria-hidden="true">
        {byCost ? 'Self-reported cost' : 'Messages'} per day, last {row.days.length} days
      </p>
      <svg className="usage-chart" width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={label}>
        <title>{label}</title>
        <line x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} className="spark-base" />
        {row.days.map((d, i) => {
          const v = value(d);
          if (!v) return null;
          const h = Math.max(2, (v / max) * (height - 4));
          return (
            <rect key={d.day} x={i * bw + 1} y={height - h} width={Math.max(1, bw - 2)} height={h} className="spark-bar" rx="1">
              <title>{`${d.day}: ${byCost ? money(d.cost_usd) : `${d.messages} messages`}, ${d.tool_calls} tool calls`}</title>
            </rect>
          );
        })}
      </svg>
    </>
  );
}

/** The daily caps of one agent (empty = no cap). */
export function CapsForm({ agent }: { agent: Pick<AgentSummary, 'id' | 'name'> }) {
  const caps = useControl((s) => s.byAgent[agent.id]?.caps);
  const [draft, setDraft] = useState<Record<keyof Caps, string>>({ cost_usd: '', messages: '', tool_calls: '' });
  useEffect(() => {
    if (caps)
      setDraft({
        cost_usd: caps.cost_usd?.toString() ?? '',
        messages: caps.messages?.toString() ?? '',
        tool_calls: caps.tool_calls?.toString() ?? '',
      });
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
        Cost ${' '}
        <input
          type="number"
          min="0"
          step="0.01"
          inputMode="decimal"
          value={draft.cost_usd}
          onChange={(e) => setDraft({ ...draft, cost_usd: e.target.value })}
        />
      </label>
      <label>
        Messages{' '}
        <input type="number" min="0" step="1" value={draft.messages} onChange={(e) => setDraft({ ...draft, messages: e.target.value })} />
      </label>
      <label>
        Tool calls{' '}
        <input
          type="number"
          min="0"
          step="1"
          value={draft.tool_calls}
          onChange={(e) => setDraft({ ...draft, tool_calls: e.target.value })}
        />
      </label>
      <button type="submit" className="btn btn-ghost btn-small">
        Save caps
      </button>
    </form>
  );
}

/**
 * The conversation header: the agent members' Pause / Resume in a menu (one button, however many members), so the
 * title keeps its room; the button shows how many are paused.
 */
export function ConvPauseControls({ memberIds }: { memberIds: string[] }) {
  const agents = useAgents((s) => s.list);
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const members = memberIds.map((id) => agents.find((a) => a.id === id)).filter((a): a is AgentSummary => !!a && !a.revoked);
  useEffect(() => {
    if (!open) return;
    const away = (e: Event) => {
      if (box.current && !box.current.contains(e.target as Node)) setOpen(false);
    };
    const esc = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        setOpen(false);
        box.current?.querySelector<HTMLButtonElement>('.conv-agents-button')?.focus();
      }
    };
    document.addEventListener('pointerdown', away);
    document.addEventListener('keydown', esc);
    return () => {
      document.removeEventListener('pointerdown', away);
      document.removeEventListener('keydown', esc);
    };
  }, [open]);
  if (members.length === 0) return null;
  const paused = members.filter((a) => a.paused).length;
  return (
    <div className="conv-agents" ref={box}>
      <button
        type="button"
        className={`btn btn-ghost conv-agents-button ${paused ? 'has-paused' : ''}`}
        aria-expanded={open}
        aria-haspopup="true"
        aria-label={`Agents of this conversation${paused ? ` (${paused} paused)` : ''}: pause or resume`}
        onClick={() => setOpen(!open)}
      >
        {paused ? <span className="chip chip-paused">{paused} paused</span> : 'Agents'} <Icon name="more" size={14} />
      </button>
      {open && (
        <div className="conv-agents-menu" role="group" aria-label="Pause agents of this conversation">
          {members.map((a) => (
            <div key={a.id} className="conv-agents-row">
              <span className="conv-agents-name">{a.name}</span>
              {a.paused && (
                <span className="chip chip-paused" title={pauseText(a.paused)}>
                  paused
                </span>
              )}
              <PauseButton agent={a} small named />
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
