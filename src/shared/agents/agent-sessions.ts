// Agent sessions (an agent's named instances) and read receipts: the shapes every door shows.
// Pure TypeScript: no Node, no DOM.
import type { UserRef } from '../types';

/** An instance name: 2-40 of a-z 0-9 - _ (spaces become dashes; see normalizeInstance). */
export const INSTANCE_PATTERN = /^[a-z0-9_-]{2,40}$/;
/** Instance names kept per agent; beyond that the least recently seen is dropped. */
export const MAX_INSTANCES = 50;
export const MAX_INSTANCE_NOTE_CHARS = 200;

/** The name as stored: trimmed, runs of spaces as one dash; undefined when it is not a valid name. */
export function normalizeInstance(raw: string): string | undefined {
  const name = raw.trim().replace(/\s+/g, '-');
  return INSTANCE_PATTERN.test(name) ? name : undefined;
}

/** An instance name in use under an agent (whoami.instances). */
export interface InstanceView {
  name: string;
  note: string;
  first_seen: number;
  last_seen: number;
}

/** How far one member (one named instance, or the unnamed session) confirmed a conversation. */
export interface ReadReceipt {
  user: UserRef;
  instance?: string;
  seq: number;
  /** When it last moved (agents; people's marks carry no time). */
  at?: number;
}
