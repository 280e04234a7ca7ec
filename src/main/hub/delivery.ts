// get_updates: at-least-once delivery with explicit acks (docs/design.md, "What always holds" 2) and waking (3).
import type { Hub } from './hub';
import { HubError } from '../../shared/errors';
import { LIMITS } from '../../shared/limits';
import type { EventView } from '../../shared/types';
import { cursorOf, eventsForUser, saveCursor, maxGid, type CursorRow } from '../store/events';
import { eventView } from './views';
import { tx } from '../store/db';
import { eventsForInstance, instanceCursor, saveInstanceCursor } from '../store/instances';
import { announceReads, forInstance, instanceName, recordReceipts, seeInstance } from './instances';

export interface UpdatesInput {
  ack?: string;
  limit?: number;
  wait_secs?: number;
  /** A named session of the agent: it keeps its own confirmed position (hub/instances.ts). */
  instance?: string;
}

export interface UpdatesResult {
  events: EventView[];
  /** Pass this as ack on your next call to confirm you received this answer. */
  ack: string;
  more: boolean;
  woken: boolean;
}

/** The last ack made per agent: a caught-up agent polls with the same position again and again. */
const lastAcks = new WeakMap<Hub, Map<string, { upto: number; ack: string }>>();

/** Whose position an ack is bound to: the agent, or one named instance of it ('#' is not in names). */
function positionKey(userId: string, instance: string | undefined): string {
  return instance === undefined ? userId : `${userId}#${instance}`;
}

function makeAck(hub: Hub, userId: string, upto: number): string {
  let byUser = lastAcks.get(hub);
  if (!byUser) lastAcks.set(hub, (byUser = new Map()));
  const last = byUser.get(userId);
  if (last && last.upto === upto) return last.ack;
  const pos = upto.toString(36);
  const ack = `${pos}.${hub.mac(`ack:${userId}:${pos}`, 12)}`;
  byUser.set(userId, { upto, ack });
  return ack;
}

/** The agent's (unnamed) position, or a named instance's own; a new name starts at the agent's. */
function cursorFor(hub: Hub, userId: string, instance: string | undefined): CursorRow & { fresh?: true } {
  if (instance === undefined) return cursorOf(hub.db, userId);
  const own = instanceCursor(hub.db, userId, instance);
  if (own) return own;
  const agent = cursorOf(hub.db, userId);
  return { user_id: userId, confirmed_gid: agent.confirmed_gid, last_upto: agent.confirmed_gid, fresh: true };
}

function saveCursorFor(hub: Hub, instance: string | undefined, c: { user_id: string; confirmed_gid: number; last_upto: number }): void {
  if (instance === undefined) saveCursor(hub.db, c);
  else saveInstanceCursor(hub.db, instance, c);
}

function parseAck(hub: Hub, userId: string, ack: string): number {
  const dot = ack.indexOf('.');
  const pos = dot > 0 ? ack.slice(0, dot) : '';
  const upto = pos && /^[0-9a-z]+$/.test(pos) ? parseInt(pos, 36) : NaN;
  if (!Number.isSafeInteger(upto) || ack !== makeAck(hub, userId, upto) || upto > maxGid(hub.db)) {
    throw new HubError('invalid_argument', `ack ${JSON.stringify(ack)} is not an ack this hub gave you.`, 'Pass the ack field of a get_updates answer you received, or call without ack.');
  }
  return upto;
}

/**
 * Confirms the previous answer (or the one named by ack), then returns what follows. The confirmed
 * position never moves back; an answer that was not confirmed comes again.
 */
export async function getUpdates(hub: Hub, userId: string, input: UpdatesInput, signal?: AbortSignal): Promise<UpdatesResult> {
  const limit = Math.min(input.limit ?? LIMITS.updatesDefaultLimit, LIMITS.updatesMaxLimit);
  const waitMs = Math.min(input.wait_secs ?? 0, LIMITS.maxWaitSecs) * 1000;
  // Sessions of one agent (hub/instances.ts): a named instance has its own position, and its acks are bound to it.
  const instance = instanceName(input.instance);
  if (instance !== undefined) seeInstance(hub, userId, instance);
  const posKey = positionKey(userId, instance);
  const upto = input.ack !== undefined ? parseAck(hub, posKey, input.ack) : undefined;

  const confirmedNext = () => {
    const cur = cursorFor(hub, userId, instance);
    return { cur, next: Math.max(cur.confirmed_gid, upto ?? cur.last_upto) };
  };
  // On a full disk the position is not saved but the answer still comes: what follows the position is
  // read as usual, and the next call confirms it again (at-least-once: at worst an answer comes twice).
  let readConvs: string[] = [];
  const confirmed = readEvenIfFull(hub, () => tx(hub.db, () => {
    const { cur, next } = confirmedNext();
    if (next !== cur.confirmed_gid || cur.fresh) { // a new instance's place is kept from its first call on
      saveCursorFor(hub, instance, { user_id: userId, confirmed_gid: next, last_upto: next });
      readConvs = recordReceipts(hub, userId, instance, cur.confirmed_gid, next); // read receipts (hub/instances.ts)
    }
    return next;
  }), () => confirmedNext().next);
  announceReads(hub, readConvs);

  const read = (after: number) => (instance === undefined ? eventsForUser(hub.db, userId, after, limit + 1) : eventsForInstance(hub.db, userId, instance, after, limit + 1));
  let rows = read(confirmed);
  let woken = false;
  if (rows.length === 0 && waitMs > 0) {
    if (hub.bus.waitingCount(userId) >= LIMITS.maxWaitsPerAgent) {
      throw new HubError('rate_limited', `You already have ${LIMITS.maxWaitsPerAgent} waiting calls.`, 'Wait with one call at a time.');
    }
    const why = await hub.bus.wait(userId, waitMs, signal);
    // The caller went away (its connection closed): this answer can't arrive, so it must not count as the
    // "last answer" that a call without ack confirms, or events that came in meanwhile would be skipped.
    if (why === 'aborted') return { events: [], ack: makeAck(hub, posKey, confirmed), more: false, woken: false };
    woken = why === 'woken';
    rows = read(confirmed);
  }
  const more = rows.length > limit;
  if (more) rows = rows.slice(0, limit);
  const last = rows.length ? rows[rows.length - 1]!.gid : confirmed;
  if (last !== confirmed) {
    readEvenIfFull(hub, () => tx(hub.db, () => {
      const cur = cursorFor(hub, userId, instance);
      saveCursorFor(hub, instance, { user_id: userId, confirmed_gid: cur.confirmed_gid, last_upto: Math.max(last, cur.confirmed_gid) });
    }), () => undefined);
  }
  const events = rows.map((r) => eventView(hub, r, userId));
  return { events: instance === undefined ? events : events.map((e) => forInstance(e, userId, instance)), ack: makeAck(hub, posKey, last), more, woken };
}

/** Runs a bookkeeping write of a read; when the disk is full (storage_full) it gives the fallback instead. */
function readEvenIfFull<T>(hub: Hub, write: () => T, fallback: () => T): T {
  try {
    return write();
  } catch (err) {
    if (!hub.storageFailure(err)) throw err;
    return fallback();
  }
}
