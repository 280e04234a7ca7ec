// Wake runs, a run's resources as sampled: each sample of its process tree (the launcher's, every few seconds) gives
// the live figures the owner sees (memory now and at its peak, CPU time and share) and tells whether the run has been
// above its memory ceiling for longer than the grace (then the policy, wake-runs.ts, stops it like a timeout).
import type { WakeResources } from '../../../shared/agents/wake';
import type { TreeSample } from './launcher';
import { MiB } from './wake-queue';

/** The run's figures after a sample: the peak kept, CPU never going back, its share since the previous sample. */
export function nextResources(prev: WakeResources | undefined, s: TreeSample, now: number): WakeResources {
  const secs = prev ? (now - prev.at) / 1000 : 0;
  const cpu = Math.max(prev?.cpu_secs ?? 0, s.cpu_secs);
  return {
    rss_bytes: s.rss_bytes,
    peak_rss_bytes: Math.max(prev?.peak_rss_bytes ?? 0, s.rss_bytes),
    cpu_secs: Math.round(cpu * 100) / 100,
    cpu_pct: prev && secs > 0 ? Math.round(((cpu - prev.cpu_secs) / secs) * 100) : 0,
    at: now,
  };
}

/**
 * Since when the run is above its ceiling (undefined: it is not, or has no ceiling), and whether that has lasted the
 * grace.
 */
export function overCeiling(
  overSince: number | undefined,
  rssBytes: number,
  ceilingMb: number | undefined,
  now: number,
  graceMs: number,
): { overSince: number | undefined; overLong: boolean } {
  if (!ceilingMb || rssBytes <= ceilingMb * MiB) return { overSince: undefined, overLong: false };
  const since = overSince ?? now;
  return { overSince: since, overLong: now - since >= graceMs };
}
