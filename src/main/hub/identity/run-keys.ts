// Run keys: each wake run gets a key of its own, valid for its agent only while the run lives (plus a
// short grace), revoked when it ends. Only its hash is kept, in this process's memory: a run lives in
// the hub that started it, so a key never outlives that hub either.
import crypto from 'node:crypto';
import type { Hub } from '../core/hub';
import { endRevokedWaits } from './key-waits';

export const RUN_KEY_PREFIX = 'perch_run_';

interface RunKey {
  agentId: string;
  runId: string;
  expiresAt: number;
  /** Called once, at the run's first authenticated call. */
  onFirstUse?: () => void;
}

const registries = new WeakMap<Hub, Map<string, RunKey>>();

function registry(hub: Hub): Map<string, RunKey> {
  let m = registries.get(hub);
  if (!m) registries.set(hub, (m = new Map()));
  return m;
}

function hashOf(key: string): string {
  return crypto.createHash('sha256').update(key).digest('base64');
}

/** A new run key for the agent, valid until expiresAt (ms) unless revoked first. */
export function issueRunKey(hub: Hub, agentId: string, runId: string, expiresAt: number, onFirstUse?: () => void): { key: string; revoke: () => void } {
  const key = RUN_KEY_PREFIX + crypto.randomBytes(24).toString('base64url');
  const hash = hashOf(key);
  registry(hub).set(hash, { agentId, runId, expiresAt, onFirstUse });
  // Revoked (the run ended): calls still waiting under the key end too (hub/identity/key-waits.ts).
  return { key, revoke: () => { if (registry(hub).delete(hash)) endRevokedWaits(hub, agentId); } };
}

/** The agent id a live run key stands for, or undefined (unknown, expired or revoked). */
export function runKeyAgent(hub: Hub, key: string): string | undefined {
  if (!key.startsWith(RUN_KEY_PREFIX)) return undefined;
  const m = registries.get(hub);
  if (!m || m.size === 0) return undefined;
  const hash = hashOf(key);
  const rk = m.get(hash);
  if (!rk) return undefined;
  if (Date.now() > rk.expiresAt) {
    m.delete(hash);
    return undefined;
  }
  if (rk.onFirstUse) {
    const f = rk.onFirstUse;
    rk.onFirstUse = undefined;
    f();
  }
  return rk.agentId;
}
