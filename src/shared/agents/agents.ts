// Agents and their role config, as every door shows them.
import type { UserKind } from '../types';
import type { AgentBrakes } from './brakes';

/** Lowercase a-z 0-9 - _, 1..40 characters, starting with a letter or digit. */
export const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;

/** A valid name close to what was typed ("My Kit" → "my-kit", "Café bot!" → "cafe-bot"), or '' when nothing usable is left. */
export function suggestName(input: string): string {
  return input
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+/, '')
    .slice(0, 40)
    .replace(/-+$/, '');
}

/** Why a name is not one, in one line with a valid one to use instead when there is one; null: it is valid. */
export function nameProblem(name: string): string | null {
  if (NAME_PATTERN.test(name)) return null;
  if (!name) return 'A name is needed: 1–40 characters, a–z, 0–9, - and _.';
  const why =
    name.length > 40
      ? 'is longer than 40 characters'
      : /[A-Z]/.test(name)
        ? 'has capital letters'
        : /\s/.test(name)
          ? 'has spaces'
          : /^[-_]/.test(name)
            ? 'starts with - or _'
            : 'has characters other than a–z, 0–9, - and _';
  const s = suggestName(name);
  return `"${name}" ${why}: names use a–z, 0–9, - and _ only${s ? `. Try "${s}".` : '.'}`;
}

export interface AgentConfig {
  /** The role: its name, what it is for and what to follow. */
  name: string;
  description: string;
  instructions: string;
  skills: Array<{ name: string; description?: string; url?: string }>;
  mcp_servers: Array<{ name: string; url?: string; command?: string; args?: string[]; description?: string }>;
  apis: Array<{ name: string; base_url?: string; description?: string; docs_url?: string }>;
}

export interface AgentSummary {
  id: string;
  name: string;
  kind: UserKind;
  description: string;
  created_at: number;
  revoked: boolean;
  key_hint: string | null;
  config_version: number;
  config: AgentConfig;
  waiting: boolean;
  /** Review mode: the agent's sends are held for the owner (hub/features/review/review.ts). */
  review: boolean;
  /** Owner control: why the agent is paused, or null when it runs (shared/agents/control.ts). */
  paused: import('./control').PauseInfo | null;
  /** Its brakes (hub/control/brakes.ts): budget per hour per conversation and the fixed numbers. */
  brakes?: AgentBrakes;
  /** When it last called and last worked, since the hub started (hub/control/presence.ts; the agent state, shared/agents/agent-state.ts). */
  presence?: import('./agent-state').AgentPresence;
  /** Its harness session's last hook event (Claude Code, Codex: hub/control/harness.ts), or null. */
  harness?: import('./harness').HarnessStatus | null;
  /** Where its own key (and its wake runs' keys) may connect from (shared/agents/places.ts). */
  from?: string[];
  /** The harness configs `perch connect --write` recorded for it (shared/agents/connections.ts). */
  connections?: Array<{ client: string; scope: 'user' | 'project'; dir: string }>;
}

function list<T>(v: unknown): T[] {
  return Array.isArray(v) ? (v.filter((x) => x && typeof x === 'object') as T[]) : [];
}

export function normalizeConfig(c: Partial<AgentConfig>): AgentConfig {
  return {
    name: String(c.name ?? ''),
    description: String(c.description ?? ''),
    instructions: String(c.instructions ?? ''),
    skills: list(c.skills),
    mcp_servers: list(c.mcp_servers),
    apis: list(c.apis),
  };
}

/**
 * The owner's live stream item { kind: 'hub', value: { fleet } } (hub/control/fleet-live.ts): the agents list and their
 * controls, pushed when they change. outside: another process (the perch CLI) wrote to the database.
 */
export interface FleetLive {
  agents: AgentSummary[];
  controls: import('./control').AgentControlLive[];
  today: string;
  outside?: true;
  /** Wake runs across the fleet: the limit, what runs and what waits for a slot (machine and samples null here: see wake_run). */
  wake?: import('./wake').WakeLimits;
}

/** Edits (insert, delete, replace, swap of two neighbours) between two short strings. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  return d[a.length]![b.length]!;
}

/**
 * The name of `names` someone most likely meant by `typed` (a typo, other capitals, a prefix or the start of a
 * longer name): for "did you mean kit?". Undefined when none is close.
 */
export function closestName(typed: string, names: readonly string[]): string | undefined {
  const t = typed.toLowerCase().slice(0, 80);
  let best: { name: string; d: number } | undefined;
  for (const name of names) {
    const n = name.toLowerCase();
    const d = n === t ? 0 : t.length >= 2 && (n.startsWith(t) || t.startsWith(n)) ? 1 : editDistance(t, n);
    if (d <= Math.max(1, Math.floor(Math.max(t.length, n.length) / 3)) && (!best || d < best.d)) best = { name, d };
  }
  return best?.name;
}
