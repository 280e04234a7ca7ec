// Owner control of agents: pause (the kill switch) and daily usage with caps.
//
// Pause: an agent (or every agent) is paused by the owner (owner API, UI, `perch agent pause`), or by a
// daily cap (reason 'budget'). While paused its writing tools are refused with code `paused`; reads,
// get_updates and progress still work. Pausing appends `agent.paused` to the agent's inbox and wakes it
// (its waiting get_updates returns at once); resuming appends `agent.resumed` and wakes it. The pause is
// stored in SQLite (agent_controls), so it survives a restart, and `perch agent pause` may write it from
// another process while the hub runs: the hub notices such outside writes by PRAGMA data_version (as the
// key cache does), both on the next tool call and by a light watcher that wakes the paused agent.
//
// Usage: per agent per day (the owner's local time) the reported usage (progress data.usage), the
// messages sent and the tool calls are counted in memory (O(1) per call) and flushed to usage_daily
// about once a second, on close and before the owner reads them. Reaching a cap pauses the agent.
import { appendPerchEvent } from '../core/ledger-chain';
import type { Hub } from '../core/hub';
import type { IdentityServices } from '../identity/services';
import { HubError } from '../../../shared/errors';
import { TOOL_BY_NAME } from '../../../shared/api/catalog';
import {
  ALLOWED_WHILE_PAUSED,
  CAP_NAMES,
  MESSAGE_TOOLS,
  NO_CAPS,
  USAGE_DAYS,
  capCost,
  capReached,
  emptyUsage,
  localDay,
  type AgentControlLive,
  type AgentControlView,
  type CapCost,
  type Caps,
  type PauseBy,
  type PauseInfo,
  type UsageDay,
} from '../../../shared/agents/control';
import {
  addUsage,
  allControls,
  setCaps as storeCaps,
  setPause,
  usageOn,
  usageSince,
  type ControlRow,
} from '../../store/tables/agents/control';
import { measuredCostOn } from '../../store/tables/ledger/records';
import { tx } from '../../store/db/db';
import { agentRefs, findAgent } from '../identity/identities';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type ControlsHub = Hub<IdentityServices & { controls: Controls }>;

interface AgentControl {
  paused: PauseInfo | null;
  caps: Caps;
}

interface ControlCache {
  dataVersion: number;
  byAgent: Map<string, AgentControl>;
}

/** What owner control keeps for one hub: the controls as last read, and the usage counters. */
export class Controls {
  /** The controls of every agent, read on first use and again after another process wrote (controls()). */
  cache: ControlCache | undefined = undefined;
  private countersNow: Counters | undefined = undefined;

  constructor(private readonly hub: ControlsHub) {}

  /** The usage counters, made on first use (they are flushed when the hub closes). */
  get counters(): Counters {
    let c = this.countersNow;
    if (!c) {
      const hub = this.hub;
      const made: Counters = (c = this.countersNow = { today: new Map(), pending: new Map(), measured: new Map(), timer: undefined });
      hub.onClose(() => {
        if (made.timer) clearTimeout(made.timer);
        made.timer = undefined;
        flushUsage(hub);
      });
    }
    return c;
  }

  /** The counters if any call was counted yet. */
  get countersIfAny(): Counters | undefined {
    return this.countersNow;
  }
}

function fromRow(r: ControlRow): AgentControl {
  return {
    paused:
      r.paused_at != null
        ? { by: r.paused_by === 'budget' ? 'budget' : 'owner', reason: r.paused_reason, detail: r.paused_detail, since: r.paused_at }
        : null,
    caps: { cost_usd: r.cap_cost_usd, messages: r.cap_messages, tool_calls: r.cap_tool_calls },
  };
}

function load(hub: ControlsHub): Map<string, AgentControl> {
  const m = new Map<string, AgentControl>();
  for (const r of allControls(hub.db)) m.set(r.user_id, fromRow(r));
  return m;
}

