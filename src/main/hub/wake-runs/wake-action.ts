// Wake runs, the owner's wake action: the input (argv, shell or webhook, with cwd, env, timeout and cap) checked,
// refused with a clear error when bad (nothing changes then), and stored; off removes it. The policy (wake-runs.ts)
// reads it when an event wakes the agent.
import crypto from 'node:crypto';
import fs from 'node:fs';
import type { WakeHub } from './services';
import { HubError } from '../../../shared/errors';
import { findAgent } from '../identity/identities';
import { deleteWakeAction, putWakeAction, wakeActionOf } from '../../store/tables/agents/wake';
import { WAKE_DEFAULTS, WAKE_LIMIT_RANGE, type WakeAction, type WakeState } from '../../../shared/agents/wake';
import './wake-runs'; // hub.services.wakeRuns (its HubServices field is declared there)
import { wakeState } from './wake-views';

export interface WakeSetInput {
  agent: string;
  off?: boolean;
  argv?: string[];
  shell?: string;
  cwd?: string;
  env?: Record<string, string>;
  timeout_secs?: number;
  max_runs_per_hour?: number;
  webhook?: string;
  /** command: a run over this much resident memory (MB, its whole process tree) for a few seconds is stopped. */
  memory_ceiling_mb?: number;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

function bad(message: string, next: string): never {
  throw new HubError('invalid_argument', message, next);
}

/** The action described by the owner's input, checked; a bad one is refused and nothing changes. */
export function parseWakeAction(input: WakeSetInput): WakeAction {
  const ways = [input.argv !== undefined, input.shell !== undefined, input.webhook !== undefined].filter(Boolean).length;
  if (ways !== 1)
    bad(
      'Give exactly one of argv (a command without a shell), shell (a shell string) or webhook (a loopback URL).',
      'e.g. perch agent wake NAME -- claude -p "…", or --shell \'…\', or --webhook http://127.0.0.1:PORT/hook',
    );
  const timeout = input.timeout_secs ?? WAKE_DEFAULTS.timeoutSecs;
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 86_400)
    bad(
      `timeout_secs must be a whole number of seconds from 1 to 86400, not ${JSON.stringify(input.timeout_secs)}.`,
      'The default is 900 (15 minutes).',
    );
  const ceiling = input.memory_ceiling_mb;
  const { min, max } = WAKE_LIMIT_RANGE.ceilingMb;
  if (ceiling !== undefined && !(Number.isInteger(ceiling) && ceiling >= min && ceiling <= max)) {
    bad(
      `memory_ceiling_mb must be a whole number of MB from ${min} (a harness does not start in less) to ${max}, not ${JSON.stringify(ceiling)}.`,
      'e.g. 2048 for a working Claude Code session; leave it out for no ceiling.',
    );
  }
  const cap = input.max_runs_per_hour ?? WAKE_DEFAULTS.maxRunsPerHour;
  if (!Number.isInteger(cap) || cap < 1 || cap > 600)
    bad(`max_runs_per_hour must be a whole number from 1 to 600, not ${JSON.stringify(input.max_runs_per_hour)}.`, 'The default is 6.');
  if (input.webhook !== undefined) {
    let url: URL;
    try {
      url = new URL(input.webhook);
    } catch {
      bad(`webhook ${JSON.stringify(input.webhook)} is not a URL.`, 'Give a loopback URL such as http://127.0.0.1:8080/perch.');
    }
    if (!/^https?:$/.test(url.protocol) || !['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) || url.username || url.password) {
      bad(
        `webhook must be an http(s) URL on this machine (127.0.0.1, localhost or [::1]), not ${JSON.stringify(input.webhook)}.`,
        'Wake actions never reach other machines; run the receiver locally.',
      );
    }
    if (input.cwd !== undefined || input.env !== undefined || input.memory_ceiling_mb !== undefined)
      bad('cwd, env and memory_ceiling_mb are for commands, not webhooks.', 'Leave them out with --webhook.');
    return { kind: 'webhook', url: url.href, timeout_secs: timeout, max_runs_per_hour: cap };
  }
  if (
    input.argv !== undefined &&
    (input.argv.length === 0 || input.argv.some((a) => typeof a !== 'string' || a.length === 0 || a.includes('\0')))
  ) {
    bad(
      'argv must be a non-empty list of non-empty strings: the program, then its arguments.',
      'e.g. perch agent wake NAME -- node agent.mjs',
    );
  }
  if (input.shell !== undefined && (input.shell.trim() === '' || input.shell.includes('\0')))
    bad('shell must be a non-empty command string.', 'e.g. perch agent wake NAME --shell \'claude -p "…"\'');
  if (input.cwd !== undefined && (!input.cwd || !/^([/\\]|[A-Za-z]:[/\\])/.test(input.cwd)))
    bad(`cwd must be an absolute path, not ${JSON.stringify(input.cwd)}.`, 'e.g. --cwd /home/me/project');
  if (input.cwd && !isDirectory(input.cwd))
    bad(`cwd ${JSON.stringify(input.cwd)} is not a folder on this computer.`, 'Create it first, or give the folder the agent works in.');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.env ?? {})) {
    if (!ENV_NAME.test(k))
      bad(`Environment variable name ${JSON.stringify(k)} is not valid.`, 'Use letters, digits and _, not starting with a digit.');
    if (k.toUpperCase().startsWith('PERCH_')) bad(`${k}: PERCH_* variables are set by Perch for each run.`, 'Pick another name.');
    if (typeof v !== 'string' || v.includes('\0')) bad(`The value of ${k} must be a string.`, 'e.g. --env MODEL=opus');
    env[k] = v;
  }
  return {
    kind: 'command',
    ...(input.argv ? { argv: [...input.argv] } : { shell: input.shell! }),
    ...(input.cwd ? { cwd: input.cwd } : {}),
    ...(Object.keys(env).length ? { env } : {}),
    timeout_secs: timeout,
    max_runs_per_hour: cap,
    ...(ceiling !== undefined ? { memory_ceiling_mb: ceiling } : {}),
  };
}

/** Sets (or with off: removes) an agent's wake action. Setting it again switches it back on. */
export function setWakeAction(hub: WakeHub, input: WakeSetInput): WakeState {
  const agent = findAgent(hub, input.agent);
  if (input.off) {
    if (
      [
        input.argv,
        input.shell,
        input.webhook,
        input.cwd,
        input.env,
        input.timeout_secs,
        input.max_runs_per_hour,
        input.memory_ceiling_mb,
      ].some((v) => v !== undefined)
    ) {
      bad('off removes the wake action: give nothing else with it.', 'perch agent wake NAME --off');
    }
    hub.services.wakeRuns.armed.changing(() => hub.write(() => deleteWakeAction(hub.db, agent.id)));
    return wakeState(hub, agent.id);
  }
  const action = parseWakeAction(input);
  hub.services.wakeRuns.armed.changing(() =>
    hub.write(() => {
      const prev = wakeActionOf(hub.db, agent.id);
      const secret = action.kind === 'webhook' ? (prev?.webhook_secret ?? crypto.randomBytes(32).toString('base64url')) : null;
      putWakeAction(hub.db, {
        agent_id: agent.id,
        action: JSON.stringify(action),
        enabled: 1,
        off_reason: null,
        consecutive_failures: 0,
        webhook_secret: secret,
        updated_at: Date.now(),
      });
    }),
  );
  return wakeState(hub, agent.id);
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
