// The fleet at a glance: every agent with its one state (needs you, paused, working, connected idle, offline;
// shared/agents/agent-state.ts via AgentState.tsx) and how long, a sparkline of its recent activity (errors in red), today's
// usage; below, the live feed across all agents. Everything here follows the owner's live stream.
import { memo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useAgents } from '../../stores/agents';
import { useProgress, type AgentActivity } from '../../stores/progress';
import { useNow } from '../../hooks';
import { ago } from '../../format';
import { openDirectWith, stopWakeRun } from '../../sync';
import { runningRunOf, useWake } from '../../stores/wake';
import { whyText } from '../agents/WakeDialog';
import { QueuedRunLine, RunResources } from './WakeQueue';
import { ProgressFeed } from '../conversation/ProgressFeed';
import { Icon } from '../Icon';
import { Avatar } from '../common';
import { ReviewToggle } from '../approvals/HeldItems';
import { PauseButton, UsageChart, UsageMeter, pauseText } from './Control';
import { AgentStatePill, useAgentState, useFleetOrder } from './AgentState';
import { stateText } from '../../../shared/agents/agent-state';
import type { PauseInfo } from '../../../shared/agents/control';
import { HARNESS_LABEL, HARNESS_STATE_TEXT, type HarnessStatus } from '../../../shared/agents/harness';

const MINUTES = 30;

export function FleetView() {
  const agents = useFleetOrder(); // who needs you first (shared/agents/agent-state.ts fleetOrder)
  const [agentId, setAgentId] = useState<string | null>(null);
  return (
    <div className="page fleet">
      <header className="page-head">
        <h1>Fleet</h1>
        <p className="muted">
          Who needs you, who is working, idle, paused or offline — live. Bars show progress reports per minute over the last {MINUTES}{' '}
          minutes; red marks errors.
        </p>
      </header>
      {agents.length === 0 && <p className="muted">No agents yet. Add one on the Agents page.</p>}
      <ul className="fleet-grid" aria-label="Agents activity">
        {agents.map((a) => (
          <FleetCard
            key={a.id}
            agentId={a.id}
            name={a.name}
            revoked={a.revoked}
            review={a.review}
            paused={a.paused}
            from={a.presence?.from?.via}
            selected={agentId === a.id}
            onSelect={() => setAgentId(agentId === a.id ? null : a.id)}
          />
        ))}
      </ul>
      <section className="fleet-feed" aria-label="Live feed">
        <h2>
          Live feed {agentId ? `· ${agents.find((a) => a.id === agentId)?.name}` : '· all agents'}
          {agentId && (
            <button type="button" className="link" onClick={() => setAgentId(null)}>
              show all
            </button>
          )}
        </h2>
        <ProgressFeed agentId={agentId} showConversation />
      </section>
    </div>
  );
}

