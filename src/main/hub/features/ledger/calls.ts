// What the owner reads from the flight recorder: each tool call once (its records joined by the harness's call id:
// Claude Code's tool_use_id, Codex's call_id), the cost ledger per day, agent and model, and the export lines.
import type { FeaturesHub } from '../services';
import type { DecidedBy, FactDetail } from '../../../../shared/ledger/harness-events';
import type { CostLine, PerchEventView, ToolCallView, TurnUsage } from '../../../../shared/ledger/views';
import { HubError } from '../../../../shared/errors';
import { localDay } from '../../../../shared/agents/control';
import { findAgent } from '../../identity/identities';
import { callOfRequest } from './decisions';
import { inTurns } from '../../core/step-lane';
import { allSteps } from '../../../../shared/steps';
import {
  callKeySteps,
  costsSince,
  perchEventRows,
  recordsOfCall,
  recordsPage,
  turnUsage,
  type LedgerRow,
} from '../../../store/tables/ledger/records';
import type { Db } from '../../../store/db/db';

export interface CallFilter {
  agent?: string;
  harness?: string;
  tool?: string;
  /** Words in the tool, what it was asked, its output or error. */
  text?: string;
  /** A day (YYYY-MM-DD) from which on. */
  since?: string;
  failedOnly?: boolean;
  /** Only calls whose decision was made by this (the call's decided_by). */
  decidedBy?: DecidedBy;
  limit?: number;
  /** That one call (the harness's call id). */
  callId?: string;
  /** The call a card (request) was the permission prompt of. */
  requestId?: string;
}

const MAX_CALLS = 500;

function detailOf(r: LedgerRow): FactDetail {
  try {
    return JSON.parse(r.detail) as FactDetail;
  } catch {
    return {};
  }
}

/** Folds one call's rows into its view (later rows fill what earlier ones left open). */
export function foldCall(name: string, rows: readonly LedgerRow[]): ToolCallView {
  const first = rows[0]!;
  const v: ToolCallView = {
    agent: { id: first.agent_id, name },
    harness: first.harness,
    session_id: first.session_id,
    call_id: first.call_id!,
    turn: null,
    turn_usage: null,
    tool: first.tool,
    asked: null,
    decision: null,
    decided_by: null,
    decision_source: null,
    perch: null,
    outcome: null,
    first_at: first.at,
    last_at: first.at,
    record_ids: [],
  };
  for (const r of rows) {
    const d = detailOf(r);
    v.record_ids.push(r.id);
    v.first_at = Math.min(v.first_at, r.at);
    v.last_at = Math.max(v.last_at, r.at);
    v.tool ??= r.tool;
    v.session_id ??= r.session_id;
    v.asked ??= d.asked ?? null;
    v.turn ??= d.turn ?? null;
    // Perch's own record of its decision on the call's prompt: who decided it; the harness's word, when it reports
    // one, stays the call's decision.
    if (r.kind === 'perch_decision' && d.perch) {
      v.perch = d.perch;
      if (!v.decision && d.perch.decision !== 'none') {
        v.decision = d.perch.decision;
        v.decided_by = 'perch';
      }
      continue;
    }
    if (r.kind === 'tool_decision' || (!v.decision && d.decision)) {
      v.decision = d.decision ?? v.decision;
      v.decided_by = d.decided_by ?? v.decided_by;
      v.decision_source = d.decision_source ?? v.decision_source;
    }
    if (r.kind === 'tool_result')
      v.outcome = {
        success: d.success ?? null,
        duration_ms: d.duration_ms ?? null,
        exit_code: d.exit_code ?? null,
        output_head: d.output_head ?? null,
        error: d.error ?? null,
      };
  }
  return v;
}

function checkDay(day: string | undefined, flag: string): string | undefined {
  if (day === undefined) return undefined;
  // A day of the calendar: Date.parse alone takes 2026-02-30 (as March 2nd).
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(Date.parse(day)) || new Date(day).toISOString().slice(0, 10) !== day)
    throw new HubError(
      'invalid_argument',
      `${flag} must be a day as YYYY-MM-DD, not ${JSON.stringify(day.slice(0, 40))}.`,
      'E.g. 2026-01-31.',
    );
  return day;
}

/** How many pages of calls a failed-only (or decided-by) list looks through for its matching ones. */
const FAILED_PAGES = 20;

/** Calls folded per step of a list (each reads its records through the (agent, call id) index). */
const FOLD_STEP = 100;

/** The tool calls matching the filter, newest first (at once: the CLI). */
export function listToolCalls(hub: FeaturesHub, f: CallFilter = {}): ToolCallView[] {
  return allSteps(toolCallSteps(hub, f));
}

/**
 * The same, the event loop given back between steps (the owner's Ledger page: a search for rare words walks every row,
 * over a second at 1M calls, and agents' requests are answered meanwhile). Rows removed meanwhile (retention) are
 * left out; rows added meanwhile are newer than the walk and belong to the next list.
 */
export function listToolCallsInTurns(hub: FeaturesHub, f: CallFilter = {}): Promise<ToolCallView[]> {
  return inTurns(toolCallSteps(hub, f));
}