/**
 * The controls of every agent, read again whenever another process wrote to the database (e.g.
 * `perch agent pause` while the hub runs): data_version is read at most once per turn of the event loop
 * (hub/core/outside-writes.ts). Agents whose pause changed that way are woken, so their waiting get_updates sees agent.paused at once.
 */
function controls(hub: ControlsHub): Map<string, AgentControl> {
  const svc = hub.services.controls;
  let c = svc.cache;
  const version = hub.outside.version();
  if (!c) {
    svc.cache = c = { dataVersion: version, byAgent: load(hub) };
  } else if (c.dataVersion !== version) {
    const before = c.byAgent;
    c.byAgent = load(hub);
    c.dataVersion = version;
    for (const id of new Set([...before.keys(), ...c.byAgent.keys()])) {
      if (!samePause(before.get(id)?.paused ?? null, c.byAgent.get(id)?.paused ?? null)) hub.bus.wake(id);
    }
  }
  return c.byAgent;
}

function samePause(a: PauseInfo | null, b: PauseInfo | null): boolean {
  return (a === null) === (b === null) && (a === null || (a.since === b!.since && a.by === b!.by));
}

/** This hub's own change to an agent's controls (committed): the cache follows without reading again. */
function remember(hub: ControlsHub, agentId: string, patch: Partial<AgentControl>): void {
  const m = controls(hub);
  const cur = m.get(agentId) ?? { paused: null, caps: { ...NO_CAPS } };
  m.set(agentId, { ...cur, ...patch });
}

/** Whether an agent is paused, and why (for other modules, e.g. wake runs must never start a paused agent). */
export function isPaused(
  hub: ControlsHub,
  agentId: string,
): { paused: boolean; reason?: string; by?: PauseBy; detail?: string; since?: number } {
  const p = controls(hub).get(agentId)?.paused;
  if (!p) return { paused: false };
  return {
    paused: true,
    by: p.by,
    since: p.since,
    ...(p.reason != null ? { reason: p.reason } : {}),
    ...(p.detail != null ? { detail: p.detail } : {}),
  };
}

export function pauseOf(hub: ControlsHub, agentId: string): PauseInfo | null {
  return controls(hub).get(agentId)?.paused ?? null;
}

export function capsOf(hub: ControlsHub, agentId: string): Caps {
  return { ...(controls(hub).get(agentId)?.caps ?? NO_CAPS) };
}

// ---- the refusal ---------------------------------------------------------------------------------

/** Throws `paused` when a paused agent calls a writing tool. Called before every tool call (hub/tools/tools.ts). */
export function refuseIfPaused(hub: ControlsHub, agentId: string, tool: string): void {
  const m = controls(hub);
  if (m.size === 0) return;
  const p = m.get(agentId)?.paused;
  if (!p || ALLOWED_WHILE_PAUSED.has(tool) || TOOL_BY_NAME.get(tool)?.readOnly) return;
  refusePaused(p, tool);
}

/** Throws `paused` when the agent is paused: for a write inside a reading tool (whoami's instance_note). */
export function refuseWriteIfPaused(hub: ControlsHub, agentId: string, what: string): void {
  const p = pauseOf(hub, agentId);
  if (p) refusePaused(p, what);
}

function refusePaused(p: PauseInfo, tool: string): never {
  const why =
    p.by === 'budget'
      ? `a daily cap was reached (${p.detail ?? 'budget'})`
      : p.reason
        ? `the owner paused you: ${p.reason}`
        : 'the owner paused you';
  throw new HubError(
    'paused',
    `You are paused (${why}); ${tool} was refused and nothing changed.`,
    'Stop working and wait for your owner: call get_updates with wait_secs until an agent.resumed event comes. Reading still works.',
    { reason: p.by === 'budget' ? 'budget' : (p.reason ?? null), by: p.by, since: p.since, ...(p.detail ? { detail: p.detail } : {}) },
  );
}

// ---- pause and resume ------------------------------------------------------------------------------

