// `perch hook ARGS` as a harness runs it: the real CLI process, the key only in the environment, stdin written once
// and closed, bounded in time. Shared by the hook tests (permission-request, the status hooks, Cursor's).
import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, ROOT, ensureBuilt, eventually, exitOf, ownerOk, type AgentKey, type CliResult, type Served } from './serve-harness';

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
  await eventually(
    async () => {
      const { requests } = await ownerOk(served, 'requests.list', { state: 'pending' });
      found = requests.find((r: any) => r.requester?.id === agent.id);
      return !!found;
    },
    timeoutMs,
    `a pending request from ${agent.name}`,
  );
  return found;
}