function* toolCallSteps(hub: FeaturesHub, f: CallFilter): Generator<void, ToolCallView[]> {
  let agentId = f.agent ? findAgent(hub, f.agent).id : undefined;
  let callId = f.callId;
  if (f.requestId !== undefined) {
    const of = callOfRequest(hub, f.requestId);
    if (!of || (agentId !== undefined && agentId !== of.agentId) || (callId !== undefined && callId !== of.callId)) return [];
    agentId = of.agentId;
    callId = of.callId;
  }
  const limit = Math.max(1, Math.min(f.limit ?? 100, MAX_CALLS));
  const names = new Map<string, string>();
  const nameOf = (id: string) => {
    let n = names.get(id);
    if (n === undefined) {
      try {
        n = hub.user(id).name;
      } catch {
        n = id;
      }
      names.set(id, n);
    }
    return n;
  };
  const out: ToolCallView[] = [];
  // Failed only and decided by filter after the join (a call's outcome is its last result, its decision its records'
  // fold): up to 20 pages' worth of calls are read in one walk, newest first, until enough matching ones are found.
  const keys = yield* callKeySteps(hub.db, {
    since: checkDay(f.since, '--since'),
    agentId,
    harness: f.harness,
    tool: f.tool,
    callId,
    text: f.text?.slice(0, 200),
    limit: f.failedOnly || f.decidedBy ? limit * FAILED_PAGES : limit,
  });
  for (const [i, k] of keys.entries()) {
    if (i > 0 && i % FOLD_STEP === 0) yield;
    const rows = recordsOfCall(hub.db, k.agent_id, k.call_id);
    if (rows.length === 0) continue; // removed since the walk read it
    const v = foldCall(nameOf(k.agent_id), rows);
    if (f.failedOnly && v.outcome?.success !== false) continue;
    if (f.decidedBy && v.decided_by !== f.decidedBy) continue;
    out.push(v);
    if (out.length >= limit) break;
  }
  addTurnUsage(hub.db, out);
  return out;
}

/**
 * Each listed call's turn_usage: the API requests of its session and turn, one query per session on the page (through
 * the (agent, session) index, bounded to the turns listed), not a walk of the ledger.
 */
export function addTurnUsage(db: Db, calls: readonly ToolCallView[]): void {
  const bySession = new Map<string, { agentId: string; sessionId: string; turns: Set<string> }>();
  for (const c of calls) {
    if (c.turn === null || c.session_id === null) continue;
    const key = JSON.stringify([c.agent.id, c.session_id]);
    let s = bySession.get(key);
    if (!s) bySession.set(key, (s = { agentId: c.agent.id, sessionId: c.session_id, turns: new Set() }));
    s.turns.add(c.turn);
  }
  const usage = new Map<string, TurnUsage>();
  for (const s of bySession.values())
    for (const { turn, ...u } of turnUsage(db, s.agentId, s.sessionId, [...s.turns]))
      usage.set(JSON.stringify([s.agentId, s.sessionId, turn]), u);
  for (const c of calls)
    if (c.turn !== null && c.session_id !== null) c.turn_usage = usage.get(JSON.stringify([c.agent.id, c.session_id, c.turn])) ?? null;
}

export type { CostLine, ToolCallView };

/** The cost ledger from `since` (default: 13 days before today) per day, agent, harness, model and source. */
export function costLedger(hub: FeaturesHub, opts: { since?: string; agent?: string } = {}): CostLine[] {
  const agent = opts.agent ? findAgent(hub, opts.agent) : undefined;
  const since = checkDay(opts.since, '--since') ?? localDay(hub.now() - 13 * 86_400_000);
  return costsSince(hub.db, since, agent?.id).map(({ agent_id, ...r }) => ({ agent: safeName(hub, agent_id), ...r }));
}

function safeName(hub: FeaturesHub, id: string): string {
  try {
    return hub.user(id).name;
  } catch {
    return id;
  }
}

/** The ledger's rows from `since`, as plain objects (hashes in hex), a page at a time: `perch ledger export`. */
export function* exportRecords(hub: FeaturesHub, opts: { since: string; agent?: string }): Generator<Record<string, unknown>> {
  const agent = opts.agent ? findAgent(hub, opts.agent) : undefined;
  const since = checkDay(opts.since, '--since')!;
  let after = 0;
  for (;;) {
    const page = recordsPage(hub.db, since, after, 1000, agent?.id);
    if (page.length === 0) return;
    for (const r of page) {
      const { dedupe: _dedupe, hash, detail, agent_id, ...rest } = r;
      yield { ...rest, agent: safeName(hub, agent_id), detail: JSON.parse(detail) as unknown, hash: hash.toString('hex') };
      after = r.id;
    }
  }
}

/** Perch's own events (wake runs, pauses, rules) from `since` (default: 13 days before today), newest first. */
export function listPerchEvents(hub: FeaturesHub, opts: { since?: string; agent?: string; limit?: number } = {}): PerchEventView[] {
  const agent = opts.agent ? findAgent(hub, opts.agent) : undefined;
  const since = checkDay(opts.since, '--since') ?? localDay(hub.now() - 13 * 86_400_000);
  const limit = Math.max(1, Math.min(opts.limit ?? 100, MAX_CALLS));
  return perchEventRows(hub.db, since, limit, agent?.id).flatMap((r) => {
    const e = detailOf(r).perch_event;
    return e ? [{ ...e, id: r.id, at: r.at, agent: { id: r.agent_id, name: safeName(hub, r.agent_id) } }] : [];
  });
}
