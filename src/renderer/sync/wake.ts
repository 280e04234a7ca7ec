// Wake runs in the UI: load runs and setups, apply live run changes, set/stop, read a run's log tail.
import { api } from '../transport';
import type { OwnerInput } from '../../shared/api/owner-api';
import type { WakeRunView } from '../../shared/agents/wake';
import type { HubLive } from '../../shared/api/event-log';
import { wakeStore } from '../stores/wake';
import { laptopOnly } from '../stores/paired-device';
import { attempt, toast } from './common';

const KEEP = 200;

function putRuns(runs: WakeRunView[]): void {
  wakeStore.setState((s) => {
    const next = { ...s.runs };
    for (const r of runs) next[r.id] = r;
    const all = Object.values(next)
      .sort((a, b) => b.started_at - a.started_at)
      .slice(0, KEEP);
    return { runs: Object.fromEntries(all.map((r) => [r.id, r])) };
  });
}

export async function loadWakeRuns(): Promise<void> {
  const { runs } = await api('wake.runs', { limit: 100 });
  putRuns(runs);
  await loadWakeLimits().catch(() => {}); // what runs and waits across the fleet (components/WakeQueue.tsx)
}

export async function loadWakeState(agent: string): Promise<void> {
  if (laptopOnly('wake.get')) return; // an agent's wake setup is the laptop's: a paired phone has its runs only
  const { wake } = await api('wake.get', { agent });
  wakeStore.setState((s) => ({ byAgent: { ...s.byAgent, [wake.agent.id]: wake } }));
}

/** A live item from the hub: a run started, ran or ended; or Perch switched an agent's wake action off. */
export function applyWakeLive(value: Partial<HubLive>): void {
  const run = value.wake_run;
  if (run && typeof run.id === 'string') {
    putRuns([run]);
    if (run.status !== 'running') void loadWakeState(run.agent_id).catch(() => {});
  }
  // The fleet item carries the queue and the running runs (hub/control/fleet-live.ts): Fleet cards and Settings follow it.
  const limits = value.fleet?.wake;
  if (limits && Array.isArray(limits.queued))
    wakeStore.setState((s) => ({
      limits: { ...limits, machine: s.limits?.machine ?? null, containment: s.limits?.containment ?? null },
    }));
  const mem = value.wake_memory;
  if (mem && typeof mem.reason === 'string') toast(mem.reason, 'error');
  const off = value.wake_off;
  if (off && typeof off.reason === 'string') {
    toast(off.reason, 'error');
    void loadWakeState(off.agent_id).catch(() => {});
  }
}

export type WakeInput = Omit<OwnerInput<'wake.set'>, 'agent'>;

export async function loadWakeLimits(): Promise<void> {
  if (laptopOnly('wake.limits.get')) return;
  const { limits } = await api('wake.limits.get', {});
  wakeStore.setState({ limits });
}

export const setWakeLimits = (input: OwnerInput<'wake.limits.set'>) =>
  attempt('Limits not saved', async () => {
    const { limits } = await api('wake.limits.set', input);
    wakeStore.setState({ limits });
    toast(`At most ${limits.at_once} wake run${limits.at_once === 1 ? '' : 's'} at once.`);
    return limits;
  });

/** A queued run: Start now (over the limit, this once), or Cancel. */
export const startQueuedRun = (agent: string) => attempt('Not started', () => api('wake.start_now', { agent }));
export const cancelQueuedRun = (agent: string) => attempt('Not cancelled', () => api('wake.stop', { agent }));

export const setWake = (agent: string, input: WakeInput) =>
  attempt('Wake action not saved', async () => {
    const { wake } = await api('wake.set', { agent, ...input });
    wakeStore.setState((s) => ({ byAgent: { ...s.byAgent, [wake.agent.id]: wake } }));
    toast(wake.action ? `${wake.agent.name} will be woken.` : `${wake.agent.name} is no longer woken by Perch.`);
    return wake;
  });

export const stopWakeRun = (agent: string) =>
  attempt('Not stopped', async () => {
    const r = await api('wake.stop', { agent });
    if (!r.stopped) toast('Nothing was running.');
    return r;
  });

/** The newest part of a run's output (read for the log panel; the panel re-reads it while the run runs). */
export function wakeLogTail(runId: string): Promise<{ run: WakeRunView; tail: string }> {
  return api('wake.log', { run_id: runId, max_bytes: 16 * 1024 });
}
