// Owner control: pause / resume one agent or all, daily caps, usage. Writes the agents and
// control stores; the live stream (live.ts) calls onControlEvent / onBudgetPaused.
import { USAGE_DAYS, type AgentControlView, type Caps } from '../../shared/agents/control';
import type { FleetLive } from '../../shared/agents/agents';
import type { HubLive } from '../../shared/api/event-log';
import type { EventType } from '../../shared/types';
import { api } from '../transport';
import { agentsStore } from '../stores/agents';
import { controlStore } from '../stores/control';
import { attempt, toast } from './common';
import { loadAgents } from './loaders';
import { moneyIn } from '../format';

export async function loadControls(): Promise<void> {
  const r = await api('agents.controls', {});
  controlStore.setState({ byAgent: Object.fromEntries(r.agents.map((a) => [a.agent.id, a])), today: r.today });
}

let refresh: ReturnType<typeof setTimeout> | undefined;
/** Re-reads agents and usage shortly (at most once per interval). */
export function refreshControlsSoon(ms = 300): void {
  if (refresh) return;
  refresh = setTimeout(() => {
    refresh = undefined;
    void Promise.all([loadAgents(), loadControls()]).catch(() => {});
  }, ms);
}

function refreshNow(): Promise<void> {
  return Promise.all([loadAgents(), loadControls()]).then(
    () => undefined,
    () => undefined,
  );
}

export const pauseAgent = (agent: string, reason?: string) =>
  attempt('Not paused', async () => {
    const r = await api('agents.pause', reason ? { agent, reason } : { agent });
    markPaused([r]);
    toast(`Paused ${r.agent.name}.`);
    void refreshNow();
    return r;
  });

export const resumeAgent = (agent: string) =>
  attempt('Not resumed', async () => {
    const r = await api('agents.resume', { agent });
    markPaused([r]);
    toast(`Resumed ${r.agent.name}.`);
    void refreshNow();
    return r;
  });

export const pauseAll = () =>
  attempt('Agents not paused', async () => {
    const r = await api('agents.pause_all', {});
    markPaused(r.agents);
    toast(r.agents.length ? `Paused all ${r.agents.length} agent${r.agents.length === 1 ? '' : 's'}.` : 'No agent to pause.');
    void refreshNow();
    return r;
  });

export const resumeAll = () =>
  attempt('Agents not resumed', async () => {
    const r = await api('agents.resume_all', {});
    markPaused(r.agents);
    toast(`Resumed ${r.agents.length} agent${r.agents.length === 1 ? '' : 's'}.`);
    void refreshNow();
    return r;
  });

export const setCaps = (agent: string, caps: Partial<Caps>) =>
  attempt('Caps not saved', async () => {
    const r = await api('agents.set_caps', { agent, ...caps });
    toast(`Saved ${r.agent.name}'s daily caps.`);
    void refreshNow();
    return r;
  });

/** The answer of a pause or resume, shown at once (the lists are re-read after). */
function markPaused(results: Array<{ agent: { id: string }; paused: import('../../shared/agents/control').PauseInfo | null }>): void {
  const by = new Map(results.map((r) => [r.agent.id, r.paused]));
  agentsStore.setState((s) => ({ list: s.list.map((a) => (by.has(a.id) ? { ...a, paused: by.get(a.id)! } : a)) }));
}

/** agent.paused / agent.resumed in the log (also when another process paused the agent). */
export function onControlEvent(type: EventType): void {
  if (type === 'agent.paused' || type === 'agent.resumed') refreshControlsSoon();
}

/** A daily cap paused an agent: the owner is told plainly. */
export function onBudgetPaused(v: HubLive['budget_paused']): void {
  if (!v.agent?.name) return;
  toast(
    `${v.agent.name} was paused: a daily cap was reached (${moneyIn(v.detail ?? 'budget')}). Raise the cap where you resume it.`,
    'error',
  );
  refreshControlsSoon(0);
}

/** A key was used from a place it may not connect from (told once per agent, key and place): what and how to allow it. */
export function onKeyPlaceRefused(v: HubLive['key_place_refused']): void {
  if (!v?.agent) return;
  toast(
    `${v.agent}'s key ${v.key_name} was refused from ${v.place} (${v.via}): it may connect from ${v.allowed.join(', ')} only. To allow it: ${v.how}`,
    'error',
  );
}

/**
 * The fleet pushed by the hub on the live stream (hub/control/fleet-live.ts) whenever the agents, their pause, caps or usage
 * change — here, in another window, on the phone, by the brakes and caps, or from the perch CLI: the agents list and
 * the controls follow at once, without a reload. Today's usage replaces the last day of the 14-day chart. After an
 * outside write (outside: true) the lists the CLI may also have changed are read again.
 */
export function applyFleetLive(f: FleetLive, reloadOthers: () => void): void {
  if (!Array.isArray(f.agents) || !Array.isArray(f.controls)) return;
  agentsStore.setState({ list: f.agents, loaded: true });
  controlStore.setState((s) => {
    const byAgent: Record<string, AgentControlView> = { ...s.byAgent };
    for (const c of f.controls) {
      const days = [...(byAgent[c.agent.id]?.days ?? [])];
      if (days.length && days[days.length - 1]!.day === c.today.day) days[days.length - 1] = c.today;
      else days.push(c.today);
      byAgent[c.agent.id] = { ...c, days: days.slice(-USAGE_DAYS) };
    }
    return { byAgent, today: f.today };
  });
  if (f.outside) {
    void loadControls().catch(() => {}); // the 14 days, as stored
    reloadOthers();
  }
}