/** (The same shape as PauseResult in shared/api/owner-api.ts.) */
export interface PauseResult {
  agent: { id: string; name: string };
  paused: PauseInfo | null;
  changed: boolean;
}

/**
 * Pauses one agent (a no-op when it is already paused the same way): stored, `agent.paused` appended to
 * its inbox (with the reason) and the agent woken. A budget pause never replaces the owner's own pause.
 */
export function pauseAgent(
  hub: ControlsHub,
  nameOrId: string,
  opts: { reason?: string | null; by?: PauseBy; detail?: string | null } = {},
): PauseResult {
  const by = opts.by ?? 'owner';
  const reason = by === 'budget' ? 'budget' : opts.reason?.trim() || null;
  const result = hub.write(() => {
    const u = findAgent(hub, nameOrId);
    const cur = pauseOf(hub, u.id);
    if (cur && (cur.by === 'owner' || by === 'budget')) return { agent: { id: u.id, name: u.name }, paused: cur, changed: false };
    const p: PauseInfo = { by, reason, detail: opts.detail ?? null, since: hub.now() };
    setPause(hub.db, u.id, { at: p.since, by, reason, detail: p.detail });
    hub.emit(u.inbox_id!, 'agent.paused', hub.ownerId, { data: { by, reason, ...(p.detail ? { detail: p.detail } : {}) }, wake: [u.id] });
    appendPerchEvent(hub, u.id, { event: 'paused', by, reason, detail: p.detail }); // the flight recorder
    return { agent: { id: u.id, name: u.name }, paused: p, changed: true };
  });
  if (result.changed) remember(hub, result.agent.id, { paused: result.paused });
  return result;
}

/** Resumes one agent: `agent.resumed` appended to its inbox and the agent woken. */
export function resumeAgent(hub: ControlsHub, nameOrId: string): PauseResult {
  const result = hub.write(() => {
    const u = findAgent(hub, nameOrId);
    const cur = pauseOf(hub, u.id);
    if (!cur) return { agent: { id: u.id, name: u.name }, paused: null, changed: false };
    setPause(hub.db, u.id, null);
    hub.emit(u.inbox_id!, 'agent.resumed', hub.ownerId, { data: { was: cur.by }, wake: [u.id] });
    appendPerchEvent(hub, u.id, { event: 'resumed', was: cur.by });
    return { agent: { id: u.id, name: u.name }, paused: null, changed: true };
  });
  if (result.changed) remember(hub, result.agent.id, { paused: null });
  return result;
}

/** Pauses every agent that has a key (one transaction). */
export function pauseAll(hub: ControlsHub, reason?: string | null): { agents: PauseResult[] } {
  return {
    agents: allOrNothing(hub, () =>
      agentRefs(hub)
        .filter((a) => !a.revoked)
        .map((a) => pauseAgent(hub, a.id, { reason })),
    ),
  };
}

/** Resumes every paused agent (one transaction). */
export function resumeAll(hub: ControlsHub): { agents: PauseResult[] } {
  return {
    agents: allOrNothing(hub, () =>
      agentRefs(hub)
        .filter((a) => pauseOf(hub, a.id))
        .map((a) => resumeAgent(hub, a.id)),
    ),
  };
}

/** One transaction for many agents; when it fails, the cache (already told of its parts) is read again. */
function allOrNothing<T>(hub: ControlsHub, fn: () => T): T {
  try {
    return hub.write(fn);
  } catch (err) {
    hub.services.controls.cache = undefined;
    throw err;
  }
}

// ---- caps ------------------------------------------------------------------------------------------

function checkCap(name: string, v: unknown, integer: boolean): number | null {
  if (v === null || v === undefined) return null;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || (integer && !Number.isInteger(v)) || v > 1e12) {
    throw new HubError(
      'invalid_argument',
      `Cap ${name} must be ${integer ? 'a whole number' : 'a number'} ≥ 0 (or null for no cap), not ${JSON.stringify(v)}.`,
      'Pass e.g. {"messages": 200, "cost_usd": 5}, or null to lift a cap.',
    );
  }
  return v;
}

