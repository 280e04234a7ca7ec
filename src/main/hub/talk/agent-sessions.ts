// Agent sessions: instance names, each named instance's own place in get_updates (hub/talk/delivery.ts
// asks this module), for_you / from_you for a named instance, and read receipts. A name is a label,
// never an identity: permissions and limits count the agent.
import type { ControlHub } from '../control/services';
import { scopeRefusal, type KeyAuth } from '../identity/agent-keys';
import { refuseWriteIfPaused } from '../control/control';
import { HubError } from '../../../shared/errors';
import type { MessageView } from '../../../shared/types';
import type { EventView } from '../../../shared/api/event-log';
import { MAX_INSTANCES, normalizeInstance, type InstanceView, type ReadReceipt } from '../../../shared/agents/agent-sessions';
import { isReadOnlyKey, KEY_SCOPES } from '../../../shared/agents/scoped-keys';
import {
  advanceReceipt,
  confirmedSeqs,
  dropOldestInstances,
  instanceOf,
  instancesOf,
  receiptsOf,
  touchInstance,
} from '../../store/tables/talk/agent-sessions';
import { membersOf } from '../../store/tables/talk/conversations';

/** last_seen is written at most this often per name (a polling session would write on every call). */
const SEEN_EVERY_MS = 10_000;

/** The stored form of an instance argument, or undefined when none was given; a bad name is invalid_argument. */
export function instanceName(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const name = normalizeInstance(raw);
  if (!name) {
    throw new HubError(
      'invalid_argument',
      `instance ${JSON.stringify(raw.slice(0, 80))} is not a valid instance name: use 2-40 characters a-z, 0-9, - and _ (spaces become dashes).`,
      'Name the session after what it works on, e.g. "laptop-repo".',
    );
  }
  return name;
}

/**
 * Records that the agent's session `name` was seen (and its note, when given). Beyond MAX_INSTANCES names
 * the least recently seen ones are dropped with their positions. On a full disk the sighting is skipped. A
 * read-only key's call is no sighting (shared/agents/scoped-keys.ts isReadOnlyKey): it observes the agent, it is not its session.
 */
export function seeInstance(hub: ControlHub, userId: string, name: string, note?: string, key?: KeyAuth): void {
  if (isReadOnlyKey(key)) return;
  const now = hub.now();
  const known = instanceOf(hub.db, userId, name);
  if (known && note === undefined && now - known.last_seen < SEEN_EVERY_MS) return;
  try {
    hub.write(() => {
      touchInstance(hub.db, userId, name, now, note);
      if (!known) dropOldestInstances(hub.db, userId, MAX_INSTANCES);
    });
  } catch (err) {
    if (!hub.storageFailure(err)) throw err;
  }
}

export function instancesView(hub: ControlHub, userId: string): InstanceView[] {
  return instancesOf(hub.db, userId).map((r) => ({ name: r.name, note: r.note, first_seen: r.first_seen, last_seen: r.last_seen }));
}

/**
 * An event as a named instance reads it: for_you is false when the message names a different instance in
 * to_instance, and true when it names this one; from_you is true for this instance's own words.
 */
export function forInstance(view: EventView, viewerId: string, instance: string): EventView & { from_you?: boolean } {
  const m = view.message as (MessageView & { to_instance?: string }) | undefined;
  if (!m || view.type !== 'message.created') return view;
  let forYou = view.for_you;
  if (m.to_instance) forYou = m.to_instance === instance && (forYou || m.sender.id !== viewerId);
  return { ...view, for_you: forYou, from_you: m.sender.id === viewerId && m.sender.instance === instance };
}

/** Read receipts: what a confirmation of get_updates positions (afterGid, uptoGid] covers. In the caller's transaction. */
export function recordReceipts(hub: ControlHub, userId: string, instance: string | undefined, afterGid: number, uptoGid: number): string[] {
  if (uptoGid <= afterGid) return [];
  const at = hub.now();
  const seqs = confirmedSeqs(hub.db, userId, afterGid, uptoGid);
  for (const r of seqs) advanceReceipt(hub.db, r.conv_id, userId, instance ?? '', r.seq, at);
  return seqs.map((r) => r.conv_id);
}

/** After the receipts' commit: the owner's live stream learns which conversations' reads moved. */
export function announceReads(hub: ControlHub, convIds: readonly string[]): void {
  if (convIds.length) hub.bus.publish({ kind: 'hub', value: { reads: [...convIds] } });
}

/**
 * How far each member of a conversation has read, furthest first: each agent (per named instance, and its
 * unnamed session) as far as it confirmed get_updates, and people as far as they marked it read.
 */
export function readsOf(hub: ControlHub, convId: string): ReadReceipt[] {
  const reads: ReadReceipt[] = receiptsOf(hub.db, convId).map((r) => ({
    user: hub.ref(r.user_id),
    ...(r.instance ? { instance: r.instance } : {}),
    seq: r.seq,
    at: r.at,
  }));
  for (const m of membersOf(hub.db, convId)) {
    if (m.read_seq > 0 && hub.user(m.user_id).kind === 'human') reads.push({ user: hub.ref(m.user_id), seq: m.read_seq });
  }
  return reads.sort((a, b) => b.seq - a.seq);
}

/** get_context's answer for a named instance (none given: unchanged). */
export function contextForInstance<T extends { events: EventView[] }>(
  hub: ControlHub,
  userId: string,
  raw: string | undefined,
  result: T,
  key?: KeyAuth,
): T {
  const instance = instanceName(raw);
  if (instance === undefined) return result;
  seeInstance(hub, userId, instance, undefined, key);
  return { ...result, events: result.events.map((e) => forInstance(e, userId, instance)) };
}

/**
 * whoami's part about sessions and keys: this session's instance (recorded, with its note), the names in use
 * under the agent with notes and last-seen times, and the calling key's scopes and expiry.
 */
export function whoamiSessions(
  hub: ControlHub,
  userId: string,
  args: { instance?: string; instance_note?: string },
  key: KeyAuth | undefined,
) {
  const instance = instanceName(args.instance);
  if (args.instance_note !== undefined) {
    // Writing a note is a write: it needs the write scope and is refused while the agent is paused.
    const outOfScope = key && scopeRefusal(key, 'write', 'whoami with instance_note');
    if (outOfScope) throw outOfScope;
    refuseWriteIfPaused(hub, userId, 'whoami with instance_note');
  }
  if (instance !== undefined) seeInstance(hub, userId, instance, args.instance_note, key);
  return {
    instance: instance ?? null,
    instances: instancesView(hub, userId),
    scopes: key ? [...key.scopes] : [...KEY_SCOPES],
    key: key
      ? { name: key.name, scopes: [...key.scopes], expires_at: key.expires_at }
      : { name: 'main', scopes: [...KEY_SCOPES], expires_at: null },
  };
}
