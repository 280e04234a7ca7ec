// Scoped keys: what a key may do (its scopes), the owner's view of an agent's extra keys, the key a call came with
// and whether it still works. Pure TypeScript: no Node, no DOM.

/** What a key may do. Every tool of the catalog names the one it needs (ToolSpec.scope). */
export const KEY_SCOPES = ['read', 'write', 'files', 'state', 'ask'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** An extra key of an agent, as the owner lists it (the key itself is shown once, when added). */
export interface AgentKeyView {
  id: string;
  agent: string;
  name: string;
  key_hint: string;
  scopes: KeyScope[];
  created_at: number;
  expires_at: number | null;
  revoked: boolean;
  revoked_at: number | null;
  expired: boolean;
  /** Where the key may connect from (shared/agents/places.ts): local, containers, tailnet, IPv4 ranges. */
  from: string[];
}

/** The key a call came with, as the hub checked it (hub/identity/agent-keys.ts). */
export interface KeyAuth {
  /** The scoped key's id; null for the agent's own key. */
  id: string | null;
  name: string;
  scopes: readonly KeyScope[];
  expires_at: number | null;
}

/**
 * A key that may only read (scope read and nothing else): an observer (a dashboard, a monitor), not the agent's
 * session. Its calls do not move the agent's presence (seen, connected, from where), its waits do not count as the
 * agent listening (a wake it hears still starts the agent's wake run), and it records no session sighting: the
 * owner's Fleet shows the agent as it is, not as whoever reads for it.
 */
export function isReadOnlyKey(key: KeyAuth | undefined | null): boolean {
  return !!key && key.scopes.every((s) => s === 'read');
}

/** Whether a key still works, asked again while a call waits (hub/identity/key-waits.ts). */
export type KeyStanding = 'ok' | 'expired' | 'revoked';
/** A waiting call's standing: also 'place' once its key may no longer be used from where the call came from. */
export type WaitStanding = KeyStanding | 'place';
