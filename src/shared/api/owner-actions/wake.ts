// Owner actions of wake runs: how Perch starts an agent that is not listening, and the limits across the fleet.
// Assembled in contract order by ../owner-api.ts.
import { z } from 'zod';
import { type ActionDefs, id } from './define';
import { LIMITS } from '../../limits';
import { WAKE_LIMIT_RANGE } from '../../agents/wake';

export const wakeActions = {
  // Wake runs (shared/agents/wake.ts): Perch starts an agent that is not listening when an event wakes it.
  'wake.get': {
    device: 'laptop',
    description:
      "An agent's wake action (command or webhook), whether it is on (or why Perch switched it off), its running run and runs in the last hour.",
    input: () => z.strictObject({ agent: id() }),
  },
  'wake.set': {
    device: 'laptop',
    description:
      "Set an agent's wake action: argv (a command, no shell) or shell (a shell string) with cwd, env, timeout_secs (default 900), max_runs_per_hour (default 6) and memory_ceiling_mb (optional, at least 64: a run whose process tree holds more for a few seconds is stopped, status over_memory); or webhook (a loopback URL, POSTed with an HMAC-SHA256 signature). off: true removes it. Setting it switches it back on.",
    input: () =>
      z.strictObject({
        agent: id(),
        off: z.boolean().optional(),
        argv: z.array(z.string().max(LIMITS.maxTextChars)).max(LIMITS.maxListItems).optional(),
        shell: z.string().max(LIMITS.maxTextChars).optional(),
        cwd: z.string().max(4096).optional(),
        env: z.record(z.string().max(128), z.string().max(LIMITS.maxTextChars)).optional(),
        timeout_secs: z.number().int().optional(),
        max_runs_per_hour: z.number().int().optional(),
        memory_ceiling_mb: z.number().optional(),
        webhook: z.string().max(2048).optional(),
      }),
  },
  'wake.runs': {
    device: 'full',
    description: 'Wake runs, newest first (all agents, or one): status, why it was woken, timings, exit, usage.',
    input: () => z.strictObject({ agent: id().optional(), limit: z.number().int().min(1).max(500).optional() }),
  },
  'wake.stop': {
    device: 'full',
    description:
      "Stop an agent's running wake run (SIGTERM, then SIGKILL of its process group) and any retry planned; a run waiting for a slot is cancelled (cancelled: true).",
    input: () => z.strictObject({ agent: id() }),
  },
  'wake.start_now': {
    device: 'laptop',
    description:
      "Start an agent's queued wake run now, over the limit of runs at once this one time. Refused (conflict) when it has no run waiting.",
    input: () => z.strictObject({ agent: id() }),
  },
  'wake.limits.get': {
    device: 'laptop',
    description:
      "The limits across the fleet: at_once (runs alive at the same time; at_once_default when it is the machine's default), min_free_mb (no new run starts while the machine's available memory is below it), the machine (cores, memory), the running runs (agent, since, live memory and CPU) and the queued ones (agent, since, position; the owner's own wakes first), and blocked (why queued runs do not start, when it is the memory floor).",
    input: () => z.strictObject({}),
  },
  'wake.limits.set': {
    device: 'laptop',
    description: `Set the limits across the fleet: at_once, ${WAKE_LIMIT_RANGE.atOnce.min} to ${WAKE_LIMIT_RANGE.atOnce.max} (null: the machine's default), and/or min_free_mb (0: no floor). Wakes beyond the limit wait in the queue; raising it starts them at once. A bad value changes nothing.`,
    input: () => z.strictObject({ at_once: z.number().nullable().optional(), min_free_mb: z.number().optional() }),
  },
  'wake.log': {
    device: 'laptop',
    description: 'A wake run and the newest part of its captured output (max_bytes, default 8192).',
    input: () =>
      z.strictObject({
        run_id: id(),
        max_bytes: z
          .number()
          .int()
          .min(1)
          .max(256 * 1024)
          .optional(),
      }),
  },
} as const satisfies ActionDefs;