/**
 * Sets an agent's daily caps (null lifts one; a cap not named keeps its value unless `off`). When today's
 * usage already reaches a new cap, the agent is paused with reason budget at once.
 */
export function setCaps(
  hub: ControlsHub,
  nameOrId: string,
  patch: Partial<Caps>,
  off = false,
): { agent: { id: string; name: string }; caps: Caps; today: UsageDay; cap_cost: CapCost; paused: PauseInfo | null } {
  const caps: Caps = off ? { ...NO_CAPS } : capsOf(hub, findAgent(hub, nameOrId).id);
  if (!off) {
    for (const k of CAP_NAMES) if (Object.hasOwn(patch, k)) caps[k] = checkCap(k, patch[k], k !== 'cost_usd');
  }
  const u = hub.write(() => {
    const u = findAgent(hub, nameOrId);
    storeCaps(hub.db, u.id, caps);
    return u;
  });
  remember(hub, u.id, { caps });
  const today = todayOf(hub, u.id);
  tripIfOverCap(hub, u.id, today);
  return {
    agent: { id: u.id, name: u.name },
    caps,
    today: { ...today },
    cap_cost: capCostOf(hub, u.id, today),
    paused: pauseOf(hub, u.id),
  };
}

// ---- usage counters --------------------------------------------------------------------------------

interface Counters {
  /** Today's totals per agent (loaded once per agent per day, then counted in memory). */
  today: Map<string, UsageDay>;
  /** Not yet flushed, per `${agent}\n${day}`. */
  pending: Map<string, UsageDay & { user_id: string }>;
  /** Today's measured cost per agent: what its harness reported (the flight recorder, hub/features/ledger). */
  measured: Map<string, { day: string; usd: number }>;
  timer: NodeJS.Timeout | undefined;
}

const FLUSH_MS = 1000;

function todayOf(hub: ControlsHub, agentId: string): UsageDay {
  const c = hub.services.controls.counters;
  const day = localDay(hub.now());
  let t = c.today.get(agentId);
  if (!t || t.day !== day) {
    const stored = usageOn(hub.db, agentId, day);
    const pend = c.pending.get(`${agentId}\n${day}`);
    t = emptyUsage(day);
    for (const src of [stored, pend]) {
      if (!src) continue;
      t.input_tokens += src.input_tokens;
      t.output_tokens += src.output_tokens;
      t.cost_usd += src.cost_usd;
      t.messages += src.messages;
      t.tool_calls += src.tool_calls;
    }
    c.today.set(agentId, t);
  }
  return t;
}

function add(hub: ControlsHub, agentId: string, d: Partial<Omit<UsageDay, 'day'>>): UsageDay {
  const c = hub.services.controls.counters;
  const t = todayOf(hub, agentId);
  const key = `${agentId}\n${t.day}`;
  let p = c.pending.get(key);
  if (!p) c.pending.set(key, (p = { user_id: agentId, ...emptyUsage(t.day) }));
  for (const k of ['input_tokens', 'output_tokens', 'cost_usd', 'messages', 'tool_calls'] as const) {
    const v = d[k];
    if (v) {
      t[k] += v;
      p[k] += v;
    }
  }
  hub.fleetChanged(); // the owner sees today's usage live (hub/control/fleet-live.ts)
  if (!c.timer) {
    c.timer = setTimeout(() => {
      c.timer = undefined;
      flushUsage(hub);
    }, FLUSH_MS);
    c.timer.unref();
  }
  return t;
}

/** Writes the counted usage to usage_daily (one upsert per agent and day); kept for later when the disk is full. */
export function flushUsage(hub: ControlsHub): void {
  const c = hub.services.controls.countersIfAny;
  if (!c || c.pending.size === 0 || !hub.db.open) return;
  const rows = [...c.pending.values()];
  try {
    tx(hub.db, () => {
      for (const r of rows) addUsage(hub.db, r);
    });
    c.pending.clear();
  } catch (err) {
    if (!hub.storageFailure(err)) throw err;
  }
}

