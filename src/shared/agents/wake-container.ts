// A wake run in a container: the `docker run` / `podman run` command line Perch starts for an agent whose wake
// action is `perch agent wake NAME --container IMAGE --project DIR -- CMD …`. The container gets no host mount but
// the project directory the owner names (at /workspace, its working directory); the run's key, its telemetry
// (shared/agents/run-telemetry.ts: the OTLP endpoint, the header with the run's telemetry token …) and the owner's
// variables are passed by NAME (`-e PERCH_KEY`: the value comes from the environment Perch gives the docker process,
// never the command line; a name not set there is not set in the container); PERCH_URL is the container listener's URL
// (`perch serve --containers`), by the Host name of the runtime (host.docker.internal with --add-host=…:host-gateway
// for Docker on Linux; Podman's host.containers.internal). That PERCH_URL on the command line is also how the launcher
// knows a run is in a container (containerRunOf) and where its telemetry must go: the hub as the container sees it.
// Pure: no Node, no DOM; the exact argv is unit-tested (test/wake/wake-container.test.ts).
import { RUN_TELEMETRY_VARS } from './run-telemetry';

export const CONTAINER_RUNTIMES = ['docker', 'podman'] as const;
export type ContainerRuntime = (typeof CONTAINER_RUNTIMES)[number];

/** Where the project directory appears inside the container (and the working directory there). */
export const CONTAINER_WORKDIR = '/workspace';

/** The run variables passed into the container by name (their values are in the docker process's environment). */
export const CONTAINER_PASSED_ENV = ['PERCH_KEY', 'PERCH_AGENT', 'PERCH_RUN_ID', 'PERCH_WAKE'] as const;

export interface ContainerWake {
  runtime: ContainerRuntime;
  image: string;
  /** The project directory (absolute path on this computer): the one host mount. */
  project: string;
  /** The command inside the container (after the image); empty: the image's own. */
  command: readonly string[];
  /** The hub's port (the container listener uses the same one). */
  port: number;
  /** process.platform of this computer: Docker on Linux needs --add-host for host.docker.internal. */
  platform: string;
  /** Owner-given variables passed by name as well (their values set in the wake action's env). */
  env?: readonly string[];
}

/** The host name the runtime gives containers for this computer. */
export function containerHostName(runtime: ContainerRuntime): string {
  return runtime === 'podman' ? 'host.containers.internal' : 'host.docker.internal';
}

/** The hub as a container of the runtime reaches it (the container listener, or the runtime's proxy): no path. */
export function containerHubUrl(runtime: ContainerRuntime, port: number): string {
  return `http://${containerHostName(runtime)}:${port}`;
}

/** The variables a container run is handed by name: the run's own, its telemetry, then the owner's (once each). */
export function containerPassedEnv(ownerEnv: readonly string[] = []): string[] {
  return [...new Set([...CONTAINER_PASSED_ENV, ...RUN_TELEMETRY_VARS, ...ownerEnv])];
}

const PERCH_URL_ARG = /^PERCH_URL=(http:\/\/host\.(?:docker|containers)\.internal:\d{1,5})\/mcp$/;

/**
 * A command run's argv that starts a container the way containerWakeArgv does (docker or podman `run`, with
 * `-e PERCH_URL=http://host.docker.internal:PORT/mcp`): the hub's URL as the container sees it; otherwise undefined
 * (a run on this computer).
 */
export function containerRunOf(argv: readonly string[] | undefined): { hubUrl: string } | undefined {
  if (!argv || argv[1] !== 'run' || !/(^|\/)(docker|podman)$/.test(argv[0] ?? '')) return undefined;
  for (let i = 2; i + 1 < argv.length; i++) {
    if (argv[i] !== '-e') continue;
    const m = PERCH_URL_ARG.exec(argv[i + 1]!);
    if (m) return { hubUrl: m[1]! };
  }
  return undefined;
}

/** A problem with the image or project (a message), or undefined. */
export function containerWakeProblem(c: Pick<ContainerWake, 'image' | 'project'>): string | undefined {
  if (!/^[a-zA-Z0-9][a-zA-Z0-9._/:@-]{0,254}$/.test(c.image))
    return `--container ${JSON.stringify(c.image.slice(0, 80))} is not an image name (like node:22 or ghcr.io/me/agent:1).`;
  if (!c.project.startsWith('/') || c.project.includes(',') || c.project.includes(':') || c.project === '/')
    return `--project ${JSON.stringify(c.project.slice(0, 200))}: give the project directory (absolute, not /, without : or ,).`;
  return undefined;
}

/** The argv that starts the agent in its container. */
export function containerWakeArgv(c: ContainerWake): string[] {
  const host = containerHostName(c.runtime);
  return [
    c.runtime,
    'run',
    '--rm',
    '-i',
    ...(c.runtime === 'docker' && c.platform === 'linux' ? [`--add-host=${host}:host-gateway`] : []),
    '--mount',
    `type=bind,source=${c.project},target=${CONTAINER_WORKDIR}`,
    '--workdir',
    CONTAINER_WORKDIR,
    ...containerPassedEnv(c.env).flatMap((name) => ['-e', name]),
    '-e',
    `PERCH_URL=${containerHubUrl(c.runtime, c.port)}/mcp`,
    c.image,
    ...c.command,
  ];
}