const FleetCard = memo(function FleetCard(props: {
  agentId: string;
  name: string;
  revoked: boolean;
  review: boolean;
  paused: PauseInfo | null;
  from?: string;
  selected: boolean;
  onSelect: () => void;
}) {
  const act = useProgress(useShallow((s) => s.activity[props.agentId]));
  const run = useWake((s) => runningRunOf(s, props.agentId));
  const now = useNow(5_000);
  const st = useAgentState(props.agentId);
  const harness = useAgents((s) => s.list.find((x) => x.id === props.agentId)?.harness ?? null);
  const text = st ? stateText(st, now) : '';
  const last = act?.last;
  return (
    <li
      className={`fleet-card state-card-${st?.state ?? 'offline'} ${props.selected ? 'selected' : ''}`}
      aria-label={`Agent ${props.name}`}
      data-state={st?.state}
    >
      <button
        type="button"
        className="fleet-card-main"
        aria-pressed={props.selected}
        aria-label={`${props.name}: ${text}${st ? ` — ${st.why}` : ''}`}
        onClick={props.onSelect}
      >
        <div className="fleet-card-head">
          <Avatar user={{ name: props.name, kind: 'agent' }} size={28} />
          <strong>{props.name}</strong>
          <AgentStatePill agentId={props.agentId} name={props.name} />
        </div>
        {st && st.state !== 'paused' && <p className="state-why small muted">{st.why}</p>}
        {props.paused && <p className="paused-why small">{pauseText(props.paused)}</p>}
        {harness && <HarnessLine status={harness} now={now} />}
        {props.from && (
          <p className="small muted" aria-label={`${props.name} connects from ${props.from}`}>
            from {props.from}
          </p>
        )}
        <Sparkline act={act} now={now} label={`${props.name} activity, last ${MINUTES} minutes`} />
        <p className="fleet-last small">
          {last ? (
            <>
              <Icon name={last.kind} size={13} /> {last.text.slice(0, 80)} · <span className="muted">{ago(last.at, now)}</span>
            </>
          ) : (
            <span className="muted">No activity reported yet.</span>
          )}
        </p>
      </button>
      {run && (
        <p className="fleet-wake small" aria-label={`${props.name} wake run`}>
          <span className="chip chip-working">running ({whyText(run)})</span>
          <RunResources run={run} />
          <button type="button" className="btn btn-danger-ghost btn-small" onClick={() => void stopWakeRun(props.agentId)}>
            Stop
          </button>
        </p>
      )}
      <QueuedRunLine agentId={props.agentId} name={props.name} />
      {/* owner control: today's usage vs caps, the last 14 days, one-click pause (Control.tsx) */}
      <UsageMeter agentId={props.agentId} />
      <UsageChart agentId={props.agentId} />
      <div className="fleet-card-actions">
        <PauseButton agent={{ id: props.agentId, name: props.name, paused: props.paused, revoked: props.revoked }} small />
        <button type="button" className="btn btn-ghost btn-small" onClick={() => void openDirectWith(props.name)}>
          Message
        </button>
        <ReviewToggle name={props.name} on={props.review} /> {/* review mode (HeldItems.tsx) */}
      </div>
    </li>
  );
});

/** The agent's harness session as its hooks last reported it: "Claude Code: waiting for you · 1 min", its cwd. */
function HarnessLine({ status, now }: { status: HarnessStatus; now: number }) {
  return (
    <p className={`fleet-harness small harness-${status.state}`} aria-label="Harness session">
      <span className={status.state === 'waiting' ? 'chip chip-needs' : 'chip'}>
        {HARNESS_LABEL[status.harness]}: {HARNESS_STATE_TEXT[status.state]}
      </span>{' '}
      <span className="muted">{ago(status.at, now)}</span>
      {status.message && <span className="harness-message"> — {status.message}</span>}
      {status.cwd && (
        <span className="harness-cwd muted" title={status.session_id ? `session ${status.session_id}` : undefined}>
          {' '}
          in <code>{status.cwd}</code>
        </span>
      )}
    </p>
  );
}

/** Progress per minute as bars (errors in red), newest on the right. */
export function Sparkline({
  act,
  now,
  label,
  width = 180,
  height = 36,
}: {
  act: AgentActivity | undefined;
  now: number;
  label: string;
  width?: number;
  height?: number;
}) {
  const minute = Math.floor(now / 60_000);
  const counts: number[] = [];
  const errors: number[] = [];
  for (let m = minute - MINUTES + 1; m <= minute; m++) {
    counts.push(act?.byMinute[m] ?? 0);
    errors.push(act?.errorsByMinute[m] ?? 0);
  }
  const max = Math.max(1, ...counts);
  const bw = width / MINUTES;
  const total = counts.reduce((a, b) => a + b, 0);
  return (
    <svg
      className="sparkline"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={`${label}: ${total} reports`}
    >
      <line x1="0" y1={height - 0.5} x2={width} y2={height - 0.5} className="spark-base" />
      {counts.map((n, i) => {
        if (!n) return null;
        const h = Math.max(2, (n / max) * (height - 4));
        const eh = errors[i] ? Math.max(2, (errors[i]! / max) * (height - 4)) : 0;
        return (
          <g key={i}>
            <rect x={i * bw + 1} y={height - h} width={Math.max(1, bw - 2)} height={h} className="spark-bar" rx="1" />
            {eh > 0 && <rect x={i * bw + 1} y={height - eh} width={Math.max(1, bw - 2)} height={eh} className="spark-err" rx="1" />}
          </g>
        );
      })}
    </svg>
  );
}
