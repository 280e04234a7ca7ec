// `perch hook ARGS` as a harness runs it: the real CLI process, the key only in the environment, stdin written once
// and closed, bounded in time. Shared by the hook tests (permission-request, the status hooks, Cursor's).
import { spawn, type ChildProcess } from 'node:child_process';
import {
  BIN,
  ROOT,
  ensureBuilt,
  eventually,
  exitOf,
  ownerOk,
  rawPost,
  type AgentKey,
  type CliResult,
  type RawResponse,
  type Served,
} from './serve-harness';

export type HookRun = CliResult;

export /** Starts `perch hook ARGS` with STDIN, as a harness does; done settles when it exits (bounded). */
function startHook(
  args: string[],
  stdin: unknown,
  env: Record<string, string | undefined>,
  timeoutMs = 30_000,
): { proc: ChildProcess; done: Promise<HookRun> } {
  ensureBuilt();
  const clean = { ...process.env };
  for (const k of Object.keys(clean)) if (k.startsWith('PERCH_KEY') || k === 'PERCH_URL') delete clean[k];
  const p = spawn(process.execPath, [BIN, 'hook', ...args], { cwd: ROOT, env: { ...clean, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const done = exitOf(p, `perch hook ${args.join(' ')}`, timeoutMs);
  p.stdin!.on('error', () => undefined); // a hook that refuses an oversized stdin closes it early (EPIPE)
  p.stdin!.end(typeof stdin === 'string' ? stdin : JSON.stringify(stdin));
  return { proc: p, done };
}

/** `perch hook ARGS` with STDIN (a string as it is, anything else as JSON); settles when it exits. */
export function runHook(args: string[], stdin: unknown, env: Record<string, string | undefined>, timeoutMs = 30_000): Promise<HookRun> {
  return startHook(args, stdin, env, timeoutMs).done;
}

/** The pending request a hook filed for this agent (waits until it is in the owner's Approvals inbox). */
export async function pendingRequestOf(served: Pick<Served, 'dataDir'>, agent: AgentKey, timeoutMs = 15_000): Promise<any> {
  let found: any;
  try {
    await eventually(
      async () => {
        const { requests } = await ownerOk(served, 'requests.list', { state: 'pending' });
        found = requests.find((r: any) => r.requester?.id === agent.id);
        return !!found;
      },
      timeoutMs,
      `a pending request from ${agent.name}`,
    );
  } catch (e) {
    // What the hub knows of the agent, for the failure: its requests in any state (a card decided or withdrawn at
    // once is not pending) and what its harness last reported.
    const { requests } = await ownerOk(served, 'requests.list', {});
    const mine = requests
      .filter((r: any) => r.requester?.id === agent.id)
      .map((r: any) => ({ title: r.title, state: r.state, withdrawn: r.withdrawn, decided_by: r.outcome?.by }));
    const me = (await ownerOk(served, 'agents.list')).agents.find((a: any) => a.id === agent.id);
    throw new Error(`${(e as Error).message}; its requests: ${JSON.stringify(mine)}; the agent: ${JSON.stringify(me).slice(0, 1500)}`);
  }
  return found;
}

/** One hook of a Claude Code HTTP hook entry as ~/.claude/settings.json holds it. */
export interface HttpHookEntry {
  type: 'http';
  url: string;
  headers?: Record<string, string>;
  allowedEnvVars?: string[];
  timeout?: number;
}

/** The one HTTP hook of EVENT in a Claude Code settings.json (fails the test when it is missing or another kind). */
export function claudeCodeHttpHook(settings: any, event: string): HttpHookEntry {
  const hooks = (settings?.hooks?.[event] ?? []).flatMap((g: any) => g.hooks ?? []);
  if (hooks.length !== 1 || hooks[0].type !== 'http')
    throw new Error(`settings.json has no single HTTP hook for ${event}: ${JSON.stringify(settings?.hooks?.[event])}`);
  return hooks[0] as HttpHookEntry;
}

/**
 * The request Claude Code makes for an HTTP hook: POST the hook input as JSON to its url, the header values with
 * $VAR and ${VAR} filled from env for the variables in allowedEnvVars only (any other variable an empty string, as
 * Claude Code's hooks reference says).
 */
export async function postHttpHook(hook: HttpHookEntry, input: unknown, env: Record<string, string>): Promise<RawResponse> {
  const allowed = new Set(hook.allowedEnvVars ?? []);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(hook.headers ?? {}))
    headers[name] = value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_m, a?: string, b?: string) => {
      const v = (a ?? b)!;
      return allowed.has(v) ? (env[v] ?? '') : '';
    });
  return rawPost(hook.url, undefined, input, headers);
}