/** Counts one tool call of an agent (and a message for the tools that send one); a cap reached pauses it. */
export function countToolCall(hub: ControlsHub, agentId: string, tool: string): void {
  const t = add(hub, agentId, { tool_calls: 1, messages: MESSAGE_TOOLS.has(tool) ? 1 : 0 });
  tripIfOverCap(hub, agentId, t);
}

/**
 * The usage an agent reports in progress data: {"usage": {"input_tokens", "output_tokens", "cost_usd"}},
 * each optional, numbers ≥ 0. Returns undefined when data has no usage; a malformed one is refused.
 */
export function usageIn(data: unknown): { input_tokens: number; output_tokens: number; cost_usd: number } | undefined {
  if (!data || typeof data !== 'object' || Array.isArray(data) || !Object.hasOwn(data, 'usage')) return undefined;
  const u = (data as { usage: unknown }).usage;
  const bad = (why: string) =>
    new HubError(
      'invalid_argument',
      `data.usage${why}.`,
      'Report usage as data: {"usage": {"input_tokens": 1200, "output_tokens": 300, "cost_usd": 0.02}} (each field optional, numbers ≥ 0).',
    );
  if (!u || typeof u !== 'object' || Array.isArray(u)) throw bad(' must be an object');
  const out = { input_tokens: 0, output_tokens: 0, cost_usd: 0 };
  for (const k of Object.keys(out) as Array<keyof typeof out>) {
    const v = (u as Record<string, unknown>)[k];
    if (v === undefined) continue;
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1e12 || (k !== 'cost_usd' && !Number.isInteger(v)))
      throw bad(`.${k} must be a ${k === 'cost_usd' ? 'number' : 'whole number'} from 0 to 1e12`);
    out[k] = v;
  }
  return out;
}

/** Adds usage an agent reported (progress data.usage, already checked by usageIn); a cap reached pauses it. */
export function recordUsage(hub: ControlsHub, agentId: string, data: unknown): void {
  const u = usageIn(data);
  if (!u || (!u.input_tokens && !u.output_tokens && !u.cost_usd)) return;
  tripIfOverCap(hub, agentId, add(hub, agentId, u));
}

/** Today's cost as the agent's harness measured it (0 before its first report today). */
function measuredToday(hub: ControlsHub, agentId: string): { day: string; usd: number } {
  const m = hub.services.controls.counters.measured;
  const day = localDay(hub.now());
  let t = m.get(agentId);
  if (!t || t.day !== day) m.set(agentId, (t = { day, usd: measuredCostOn(hub.db, agentId, day) }));
  return t;
}

/**
 * Adds cost the agent's harness measured (recorded in the ledger already, committed): from then on the daily cost cap
 * counts the measured figure, not what the agent reports in progress; a cap crossed pauses the agent at once.
 */
export function addMeasuredCost(hub: ControlsHub, agentId: string, usd: number): void {
  if (!(usd > 0)) return;
  // Today's figure not yet held: it is read whole from the ledger, where this cost is already (not added twice).
  const held = hub.services.controls.counters.measured.get(agentId)?.day === localDay(hub.now());
  const today = measuredToday(hub, agentId);
  if (held) today.usd += usd;
  hub.fleetChanged();
  tripIfOverCap(hub, agentId, todayOf(hub, agentId));
}

/** Today's cost as the daily cost cap counts it (the measured figure once there is any), for the owner. */
function capCostOf(hub: ControlsHub, agentId: string, today: UsageDay): CapCost {
  return capCost(today, measuredToday(hub, agentId).usd);
}

