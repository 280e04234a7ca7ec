// What the agent-contract tests over a real `perch serve` share (test/mcp/mcp-contract*.test.ts): one shared hub per
// test file (its owner's name read at start), agents on the official MCP client, and small steps they repeat.
import assert from 'node:assert/strict';
import { ownerOk, untilWaiting as waitingIn, useSharedServe, type AgentClient } from './serve-harness';

export type R = Record<string, any>;

export let ownerName: string;
export const served = useSharedServe({}, async (s) => {
  ownerName = (await ownerOk(s, 'hub.info')).owner.name;
  assert.ok(ownerName, 'hub.info names the owner');
});

export function agent(base: string, era: 'v1' | 'v2' = 'v1'): Promise<AgentClient> {
  return served.agent(base, era);
}

/** Reads get_updates until nothing is left (each answer confirmed by the next call). */
export async function drain(c: AgentClient): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const r = await c.ok('get_updates', {});
    if (r.events.length === 0) return;
  }
  throw new Error('get_updates never ran dry');
}

/** The agent's direct conversation with the owner. */
export async function directWithOwner(c: AgentClient): Promise<string> {
  const r = await c.ok('open_direct', { user: ownerName });
  return r.conversation.conv_id as string;
}

/** A creates a group with the others; everybody has read the creation. A is the group's admin. */
export async function group(a: AgentClient, others: AgentClient[], title = 'crew'): Promise<string> {
  const g = await a.ok('create_group', { title, members: others.map((o) => o.agent.name) });
  await Promise.all([a, ...others].map(drain));
  return g.conversation.conv_id as string;
}

/** Waits (bounded) until the hub reports the agent as waiting in a get_updates / get_request call. */
export function untilWaiting(c: AgentClient): Promise<void> {
  return waitingIn(served, c.agent.name);
}

/** A promise plus when it settled, so a test can tell whether it is still pending. */
export function track<T>(p: Promise<T>) {
  const t = { settled: false, at: 0, promise: p as Promise<T> };
  t.promise = p.then(
    (v) => {
      t.settled = true;
      t.at = performance.now();
      return v;
    },
    (e) => {
      t.settled = true;
      t.at = performance.now();
      throw e;
    },
  );
  return t;
}

export async function convLastSeq(convId: string): Promise<number> {
  return (await ownerOk(served, 'conversations.get', { conv_id: convId })).conversation.last_seq;
}
