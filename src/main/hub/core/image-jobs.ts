// Image jobs share the CPU: the sharp work of send_file (decode, clean, thumbnail: hub/features/files/files.ts) runs at most
// LIMITS.imageJobsPerHub at a time in the hub and LIMITS.imageJobsPerAgent per agent, so one agent sending many
// images cannot take every core. A job over a limit waits its turn, first come first served (a job whose agent is
// at its own limit lets later jobs of other agents go first). The wait is bounded: at most
// LIMITS.imageQueuePerAgent jobs of one agent and LIMITS.imageQueuePerHub in all may wait; past that the call is
// refused at once with rate_limited (retry later), before any work is done. The hub holds its slots (hub.imageJobs).
import { HubError } from '../../../shared/errors';
import { LIMITS } from '../../../shared/limits';

export interface JobLimits {
  perHub: number;
  perAgent: number;
  queuePerHub: number;
  queuePerAgent: number;
}

const DEFAULT_LIMITS: JobLimits = {
  perHub: LIMITS.imageJobsPerHub,
  perAgent: LIMITS.imageJobsPerAgent,
  queuePerHub: LIMITS.imageQueuePerHub,
  queuePerAgent: LIMITS.imageQueuePerAgent,
};

interface Waiting {
  agentId: string;
  start: () => void;
}

/** Slots for jobs of agents: running ones counted per agent and in all, the others waiting in order. */
export class JobSlots {
  private running = 0;
  private readonly runningBy = new Map<string, number>();
  private readonly queue: Waiting[] = [];
  private readonly waitingBy = new Map<string, number>();

  constructor(private readonly limits: JobLimits = DEFAULT_LIMITS) {}

  /** Runs job in a slot of the agent: at once, after its turn in the queue, or refused (rate_limited) when the queue is full. */
  async run<T>(agentId: string, job: () => Promise<T>): Promise<T> {
    if (!this.mayStart(agentId)) {
      const mine = this.waitingBy.get(agentId) ?? 0;
      if (mine >= this.limits.queuePerAgent || this.queue.length >= this.limits.queuePerHub) {
        throw new HubError(
          'rate_limited',
          mine >= this.limits.queuePerAgent
            ? `You already have ${this.runningCount(agentId) + mine} images being processed or waiting (at most ${this.limits.perAgent} at a time and ${this.limits.queuePerAgent} waiting); this one was not processed.`
            : `The hub is busy processing images (${this.queue.length} waiting); this one was not processed.`,
          'Send images one at a time: wait for the previous send_file to answer, then retry (whoami lists the limits).',
          { retry_after_ms: 1000 },
        );
      }
      await new Promise<void>((start) => {
        this.queue.push({ agentId, start });
        this.waitingBy.set(agentId, mine + 1);
      });
    } else {
      this.take(agentId);
    }
    try {
      return await job();
    } finally {
      this.release(agentId);
    }
  }

  /** Jobs running now, of one agent or in all. */
  runningCount(agentId?: string): number {
    return agentId === undefined ? this.running : (this.runningBy.get(agentId) ?? 0);
  }

  /** Jobs waiting now, of one agent or in all. */
  waitingCount(agentId?: string): number {
    return agentId === undefined ? this.queue.length : (this.waitingBy.get(agentId) ?? 0);
  }

  private mayStart(agentId: string): boolean {
    return this.running < this.limits.perHub && (this.runningBy.get(agentId) ?? 0) < this.limits.perAgent;
  }

  private take(agentId: string): void {
    this.running += 1;
    this.runningBy.set(agentId, (this.runningBy.get(agentId) ?? 0) + 1);
  }

  private release(agentId: string): void {
    this.running -= 1;
    const n = (this.runningBy.get(agentId) ?? 1) - 1;
    if (n > 0) this.runningBy.set(agentId, n);
    else this.runningBy.delete(agentId);
    // The first waiting jobs whose agents have room start, in order.
    for (let i = 0; i < this.queue.length && this.running < this.limits.perHub;) {
      const w = this.queue[i]!;
      if (!this.mayStart(w.agentId)) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      const left = (this.waitingBy.get(w.agentId) ?? 1) - 1;
      if (left > 0) this.waitingBy.set(w.agentId, left);
      else this.waitingBy.delete(w.agentId);
      this.take(w.agentId);
      w.start();
    }
  }
}
