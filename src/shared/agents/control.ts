// Owner control of agents: pause (the kill switch), daily usage and spend caps.
// Pure types and rules shared by every door (hub, owner API, UI, CLI).

/** Why an agent is stopped: the owner paused it, or one of its daily caps was reached. */
export type PauseBy = 'owner' | 'budget';

/** An agent's pause, as every door shows it. Absent (null) when the agent runs. */
export interface PauseInfo {
  by: PauseBy;
  /** The owner's optional reason; 'budget' when a daily cap paused it. */
  reason: string | null;
  /** For a budget pause: which cap was reached and how, e.g. "messages: 50 of 50 today". */
  detail: string | null;
  since: number;
}

/** Per-agent daily caps; null means no cap. */
export interface Caps {
  cost_usd: number | null;
  messages: number | null;
  tool_calls: number | null;
}

export const NO_CAPS: Caps = { cost_usd: null, messages: null, tool_calls: null };

export type CapName = keyof Caps;
export const CAP_NAMES: readonly CapName[] = ['cost_usd', 'messages', 'tool_calls'];

/** One agent's usage on one day (the owner's local time). */
export interface UsageDay {
  /** YYYY-MM-DD in the hub's (owner's) local time. */
  day: string;
  input_tokens: number;
  output_tokens: number;
  cost_usd: number;
  messages: number;
  tool_calls: number;
}

/**
 * Today's cost as the daily cost cap counts it: what the agent's harness measured (the cost ledger) once there is any,
 * else what the agent reported itself in progress (`today.cost_usd`, which stays as reported).
 */
export interface CapCost {
  usd: number;
  source: 'measured' | 'self-reported';
}

/** What the fleet view shows per agent. */
export interface AgentControlView {
  agent: { id: string; name: string };
  paused: PauseInfo | null;
  caps: Caps;
  today: UsageDay;
  cap_cost: CapCost;
  /** The last 14 days, oldest first (today last), days without use as zeros. */
  days: UsageDay[];
}

/** One agent's controls as pushed live (the fleet item): pause, caps and today's usage, without the 14 days. */
export interface AgentControlLive {
  agent: { id: string; name: string };
  paused: PauseInfo | null;
  caps: Caps;
  today: UsageDay;
  cap_cost: CapCost;
}

/** The tools that send something others see (counted as messages). */
export const MESSAGE_TOOLS: ReadonlySet<string> = new Set(['send_message', 'send_card', 'send_file']);

/**
 * Writing tools a paused agent may still call: get_updates (it confirms delivery; it is how the agent
 * learns it was paused and resumed) and progress (how it reports what it already did and spent).
 * Every read-only tool works too (the catalog marks them).
 */
export const ALLOWED_WHILE_PAUSED: ReadonlySet<string> = new Set(['get_updates', 'progress']);

/** The local calendar day of a time, YYYY-MM-DD (the owner's local time: the hub runs on the owner's machine). */
export function localDay(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

export function emptyUsage(day: string): UsageDay {
  return { day, input_tokens: 0, output_tokens: 0, cost_usd: 0, messages: 0, tool_calls: 0 };
}

/**
 * The first cap that usage has reached, or undefined. The cost cap counts `measuredCostUsd` (what the agent's harness
 * reported to the flight recorder today) once there is any, else the cost the agent reported itself in progress; the
 * detail says which.
 */
export function capReached(caps: Caps, u: UsageDay, measuredCostUsd = 0): { cap: CapName; detail: string } | undefined {
  const cost = capCost(u, measuredCostUsd);
  if (caps.cost_usd != null && cost.usd >= caps.cost_usd)
    return { cap: 'cost_usd', detail: `cost_usd: $${round(cost.usd)} of $${caps.cost_usd} today, ${capCostSource(cost)}` };
  if (caps.messages != null && u.messages >= caps.messages)
    return { cap: 'messages', detail: `messages: ${u.messages} of ${caps.messages} today` };
  if (caps.tool_calls != null && u.tool_calls >= caps.tool_calls)
    return { cap: 'tool_calls', detail: `tool_calls: ${u.tool_calls} of ${caps.tool_calls} today` };
  return undefined;
}

/** Today's cost as the cost cap counts it (CapCost): the measured figure once there is any, else the self-reported. */
export function capCost(u: UsageDay, measuredCostUsd = 0): CapCost {
  return measuredCostUsd > 0 ? { usd: measuredCostUsd, source: 'measured' } : { usd: u.cost_usd, source: 'self-reported' };
}

/** Where a CapCost comes from, in words. */
export function capCostSource(c: CapCost): string {
  return c.source === 'measured' ? "measured from the harness's own reports" : 'self-reported in progress';
}

function round(n: number): number {
  return Math.round(n * 10000) / 10000;
}

/** How many days of usage the fleet view charts. */
export const USAGE_DAYS = 14;
