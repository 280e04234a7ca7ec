// Work cut into short steps, so a long job never holds the event loop: an iterator whose every next() is one step.
// inTurns runs one job a step per turn of the event loop (a ledger search over millions of rows, ledger/calls.ts).
// A StepLane runs jobs one after the other, in the order they came, one step per turn of the event loop. The OTLP door
// records telemetry batches through one (src/main/mcp/otlp-door.ts): an agent's
// send_message that arrives while four exporters' batches are being written then waits behind at most one step of
// one batch on each of its turns (reading the request, the group commit, the answer), never behind a step of every
// batch in flight, nor behind several batches' JSON parsed in the same turn.
// A job is an iterator: each next() is one step; its return value is the job's result. A step that throws ends its
// job (the job's promise rejects) and the lane goes on with the next.

/** Runs the steps one per turn of the event loop (the first at once); resolves with the iterator's return value. */
export function inTurns<T>(steps: Iterator<unknown, T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const turn = () => {
      try {
        const r = steps.next();
        if (r.done) resolve(r.value);
        else setImmediate(turn);
      } catch (err) {
        reject(err);
      }
    };
    turn();
  });
}

interface Job {
  steps: Iterator<unknown, unknown>;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

export class StepLane {
  private readonly jobs: Job[] = [];
  private scheduled = false;
  private readonly turnBound = () => this.turn();

  /** Queues a job: its first step runs on a later turn, after the steps of every job queued before it. */
  run<T>(steps: Iterator<unknown, T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.jobs.push({ steps, resolve: resolve as (value: unknown) => void, reject });
      this.schedule();
    });
  }

  /** Jobs queued or running. */
  get size(): number {
    return this.jobs.length;
  }

  private schedule(): void {
    if (this.scheduled || this.jobs.length === 0) return;
    this.scheduled = true;
    setImmediate(this.turnBound);
  }

  private turn(): void {
    this.scheduled = false;
    const job = this.jobs[0]!;
    try {
      const r = job.steps.next();
      if (r.done) {
        this.jobs.shift();
        job.resolve(r.value);
      }
    } catch (err) {
      this.jobs.shift();
      job.reject(err);
    }
    this.schedule();
  }
}
