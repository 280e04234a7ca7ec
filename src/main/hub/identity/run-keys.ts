// Run keys: each wake run gets a key of its own, valid for its agent only while the run lives (plus a
// short grace), revoked when it ends. Only its hash is kept, in this process's memory (the hub's RunKeys,
// hub.services.runKeys): a run lives in the hub that started it, so a key never outlives that hub either.
// A run key logs in like any other key, in hub/identity/key-login.ts. Beside it each command run gets a telemetry token
// of its own (RUN_TELEMETRY_PREFIX, kept apart: no door but the OTLP receiver looks it up, hub/features/ledger/
// telemetry-tokens.ts): it can add usage records for its agent while the run lives, and nothing else.
import type { Hub } from '../core/hub';
import crypto from 'node:crypto';
import type { KeyWaits } from './key-waits';
import { endRevokedWaits } from './key-waits';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type RunKeysHub = Hub<{ runKeys: RunKeys; keyWaits: KeyWaits }>;

export const RUN_KEY_PREFIX = 'perch_run_';
/** A run's telemetry token: a telemetry token (perch_otlp_…) that lives with its run. */
export const RUN_TELEMETRY_PREFIX = 'perch_otlp_run_';

interface RunKey {
  agentId: string;
  runId: string;
  expiresAt: number;
  /** Called once, at the run's first authenticated call. */
  onFirstUse?: () => void;
}

/** The live run keys of one hub, by the key's hash (base64 of its SHA-256). */
export class RunKeys {
  private readonly byHash = new Map<string, RunKey>();
  /** The runs' telemetry tokens, apart: a telemetry token is never a key. */
  readonly telemetry = new Map<string, RunKey>();

  add(hash: string, key: RunKey): void {
    this.byHash.set(hash, key);
  }

  /** Forgets a key; false when it was not live. */
  delete(hash: string): boolean {
    return this.byHash.delete(hash);
  }

  /** The agent id a live run key stands for, or undefined (unknown, expired or revoked); its first use is told once. */
  agentOf(hash: string, now: number): string | undefined {
    if (this.byHash.size === 0) return undefined;
    const rk = this.byHash.get(hash);
    if (!rk) return undefined;
    if (now > rk.expiresAt) {
      this.byHash.delete(hash);
      return undefined;
    }
    if (rk.onFirstUse) {
      const f = rk.onFirstUse;
      rk.onFirstUse = undefined;
      f();
    }
    return rk.agentId;
  }
}

/** The agent id a live run telemetry token stands for, or undefined (unknown, expired or revoked). */
export function runTelemetryAgent(keys: RunKeys, token: string, now: number): string | undefined {
  if (keys.telemetry.size === 0 || !token.startsWith(RUN_TELEMETRY_PREFIX)) return undefined;
  const hash = crypto.createHash('sha256').update(token).digest('base64');
  const rk = keys.telemetry.get(hash);
  if (!rk) return undefined;
  if (now > rk.expiresAt) {
    keys.telemetry.delete(hash);
    return undefined;
  }
  return rk.agentId;
}

/** A new run key for the agent and the run's telemetry token, valid until expiresAt (ms) unless revoked first (together). */
export function issueRunKey(
  hub: RunKeysHub,
  agentId: string,
  runId: string,
  expiresAt: number,
  onFirstUse?: () => void,
): { key: string; telemetry: string; revoke: () => void } {
  const key = RUN_KEY_PREFIX + crypto.randomBytes(24).toString('base64url');
  const hash = crypto.createHash('sha256').update(key).digest('base64');
  const keys = hub.services.runKeys;
  keys.add(hash, { agentId, runId, expiresAt, onFirstUse });
  // Revoked (the run ended): calls still waiting under the key end too (hub/identity/key-waits.ts).
  // Its telemetry token, for the harness's OpenTelemetry (the run's environment only), revoked with the key.
  const telemetry = RUN_TELEMETRY_PREFIX + crypto.randomBytes(24).toString('base64url');
  const telemetryHash = crypto.createHash('sha256').update(telemetry).digest('base64');
  keys.telemetry.set(telemetryHash, { agentId, runId, expiresAt });
  return {
    key,
    telemetry,
    revoke: () => {
      keys.telemetry.delete(telemetryHash);
      if (keys.delete(hash)) endRevokedWaits(hub, agentId);
    },
  };
}
