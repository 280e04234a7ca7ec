// Work cut into steps: an iterator whose every next() is one short step (a walk over the ledger, a batch written a
// few records at a time). Who runs it decides whether the event loop is given back between steps (the hub:
// src/main/hub/core/step-lane.ts) or not (allSteps: the CLI, a test).

/** Runs the steps to the end at once; returns the iterator's return value. */
export function allSteps<T>(steps: Iterator<unknown, T>): T {
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}
