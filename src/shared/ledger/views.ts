// What the owner reads from the flight recorder and the cost ledger (owner API ledger.calls, ledger.costs; perch ledger).
import type { DecidedBy, PerchDecision, PerchEvent } from './harness-events';

/** One tool call, once: its records joined by the harness's call id (Claude Code's tool_use_id, Codex's call_id). */
export interface ToolCallView {
  agent: { id: string; name: string };
  harness: string;
  session_id: string | null;
  call_id: string;
  /** The turn (the user prompt and the agent's work on it) the call belongs to, in the harness's id; null: not named. */
  turn: string | null;
  /** What the turn's model calls (this session's API requests of the same turn) used and cost; null: no turn known. */
  turn_usage: TurnUsage | null;
  tool: string | null;
  /** What it was asked (bounded). */
  asked: string | null;
  decision: string | null;
  decided_by: DecidedBy | null;
  decision_source: string | null;
  /** What Perch decided on the call's permission prompt and who decided it (the owner and where, a rule, the pause,
   * nobody), when the prompt came through a hook door; null when Perch was not asked. */
  perch: PerchDecision | null;
  /** null until its result is known. */
  outcome: {
    success: boolean | null;
    duration_ms: number | null;
    exit_code: number | null;
    output_head: string | null;
    error: string | null;
  } | null;
  /** The harness's time of its first and last record (ms). */
  first_at: number;
  last_at: number;
  /** The ledger rows it was joined from. */
  record_ids: number[];
}

/** One turn's model calls: how many, their tokens, their dollars (null: none priced; unpriced: how many were not). */
export interface TurnUsage {
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number | null;
  unpriced: number;
}

/** One line of the cost ledger: a day, an agent, a harness, a model and where the figure came from. */
export interface CostLine {
  day: string;
  agent: string;
  harness: string;
  model: string | null;
  /** harness: the harness's own dollars; price_table: tokens priced by the table; unknown: no price for the model. */
  cost_source: string | null;
  requests: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number | null;
}

/** Perch's decision on a call in words: "allowed by you on the laptop", "denied by rule R", "no decision in Perch: …". */
export function perchDecisionText(p: PerchDecision): string {
  if (p.by === 'nobody' || p.decision === 'none') return `no decision in Perch${p.why ? `: ${p.why}` : ''}`;
  const verb = p.decision === 'allow' ? 'allowed' : 'denied';
  if (p.by === 'pause') return `${verb} by Perch: the agent is paused`;
  if (p.by === 'rule') return `${verb} by standing rule ${p.rule_id ?? '?'}`;
  const on = !p.on || p.on.via === 'laptop' ? 'on the laptop' : `on ${p.on.name ? `${p.on.name} ` : ''}(device ${p.on.device_id})`;
  return `${verb} by you ${on}`;
}

/** One of Perch's own events in the flight recorder (a wake run, a pause, a rule), with its record's id and time. */
export interface PerchEventView extends PerchEvent {
  id: number;
  at: number;
  agent: { id: string; name: string };
}

/** A Perch event in words: "wake run run_… ended: failed, exit 3 after 0.2 s", "paused by owner: lunch". */
export function perchEventText(e: PerchEvent): string {
  switch (e.event) {
    case 'wake_run_started':
      return `wake run ${e.run_id ?? '?'} started (${e.run_kind ?? '?'}${e.why ? `; ${e.why}` : ''})`;
    case 'wake_run_ended': {
      const secs = e.duration_ms != null ? ` after ${(e.duration_ms / 1000).toFixed(1)} s` : '';
      const exit = e.exit_code != null ? `, exit ${e.exit_code}` : e.signal ? `, ${e.signal}` : '';
      return `wake run ${e.run_id ?? '?'} ended: ${e.status ?? '?'}${exit}${secs}`;
    }
    case 'paused':
      return `paused by ${e.by ?? 'owner'}${e.reason && e.reason !== 'budget' ? `: ${e.reason}` : ''}${e.detail ? ` (${e.detail})` : ''}`;
    case 'resumed':
      return `resumed (was paused by ${e.was ?? '?'})`;
    case 'rule_added':
    case 'rule_removed': {
      const where = !e.on || e.on.via === 'laptop' ? 'on the laptop' : `on ${e.on.name || e.on.device_id}`;
      return `standing rule ${e.rule_id ?? '?'} ${e.event === 'rule_added' ? 'added' : 'removed'} ${where}: ${e.rule ?? ''}`;
    }
    case 'ledger_removed':
      return `${e.records ?? '?'} ledger records removed (${e.reason ?? 'retention'})`;
    case 'ledger_imported':
      return `${e.records ?? '?'} ledger records imported (${e.reason ?? 'perch import'})`;
  }
}

/**
 * A turn's header in words: "Turn 1a2b3c4d · 2 model calls · 1,200 tokens in, 340 out · $0.0123"; a turn the harness
 * names no id for: "Turn not named by the harness".
 */
export function turnHeaderText(turn: string | null, u: TurnUsage | null): string {
  if (turn === null) return 'Turn not named by the harness';
  const id = `Turn ${turn.length > 12 ? turn.slice(0, 12) : turn}`;
  if (!u) return `${id} · no model calls recorded yet`;
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const tokens = `${n(u.input_tokens + u.cache_read_tokens + u.cache_write_tokens)} tokens in, ${n(u.output_tokens)} out`;
  const cost = u.cost_usd === null ? 'price unknown' : `$${u.cost_usd.toFixed(4)}${u.unpriced > 0 ? ` (${u.unpriced} unpriced)` : ''}`;
  return `${id} · ${u.requests} model call${u.requests === 1 ? '' : 's'} · ${tokens} · ${cost}`;
}
