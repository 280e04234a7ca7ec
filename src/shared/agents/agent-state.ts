// One state per agent, for the owner: derived here and only here, and shown the same in Fleet, the sidebar and on
// the phone. In order of precedence:
//   needs you  something waits for the owner: a pending request to the owner, a held item (review mode), a handoff
//              to the owner, the agent's task waits for input (input_required), or its harness session waits for
//              its user (a Notification hook: shared/agents/harness.ts);
//   paused     by the owner or a daily cap: nothing it does goes through until the owner resumes it (a paused agent
//              keeps waiting in get_updates, so it would otherwise always look connected);
//   working    a wake run of it is running, or it called a writing tool in the last WORKING_MS — unless its harness
//              said since that the turn or the session ended (a Stop or SessionEnd hook);
//   idle       connected (its get_updates waits now, or it called in the last CONNECTED_MS), nothing to do;
//   offline    never connected since the hub started, gone (no call for CONNECTED_MS: "no call for 3 min"), its harness session ended,
//              or its key was revoked.
// The order the owner sees agents in (Fleet, the sidebar, the phone) is fleetOrder's: by state (needs you › working ›
// idle › paused › offline), then the most recent first.
// Pure: the UI passes what its stores hold and the time.

import { HARNESS_LABEL, HARNESS_STATE_TEXT, type HarnessStatus } from './harness';

export const AGENT_STATES = ['needs_you', 'paused', 'working', 'idle', 'offline'] as const;
export type AgentStateName = (typeof AGENT_STATES)[number];

/** An agent that called in this long counts as connected (get_updates waits at most 60 s, then the agent calls again). */
export const CONNECTED_MS = 90_000;
/** An agent that called a writing tool (a message, progress, a task update…) this recently is working. */
export const WORKING_MS = 120_000;

/** What the hub knows of an agent's calls, in memory since it started (hub/control/presence.ts); null: not since then. */
export interface AgentPresence {
  /** Its last call of any tool. */
  seen_at: number | null;
  /** When its current connection began: the first call after CONNECTED_MS without one. */
  connected_since: number | null;
  /** Its last call of a writing tool (not get_updates, not a read). */
  active_at: number | null;
  /** When its current stretch of work began: the first writing call after WORKING_MS without one. */
  busy_since: number | null;
  /** Where its last request came from (shared/agents/places.ts): local, containers or tailnet, in words and the caller's address. */
  from?: { place: string; via: string; address: string };
}

export const NO_PRESENCE: AgentPresence = { seen_at: null, connected_since: null, active_at: null, busy_since: null };

/** Something that waits for the owner, and since when. */
export interface OwnerWait {
  what: 'request' | 'held' | 'handoff' | 'input' | 'harness';
  at: number;
}

export interface AgentStateInput {
  now: number;
  revoked: boolean;
  paused: { since: number } | null;
  /** A get_updates of the agent waits in the hub right now. */
  waiting: boolean;
  presence: AgentPresence;
  /** What waits for the owner from this agent (any order). */
  needs: readonly OwnerWait[];
  /** The start of its running wake run, if one runs. */
  runStartedAt: number | null;
  /** Its harness session's last hook event (hub/control/harness.ts), if any. */
  harness?: HarnessStatus | null;
}

export interface AgentState {
  state: AgentStateName;
  /** Since when the agent is in this state (null: unknown, e.g. never connected). */
  since: number | null;
  /** Why, in a few words (what waits for the owner; why offline). */
  why: string;
}

export const STATE_LABEL: Record<AgentStateName, string> = {
  needs_you: 'needs you',
  paused: 'paused',
  working: 'working',
  idle: 'connected, idle',
  offline: 'offline',
};

const NEED_TEXT: Record<OwnerWait['what'], [string, string]> = {
  request: ['a request to decide', 'requests to decide'],
  held: ['a held message to review', 'held items to review'],
  handoff: ['a conversation handed to you', 'conversations handed to you'],
  input: ['a task waiting for input', 'tasks waiting for input'],
  harness: ['waiting for you in its session', 'waiting for you in its sessions'],
};