function tripIfOverCap(hub: ControlsHub, agentId: string, today: UsageDay): void {
  const ctl = controls(hub).get(agentId);
  if (!ctl || ctl.paused) return;
  const hit = capReached(ctl.caps, today, ctl.caps.cost_usd != null ? measuredToday(hub, agentId).usd : 0);
  if (!hit) return;
  const r = pauseAgent(hub, agentId, { by: 'budget', detail: hit.detail });
  if (r.changed) {
    // The owner is told at once (the UI shows it; the desktop app raises a notification).
    hub.bus.publish({
      kind: 'hub',
      value: { budget_paused: { agent: r.agent, cap: hit.cap, detail: hit.detail, at: r.paused?.since ?? hub.now() } },
    });
  }
}

// ---- what the owner and the agent see --------------------------------------------------------------

/** Days from `days - 1` days ago to today, YYYY-MM-DD, oldest first. */
function lastDays(now: number, days: number): string[] {
  const out: string[] = [];
  const d = new Date(now);
  for (let i = days - 1; i >= 0; i--) {
    const x = new Date(d.getFullYear(), d.getMonth(), d.getDate() - i, 12);
    out.push(localDay(x.getTime()));
  }
  return out;
}

/** Per agent: pause, caps, today's usage and the last 14 days (the fleet view). */
export function fleetControls(hub: ControlsHub): { agents: AgentControlView[]; today: string } {
  flushUsage(hub);
  const days = lastDays(hub.now(), USAGE_DAYS);
  const rows = usageSince(hub.db, days[0]!);
  const byAgent = new Map<string, Map<string, UsageDay>>();
  for (const r of rows) {
    let m = byAgent.get(r.user_id);
    if (!m) byAgent.set(r.user_id, (m = new Map()));
    m.set(r.day, {
      day: r.day,
      input_tokens: r.input_tokens,
      output_tokens: r.output_tokens,
      cost_usd: r.cost_usd,
      messages: r.messages,
      tool_calls: r.tool_calls,
    });
  }
  const agents = agentRefs(hub).map((a) => {
    const m = byAgent.get(a.id);
    const series = days.map((d) => m?.get(d) ?? emptyUsage(d));
    return {
      agent: { id: a.id, name: a.name },
      paused: pauseOf(hub, a.id),
      caps: capsOf(hub, a.id),
      today: series[series.length - 1]!,
      cap_cost: capCostOf(hub, a.id, series[series.length - 1]!),
      days: series,
    };
  });
  return { agents, today: days[days.length - 1]! };
}

/** Per agent: pause, caps and today's usage as counted in memory (the live fleet, hub/control/fleet-live.ts; no write). */
export function liveControls(
  hub: ControlsHub,
  list: ReadonlyArray<{ id: string; name: string }> = agentRefs(hub),
): { agents: AgentControlLive[]; today: string } {
  const agents = list.map((a) => {
    const today = { ...todayOf(hub, a.id) };
    return {
      agent: { id: a.id, name: a.name },
      paused: pauseOf(hub, a.id),
      caps: capsOf(hub, a.id),
      today,
      cap_cost: capCostOf(hub, a.id, today),
    };
  });
  return { agents, today: localDay(hub.now()) };
}

/** What whoami tells an agent about its own controls. */
export function controlForAgent(
  hub: ControlsHub,
  agentId: string,
): { paused: boolean; pause: PauseInfo | null; caps: Caps; usage_today: UsageDay } {
  const p = pauseOf(hub, agentId);
  return { paused: p != null, pause: p, caps: capsOf(hub, agentId), usage_today: { ...todayOf(hub, agentId) } };
}

/**
 * Watches for pauses written by another process (`perch agent pause` while the hub runs): a cheap check
 * of PRAGMA data_version a few times a second; a changed pause wakes the agent's waiting get_updates.
 * Started by the running hub (app.ts); stops when it closes.
 */
export function startControlWatch(hub: ControlsHub): void {
  const timer = setInterval(() => {
    try {
      if (hub.db.open) controls(hub);
    } catch {
      /* the next tick tries again */
    }
  }, 250);
  timer.unref();
  hub.onClose(() => clearInterval(timer));
}
