// Wake runs, a run as the owner sees it: its record, its agent's name, its duration and, while it runs here, the last
// sample of its process tree. Published on each change (wake-runs.ts), listed and read by wake-views.ts.
import type { Hub } from '../core/hub';
import type { WakeRunRow } from '../../store/tables/agents/wake';
import type { WakeResources, WakeRunStatus, WakeRunView, WakeSummary } from '../../../shared/agents/wake';

/** The hub as a run's view reaches it: a running run's last sample is the wake runs' (wake-runs.ts). */
type RunViewHub = Hub<{ wakeRuns: { liveResources(runId: string): WakeResources | null } }>;

export function runView(hub: RunViewHub, r: WakeRunRow): WakeRunView {
  let name = r.agent_id;
  try {
    name = hub.user(r.agent_id).name;
  } catch {
    /* gone */
  }
  const end = r.ended_at;
  return {
    id: r.id,
    agent_id: r.agent_id,
    agent_name: name,
    kind: r.kind as WakeRunView['kind'],
    status: r.status as WakeRunStatus,
    woken_at: r.woken_at,
    started_at: r.started_at,
    running_at: r.running_at,
    first_call_at: r.first_call_at,
    ended_at: end,
    duration_ms: end != null ? Math.round(end - r.started_at) : null,
    exit_code: r.exit_code,
    signal: r.signal,
    error: r.error,
    why: JSON.parse(r.why) as WakeSummary,
    usage: r.usage ? JSON.parse(r.usage) : null,
    pid: r.pid,
    peak_rss_bytes: r.peak_rss_bytes ?? null,
    cpu_secs: r.cpu_secs ?? null,
    ...(r.status === 'running' ? { live: hub.services.wakeRuns.liveResources(r.id) } : {}),
  };
}
