// What the `perch hook` tests share (test/harness/hook*.test.ts): one shared `perch serve` per test file, the real CLI
// process fed a harness's stdin, and the agent's pending prompt in the owner's Approvals inbox.
import { addAgent, uniqueName, useSharedServe, type AgentKey } from './serve-harness';
import { pendingRequestOf, startHook, type HookRun } from './hook-runner';

export const served = useSharedServe();

export function runHook(args: string[], stdin: string, env: Record<string, string | undefined>, timeoutMs = 30_000): Promise<HookRun> {
  return startHook(args, stdin, env, timeoutMs).done;
}

export async function newAgent(base: string): Promise<AgentKey> {
  return addAgent(served.dataDir, uniqueName(base));
}

/** The pending request the hook filed for this agent (waits until it is in the owner's Approvals inbox). */
export function pendingOf(agent: AgentKey): Promise<any> {
  return pendingRequestOf(served, agent);
}

export function envFor(agent: AgentKey, extra: Record<string, string> = {}): Record<string, string> {
  return { PERCH_URL: served.mcpUrl, PERCH_KEY: agent.key, ...extra };
}
