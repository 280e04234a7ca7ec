// Wake runs across the fleet, as the owner sees them: a Fleet card's queued run ("queued (2nd), waiting for a free
// slot", Start now, Cancel), a run's memory and CPU (live while it runs, its peak after), and the Settings section with
// the limit of runs at once, the memory floor, and what runs and waits. The queue follows each fleet item (sync/wake.ts).
import { useEffect, useState } from 'react';
import type { WakeRunView } from '../../../shared/agents/wake';
import { WAKE_LIMIT_RANGE } from '../../../shared/agents/wake';
import { useWake } from '../../stores/wake';
import { useLaptopOnly } from '../../stores/paired-device';
import { cancelQueuedRun, loadWakeLimits, setWakeLimits, startQueuedRun, stopWakeRun } from '../../sync';
import { bytes } from '../../format';
import { OnTheLaptop } from '../common';

/** 1st, 2nd, 3rd, 4th … */
export function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** On a Fleet card: the agent's run waiting for a free slot, with Start now (over the limit, once) and Cancel. */
export function QueuedRunLine({ agentId, name }: { agentId: string; name: string }) {
  const queued = useWake((s) => s.limits?.queued.find((q) => q.agent.id === agentId));
  const blocked = useWake((s) => s.limits?.blocked ?? null);
  if (!queued) return null;
  return (
    <p className="fleet-wake small" aria-label={`${name} queued wake run`}>
      <span className="chip">queued ({ordinal(queued.position)}), waiting for a free slot</span>
      {blocked && <span className="muted"> {blocked}</span>}{' '}
      <button type="button" className="btn btn-ghost btn-small" onClick={() => void startQueuedRun(agentId)}>
        Start now
      </button>
      <button type="button" className="btn btn-danger-ghost btn-small" onClick={() => void cancelQueuedRun(agentId)}>
        Cancel
      </button>
    </p>
  );
}

/** A run's memory and CPU: live while it runs, its peak and CPU seconds once it ended ('' when never sampled). */
export function runResourcesText(run: Pick<WakeRunView, 'status' | 'live' | 'peak_rss_bytes' | 'cpu_secs'>): string {
  if (run.status === 'running') return run.live ? `${bytes(run.live.rss_bytes)} · ${run.live.cpu_pct}% CPU` : '';
  if (run.peak_rss_bytes == null) return '';
  return `peak ${bytes(run.peak_rss_bytes)} · ${(run.cpu_secs ?? 0).toFixed(1)} s CPU`;
}

export function RunResources({ run }: { run: WakeRunView }) {
  const text = runResourcesText(run);
  return text ? (
    <span className="muted" aria-label="Run memory and CPU">
      {' '}
      {text}
    </span>
  ) : null;
}

/** Settings: how many wake runs at once, the memory floor, and what runs and waits now (laptop only). */
export function WakeLimitsSection() {
  const onLaptopOnly = useLaptopOnly('wake.limits.get');
  const limits = useWake((s) => s.limits);
  const runs = useWake((s) => s.runs);
  const [atOnce, setAtOnce] = useState('');
  const [floor, setFloor] = useState('');
  useEffect(() => {
    if (!onLaptopOnly) void loadWakeLimits().catch(() => {});
  }, [onLaptopOnly]);
  useEffect(() => {
    if (limits) {
      setAtOnce(String(limits.at_once));
      setFloor(String(limits.min_free_mb));
    }
  }, [limits?.at_once, limits?.min_free_mb]);
  if (onLaptopOnly) {
    return (
      <section className="settings-section" aria-labelledby="settings-wake">
        <h2 id="settings-wake">Wake runs</h2>
        <OnTheLaptop>The limits of wake runs are set on the laptop.</OnTheLaptop>
      </section>
    );
  }
  const save = () => void setWakeLimits({ at_once: Number(atOnce), min_free_mb: Number(floor) });
  return (
    <section className="settings-section" aria-labelledby="settings-wake">
      <h2 id="settings-wake">Wake runs</h2>
      <p className="muted">
        How many agents Perch may start at the same time. Wakes beyond wait in a queue: yours first, then first come, first served; the next
        starts as soon as a run ends. No new run starts while the computer has less memory available than the floor.
      </p>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          save();
        }}
      >
        <label>
          Runs at once{' '}
          <input
            type="number"
            min={WAKE_LIMIT_RANGE.atOnce.min}
            max={WAKE_LIMIT_RANGE.atOnce.max}
            value={atOnce}
            onChange={(e) => setAtOnce(e.target.value)}
            aria-label="Runs at once"
            style={{ width: '5em' }}
          />
        </label>{' '}
        <label>
          Memory floor (MB){' '}
          <input
            type="number"
            min={0}
            value={floor}
            onChange={(e) => setFloor(e.target.value)}
            aria-label="Memory floor (MB)"
            style={{ width: '7em' }}
          />
        </label>{' '}
        <button type="submit" className="btn btn-small">
          Save
        </button>
      </form>
      {limits && (
        <div role="status" aria-label="Wake runs now">
          <p className="muted small">
            {limits.at_once_default ? "This computer's default" : 'Set by you'}
            {limits.machine &&
              ` · ${limits.machine.cores} cores, ${limits.machine.available_mb} of ${limits.machine.total_mb} MB available`}
          </p>
          {limits.blocked && <p className="small">{limits.blocked}</p>}
          {limits.containment && (
            <p className="small" aria-label="How runs are held">
              {limits.containment.line}
            </p>
          )}
          <p className="small">Running ({limits.running.length}):</p>
          <ul className="small" aria-label="Running wake runs">
            {limits.running.map((r) => {
              const run = runs[r.run_id];
              const live = run?.live ?? r.live;
              return (
                <li key={r.run_id}>
                  {r.agent.name} <span className="muted">since {new Date(r.since).toLocaleTimeString()}</span>
                  {live && (
                    <span className="muted">
                      {' '}
                      · {bytes(live.rss_bytes)} · {live.cpu_pct}% CPU
                    </span>
                  )}{' '}
                  {run && (
                    <button type="button" className="btn btn-danger-ghost btn-small" onClick={() => void stopWakeRun(r.agent.id)}>
                      Stop
                    </button>
                  )}
                </li>
              );
            })}
          </ul>
          {limits.queued.length > 0 && (
            <>
              <p className="small">Queued ({limits.queued.length}):</p>
              <ol className="small" aria-label="Queued wake runs">
                {limits.queued.map((q) => (
                  <li key={q.agent.id}>
                    {q.agent.name}{' '}
                    <span className="muted">
                      since {new Date(q.since).toLocaleTimeString()}
                      {q.by_owner ? ' · woken by you' : ''}
                    </span>
                  </li>
                ))}
              </ol>
            </>
          )}
        </div>
      )}
    </section>
  );
}
