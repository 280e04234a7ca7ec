// perch agent wake NAME …: the owner sets what starts the agent when it is woken (hub/wake-runs/wake-action.ts).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { setWakeAction } from '../../hub/wake-runs/wake-action';
import { wakeState } from '../../hub/wake-runs/wake-views';
import type { WakeState } from '../../../shared/agents/wake';
import { UsageError, dataDirOf, print, withHub, type Command } from '../common';
import { ownerAction } from '../owner/owner-action';
import type { WakeLimits } from '../../../shared/agents/wake';
import fs from 'node:fs';
import { DEFAULT_PORT, RUNTIME_FILE } from '../../paths';
import { findAgent } from '../../hub/identity/identities';
import { agentPlaces } from '../../hub/identity/places';
import { CONTAINER_RUNTIMES, containerWakeArgv, containerWakeProblem, type ContainerRuntime } from '../../../shared/agents/wake-container';

/** The help of `perch agent wake` (one of the agent subcommands: cli/agents/agents.ts). */
export const WAKE_HELP = `perch agent wake NAME [--cwd DIR] [--timeout SECS] [--max-runs N] [--memory-mb MB] [--env K=V]... -- CMD ARG...
perch agent wake NAME [--cwd DIR] [--timeout SECS] [--max-runs N] [--env K=V]... --shell 'STRING'
perch agent wake NAME --container IMAGE --project DIR [--runtime docker|podman] [--timeout SECS] [--max-runs N] [--env K=V]... [-- CMD ARG...]
perch agent wake NAME --webhook URL [--timeout SECS] [--max-runs N]
perch agent wake NAME --off | --show   [--data-dir DIR] [--json]
  What Perch starts when an event wakes NAME and no get_updates of it is waiting: CMD with its
  arguments (no shell), or a shell string, or a signed POST to a loopback URL. One run at a time;
  timeout (default 900 s) then SIGTERM and SIGKILL; at most N runs an hour (default 6). Each run
  gets its own short-lived key in PERCH_KEY (also PERCH_URL, PERCH_AGENT, PERCH_RUN_ID, PERCH_WAKE,
  PERCH_MCP_CONFIG, PERCH_OPENCODE_CONFIG), and its OpenTelemetry goes to Perch's ledger with a
  telemetry token of its own (OTEL_* in its environment; yours set with --env win). Five failed
  runs in a row switch it off.
  --show prints it; --off removes it.
  --container IMAGE runs it in a container instead (docker run, or podman run with --runtime podman): no
  host mount but --project DIR (at /workspace), the run's key and its telemetry passed by name (-e PERCH_KEY,
  -e OTEL_…: never a value on the command line), PERCH_URL and the OpenTelemetry endpoint the container
  listener's (perch serve --containers); in the container only your --env count as your own telemetry.
  The agent's key must be allowed containers (perch agent key from NAME containers); its runs' keys and
  telemetry tokens follow it.
  --memory-mb MB (at least 64): a run whose processes hold more resident memory than that for a few
  seconds is stopped like a timeout (recorded over_memory). Across the fleet: perch wake limits.`;