function needsWhy(needs: readonly OwnerWait[]): string {
  const by = new Map<OwnerWait['what'], number>();
  for (const n of needs) by.set(n.what, (by.get(n.what) ?? 0) + 1);
  return [...by].map(([what, n]) => (n === 1 ? NEED_TEXT[what][0] : `${n} ${NEED_TEXT[what][1]}`)).join(', ');
}

export function agentState(i: AgentStateInput): AgentState {
  const p = i.presence;
  if (i.revoked) return { state: 'offline', since: null, why: 'its key was revoked' };
  const needs = i.harness?.state === 'waiting' ? [...i.needs, { what: 'harness' as const, at: i.harness.at }] : i.needs;
  if (needs.length > 0) {
    return { state: 'needs_you', since: Math.min(...needs.map((n) => n.at)), why: needsWhy(needs) };
  }
  if (i.paused) return { state: 'paused', since: i.paused.since, why: 'paused' };
  if (i.runStartedAt != null) return { state: 'working', since: i.runStartedAt, why: 'a wake run is running' };
  // The harness said the turn or the session ended after the agent's last work: it no longer works.
  const h = i.harness;
  const over = h && (h.state === 'turn_ended' || h.state === 'ended') && h.at >= (p.active_at ?? 0) ? h : null;
  if (!over && p.active_at != null && i.now - p.active_at < WORKING_MS) {
    return { state: 'working', since: p.busy_since ?? p.active_at, why: 'active in the last 2 minutes' };
  }
  const harnessWhy = over ? `${HARNESS_LABEL[over.harness]}: ${HARNESS_STATE_TEXT[over.state]}` : '';
  if (over?.state === 'ended' && !i.waiting) return { state: 'offline', since: over.at, why: harnessWhy };
  const connected = i.waiting || (p.seen_at != null && i.now - p.seen_at < CONNECTED_MS);
  if (over && connected) return { state: 'idle', since: over.at, why: harnessWhy };
  if (connected) {
    const since = Math.max(p.active_at ?? 0, p.connected_since ?? 0);
    return { state: 'idle', since: since || null, why: i.waiting ? 'waiting for news' : 'connected' };
  }
  if (p.seen_at == null) return { state: 'offline', since: null, why: 'not connected since the hub started' };
  return { state: 'offline', since: p.seen_at, why: `no call for ${spanText(i.now - p.seen_at)}` };
}

/** A duration for people: "just now", "3 min", "2 h", "4 d". */
export function spanText(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return 'just now';
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h`;
  return `${Math.floor(h / 24)} d`;
}

/** "needs you · 3 min", "offline", "connected, idle · just now". */
export function stateText(s: AgentState, now: number): string {
  const label = STATE_LABEL[s.state];
  return s.since == null ? label : `${label} · ${spanText(now - s.since)}`;
}

/** The order of states the owner sees agents in: who needs you first, then who works, … offline last. */
export const STATE_ORDER: readonly AgentStateName[] = ['needs_you', 'working', 'idle', 'paused', 'offline'];

/** The agent's latest sign of life the hub knows of (its calls, its harness, what waits, a run, a pause), or null. */
export function lastActivity(i: AgentStateInput): number | null {
  const times = [i.presence.seen_at, i.presence.active_at, i.harness?.at, i.runStartedAt, i.paused?.since, ...i.needs.map((n) => n.at)];
  const known = times.filter((t): t is number => typeof t === 'number');
  return known.length ? Math.max(...known) : null;
}

/** What fleetOrder compares: the state, the most recent activity (null: none known), and the name to break ties. */
export interface FleetSortKey {
  state: AgentStateName;
  last: number | null;
  name: string;
}

/** The one order of agents on Fleet, the sidebar and the phone: by state (needs you › working › idle › paused › offline), then the most recent first, then by name. */
export function fleetOrder(a: FleetSortKey, b: FleetSortKey): number {
  return STATE_ORDER.indexOf(a.state) - STATE_ORDER.indexOf(b.state) || (b.last ?? 0) - (a.last ?? 0) || a.name.localeCompare(b.name);
}
