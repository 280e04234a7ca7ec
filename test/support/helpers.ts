// Test helpers: a real hub on a real SQLite file in a temporary folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openDatabase } from '../../src/main/store/db/db';
import type { HubOptions } from '../../src/main/hub/core/hub';
import type { HubServices, PerchHub } from '../../src/main/hub/services';
import { createHub } from '../../src/main/hub-services';
import { addAgent } from '../../src/main/hub/control/agents';
import { callAgentTool } from '../../src/main/hub/tools/tools';
import { TOOL_BY_NAME, type ToolName } from '../../src/shared/api/catalog';
import type { EventView } from '../../src/shared/api/event-log';

export interface TestHub {
  hub: PerchHub;
  dir: string;
  file: string;
  agent(name: string): { id: string; name: string; key: string };
  close(): void;
}

/** The hub's options a test may set (its clock, the owner's name); the database is always a fresh file. */
export type TestHubOptions = Omit<HubOptions<HubServices>, 'db' | 'services'>;

export function makeHub(opts: TestHubOptions = {}): TestHub {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-test-'));
  const file = path.join(dir, 'perch.sqlite');
  const db = openDatabase(file);
  const hub = createHub({ ...opts, db });
  return {
    hub,
    dir,
    file,
    agent(name) {
      const { agent, key } = addAgent(hub, { name });
      return { id: agent.id, name: agent.name, key };
    },
    close() {
      hub.close();
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs fn with a fresh hub (makeHub) and closes it afterwards, whether fn returns, throws or rejects:
 * `await withHub(async (t) => { … })`, or `withHub({ now: () => clock }, async (t) => { … })`.
 */
export function withHub<T>(fn: (t: TestHub) => T | Promise<T>): Promise<T>;
export function withHub<T>(opts: TestHubOptions, fn: (t: TestHub) => T | Promise<T>): Promise<T>;
export async function withHub<T>(a: TestHubOptions | ((t: TestHub) => T | Promise<T>), b?: (t: TestHub) => T | Promise<T>): Promise<T> {
  const [opts, fn] = typeof a === 'function' ? [{}, a] : [a, b!];
  const t = makeHub(opts);
  try {
    return await fn(t);
  } finally {
    t.close();
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Any = any;

/** Calls a tool as the agent, with the arguments validated by the tool's schema as the MCP door does. */
export function callTool(hub: PerchHub, agentId: string, name: ToolName, args: Record<string, unknown>): Promise<Any> {
  return callAgentTool(hub, agentId, name, TOOL_BY_NAME.get(name)!.input.parse(args) as Record<string, unknown>) as Promise<Any>;
}

/** Reads and confirms everything pending for the agent. */
export async function drain(hub: PerchHub, agentId: string): Promise<EventView[]> {
  const all: EventView[] = [];
  for (;;) {
    const r = await callTool(hub, agentId, 'get_updates', {});
    all.push(...r.events);
    if (r.events.length === 0) return all;
  }
}