/** `perch agent wake NAME …` (argv after `wake`): its own options, and a command after --. */
export function cmdAgentWake(argv: string[]): void {
  const dash = argv.indexOf('--');
  const own = dash >= 0 ? argv.slice(0, dash) : argv;
  const command = dash >= 0 ? argv.slice(dash + 1) : undefined;
  const { values, positionals } = parseArgs({
    args: own,
    options: {
      'data-dir': { type: 'string' },
      json: { type: 'boolean' },
      cwd: { type: 'string' },
      timeout: { type: 'string' },
      'max-runs': { type: 'string' },
      'memory-mb': { type: 'string' },
      env: { type: 'string', multiple: true },
      shell: { type: 'string' },
      webhook: { type: 'string' },
      off: { type: 'boolean' },
      show: { type: 'boolean' },
      container: { type: 'string' },
      project: { type: 'string' },
      runtime: { type: 'string' }, // a wake run in a container (shared/agents/wake-container.ts)
    },
    allowPositionals: true,
    strict: true,
  });
  const name = positionals[0];
  if (!name || positionals.length > 1)
    throw new UsageError(`perch agent wake needs NAME (and the command after --): ${WAKE_HELP.split('\n')[0]}`);
  const num = (v: string | undefined, flag: string) => {
    if (v === undefined) return undefined;
    const n = Number(v);
    if (!Number.isInteger(n)) throw new UsageError(`${flag} must be a whole number, not ${JSON.stringify(v)}`);
    return n;
  };
  const env: Record<string, string> = {};
  for (const kv of values.env ?? []) {
    const eq = kv.indexOf('=');
    if (eq <= 0) throw new UsageError(`--env takes K=V, not ${JSON.stringify(kv)}`);
    env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  const dataDir = dataDirOf(values);
  const json = !!values.json;
  const contained = values.container !== undefined ? containerArgv(dataDir, values, command ?? [], Object.keys(env)) : undefined;
  const setting =
    command !== undefined || values.shell !== undefined || values.webhook !== undefined || values.off || contained !== undefined;
  if (values.show && setting) throw new UsageError('--show only shows: give no command, --shell, --webhook or --off with it');
  if (!values.show && !setting) throw new UsageError('perch agent wake NAME needs a command after --, --shell, --webhook, --off or --show');
  withHub(dataDir, (hub) => {
    const state = values.show
      ? wakeState(hub, name)
      : setWakeAction(hub, {
          agent: name,
          off: values.off || undefined,
          argv: contained ?? command,
          shell: values.shell,
          webhook: values.webhook,
          cwd: contained ? path.resolve(values.project!) : values.cwd !== undefined ? path.resolve(values.cwd) : undefined,
          env: Object.keys(env).length ? env : undefined,
          timeout_secs: num(values.timeout, '--timeout'),
          max_runs_per_hour: num(values['max-runs'], '--max-runs'),
          memory_ceiling_mb: num(values['memory-mb'], '--memory-mb'),
        });
    const boxedOut =
      contained && !agentPlaces(findAgent(hub, name)).includes('containers')
        ? `\nNote: ${name}'s key may connect from ${agentPlaces(findAgent(hub, name)).join(', ')} only; its runs in a container need: perch agent key from ${name} containers`
        : '';
    print(json, { wake: state }, () => describeWake(state) + boxedOut);
  });
}

/** The docker/podman argv of a wake run in a container (checked before the database is opened). */
function containerArgv(
  dataDir: string,
  values: { container?: string; project?: string; runtime?: string; cwd?: string; shell?: string; webhook?: string; off?: boolean },
  command: string[],
  envNames: string[],
): string[] {
  if (values.shell !== undefined || values.webhook !== undefined || values.off || values.cwd !== undefined)
    throw new UsageError(
      "--container takes a command after -- (or none: the image's own), not --shell, --webhook, --off or --cwd (the project is the working directory)",
    );
  if (!values.project) throw new UsageError('--container needs --project DIR: the one directory the container may see');
  const runtime = (values.runtime ?? 'docker') as ContainerRuntime;
  if (!(CONTAINER_RUNTIMES as readonly string[]).includes(runtime))
    throw new UsageError(`--runtime must be docker or podman, not ${JSON.stringify(values.runtime)}`);
  const project = path.resolve(values.project);
  const problem = containerWakeProblem({ image: values.container!, project });
  if (problem) throw new UsageError(problem);
  let port = Number(process.env.PERCH_PORT) || DEFAULT_PORT;
  try {
    port = (JSON.parse(fs.readFileSync(path.join(dataDir, RUNTIME_FILE), 'utf8')) as { port: number }).port || port;
  } catch {
    /* no hub runs: the default port */
  }
  return containerWakeArgv({ runtime, image: values.container!, project, command, port, platform: process.platform, env: envNames });
}

function describeWake(w: WakeState): string {
  if (!w.action) return `${w.agent.name} has no wake action: Perch does not start it.`;
  const a = w.action;
  const what =
    a.kind === 'webhook'
      ? `POST ${a.url} (signed: X-Perch-Signature sha256=HMAC of the body with the secret ${w.webhook_secret})`
      : a.argv
        ? `run ${a.argv.map((x) => (/^[\w@%+=:,./-]+$/.test(x) ? x : JSON.stringify(x))).join(' ')}`
        : `run in a shell: ${a.shell}`;
  return [
    `${w.agent.name} wakes: ${what}`,
    ...(a.cwd ? [`  in ${a.cwd}`] : []),
    ...(a.env ? [`  with ${Object.keys(a.env).join(', ')}`] : []),
    `  timeout ${a.timeout_secs} s, at most ${a.max_runs_per_hour} runs an hour (${w.runs_last_hour} in the last hour)`,
    ...(a.memory_ceiling_mb ? [`  stopped above ${a.memory_ceiling_mb} MB of memory`] : []),
    ...(w.queued ? [`  queued (${w.queued.position}), waiting for a free slot`] : []),
    w.enabled ? '  on' : `  OFF: ${w.off_reason ?? 'switched off'}`,
  ].join('\n');
}

const LIMITS_HELP = `perch wake limits [--at-once N|default] [--min-free-mb MB] [--data-dir DIR] [--json]
  Wake runs across the fleet: at most N runs alive at the same time (default from this machine: one per
  core and per 1.5 GB of available memory, at least 1), and no new run starts while the machine's
  available memory is below --min-free-mb (0: no floor). Wakes beyond wait in a queue (the owner's own
  wakes first, then first come first served) and start as soon as a run ends. Without options it shows
  the limits, the runs alive (memory, CPU) and the queue.`;

/** `perch wake limits`: the limits across the fleet (hub/wake-runs/wake-limits.ts), on the running hub when one serves. */
export const wake: Command = {
  names: ['wake'],
  usage: `  perch wake limits [--at-once N|default] [--min-free-mb MB]
      Wake runs across the fleet: how many run at once, the memory floor, what runs and what waits.`,
  help: () => LIMITS_HELP,
  subcommands: { limits: () => LIMITS_HELP },
  run: cmdWake,
};

async function cmdWake(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string' },
      json: { type: 'boolean' },
      'at-once': { type: 'string' },
      'min-free-mb': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  if (positionals[0] !== 'limits' || positionals.length > 1) throw new UsageError(`perch wake takes limits: ${LIMITS_HELP.split('\n')[0]}`);
  const whole = (v: string, flag: string) => {
    if (!/^\d+$/.test(v)) throw new UsageError(`${flag} must be a whole number, not ${JSON.stringify(v)}`);
    return Number(v);
  };
  const dataDir = dataDirOf(values);
  const atOnce = values['at-once'];
  const floor = values['min-free-mb'];
  const r =
    atOnce === undefined && floor === undefined
      ? await ownerAction(dataDir, 'wake.limits.get', {})
      : await ownerAction(dataDir, 'wake.limits.set', {
          ...(atOnce !== undefined ? { at_once: atOnce === 'default' ? null : whole(atOnce, '--at-once') } : {}),
          ...(floor !== undefined ? { min_free_mb: whole(floor, '--min-free-mb') } : {}),
        });
  print(!!values.json, r, () => describeLimits(r.limits));
}

const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;

function describeLimits(l: WakeLimits): string {
  return [
    `At most ${l.at_once} wake run${l.at_once === 1 ? '' : 's'} at once${l.at_once_default ? " (this machine's default)" : ''}.`,
    l.min_free_mb ? `No new run starts while less than ${l.min_free_mb} MB of memory is available.` : 'No memory floor.',
    ...(l.machine ? [`This machine: ${l.machine.cores} cores, ${l.machine.available_mb} of ${l.machine.total_mb} MB available.`] : []),
    ...(l.containment ? [l.containment.line] : []),
    `Running (${l.running.length}):`,
    ...l.running.map(
      (r) =>
        `  ${r.agent.name}  since ${new Date(r.since).toLocaleTimeString()}${r.live ? `  ${mb(r.live.rss_bytes)}, ${r.live.cpu_pct}% CPU` : ''}`,
    ),
    `Queued (${l.queued.length}):`,
    ...l.queued.map(
      (q) => `  ${q.position}. ${q.agent.name}  since ${new Date(q.since).toLocaleTimeString()}${q.by_owner ? '  (woken by you)' : ''}`,
    ),
    ...(l.blocked ? [l.blocked] : []),
  ].join('\n');
}
