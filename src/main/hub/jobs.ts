// Background work of the hub (expiry timers and the like), started once by the composition root.
import type { Hub } from './hub';

type Job = (hub: Hub) => void;
const jobs: Job[] = [];

/** Contract modules register jobs that need a running hub (e.g. request expiry). */
export function registerJob(job: Job): void {
  jobs.push(job);
}

export function startBackgroundJobs(hub: Hub): void {
  for (const job of jobs) job(hub);
}
