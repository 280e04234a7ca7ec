// get_updates: at-least-once delivery with explicit acks (docs/design.md, "What always holds" 2) and waking (3).
import type { Hub } from '../core/hub';
import type { ControlServices } from '../control/services';
import { HubError } from '../../../shared/errors';
import { LIMITS } from '../../../shared/limits';
import type { EventView } from '../../../shared/api/event-log';
import { cursorOf, eventsForUser, saveCursor, maxGid, type CursorRow } from '../../store/tables/talk/events';
import { eventView } from '../core/views';
import { tx } from '../../store/db/db';
import { eventsForInstance, instanceCursor, saveInstanceCursor } from '../../store/tables/talk/agent-sessions';
import { announceReads, forInstance, instanceName, recordReceipts, seeInstance } from './agent-sessions';
import { keyCursor, saveKeyCursor } from '../../store/tables/agents/agent-keys';
import { waitUnderKey, type Caller } from '../identity/key-waits';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type DeliveryHub = Hub<ControlServices & { delivery: Delivery }>;

export interface UpdatesInput {
  ack?: string;
  limit?: number;
  wait_secs?: number;
  /** A named session of the agent: it keeps its own confirmed position (hub/talk/agent-sessions.ts). */
  instance?: string;
}

export interface UpdatesResult {
  events: EventView[];
  /** Pass this as ack on your next call to confirm you received this answer. */
  ack: string;
  more: boolean;
  woken: boolean;
}

/** What delivery keeps for one hub: the last ack made per position (a caught-up agent polls with the same one again and again). */
export class Delivery {
  readonly lastAcks = new Map<string, { upto: number; ack: string }>();
}

/**
 * Whose confirmed position a call reads from and moves: the agent's (its own key), a named instance's, or a
 * scoped key's own (per instance): a scoped key never moves the agent's position nor sends read receipts.
 */
interface Position {
  userId: string;
  instance: string | undefined;
  /** The scoped key's id (hub/identity/agent-keys.ts); null for the agent's own key. */
  keyId: string | null;
}

/** The name an ack is bound to ('@' and '#' are in neither ids nor instance names). */
function positionKey(p: Position): string {
  return `${p.userId}${p.keyId ? `@${p.keyId}` : ''}${p.instance === undefined ? '' : `#${p.instance}`}`;
}

function makeAck(hub: DeliveryHub, posKey: string, upto: number): string {
  const byPos = hub.services.delivery.lastAcks;
  const last = byPos.get(posKey);
  if (last && last.upto === upto) return last.ack;
  const pos = upto.toString(36);
  const ack = `${pos}.${hub.mac(`ack:${posKey}:${pos}`, 12)}`;
  byPos.set(posKey, { upto, ack });
  return ack;
}

/** The position as stored; a new named instance or a scoped key's first read starts at the agent's. */
function cursorFor(hub: DeliveryHub, p: Position): CursorRow & { fresh?: true } {
  const own = p.keyId
    ? keyCursor(hub.db, p.keyId, p.instance ?? '')
    : p.instance === undefined
      ? cursorOf(hub.db, p.userId)
      : instanceCursor(hub.db, p.userId, p.instance);
  if (own) return { ...own, user_id: p.userId };
  const agent = cursorOf(hub.db, p.userId);
  return { user_id: p.userId, confirmed_gid: agent.confirmed_gid, last_upto: agent.confirmed_gid, fresh: true };
}

function saveCursorFor(hub: DeliveryHub, p: Position, c: CursorRow): void {
  if (p.keyId) saveKeyCursor(hub.db, p.keyId, p.instance ?? '', c);
  else if (p.instance === undefined) saveCursor(hub.db, c);
  else saveInstanceCursor(hub.db, p.instance, c);
}

function parseAck(hub: DeliveryHub, posKey: string, ack: string): number {
  const dot = ack.indexOf('.');
  const pos = dot > 0 ? ack.slice(0, dot) : '';
  const upto = pos && /^[0-9a-z]+$/.test(pos) ? parseInt(pos, 36) : NaN;
  if (!Number.isSafeInteger(upto) || ack !== makeAck(hub, posKey, upto) || upto > maxGid(hub.db)) {
    throw new HubError(
      'invalid_argument',
      `ack ${JSON.stringify(ack)} is not an ack this hub gave you.`,
      'Pass the ack field of a get_updates answer you received, or call without ack.',
    );
  }
  return upto;
}

/**
 * Confirms the previous answer (or the one named by ack), then returns what follows. The confirmed
 * position never moves back; an answer that was not confirmed comes again. caller: the call's signal and key
 * (a scoped key reads from its own position; a wait ends when the key stops working: hub/identity/key-waits.ts).
 */
export async function getUpdates(hub: DeliveryHub, userId: string, input: UpdatesInput, caller: Caller = {}): Promise<UpdatesResult> {
  const limit = Math.min(input.limit ?? LIMITS.updatesDefaultLimit, LIMITS.updatesMaxLimit);
  const waitMs = Math.min(input.wait_secs ?? 0, LIMITS.waitAnswerSecs) * 1000;
  // Agent sessions (hub/talk/agent-sessions.ts): a named instance has its own position, and its acks are bound to it.
  const instance = instanceName(input.instance);
  if (instance !== undefined) seeInstance(hub, userId, instance, undefined, caller.key);
  const at: Position = { userId, instance, keyId: caller.key?.id ?? null };
  const posKey = positionKey(at);
  const upto = input.ack !== undefined ? parseAck(hub, posKey, input.ack) : undefined;

  const confirmedNext = () => {
    const cur = cursorFor(hub, at);
    return { cur, next: Math.max(cur.confirmed_gid, upto ?? cur.last_upto) };
  };
  // On a full disk the position is not saved but the answer still comes: what follows the position is
  // read as usual, and the next call confirms it again (at-least-once: at worst an answer comes twice).
  let readConvs: string[] = [];
  const confirmed = readEvenIfFull(
    hub,
    () =>
      tx(hub.db, () => {
        const { cur, next } = confirmedNext();
        if (next !== cur.confirmed_gid || cur.fresh) {
          // a new instance's (or key's) place is kept from its first call on
          saveCursorFor(hub, at, { user_id: userId, confirmed_gid: next, last_upto: next });
          // Read receipts (hub/talk/agent-sessions.ts): the agent's own sessions only, never a scoped key's reads.
          if (!at.keyId) readConvs = recordReceipts(hub, userId, instance, cur.confirmed_gid, next);
        }
        return next;
      }),
    () => confirmedNext().next,
  );
  announceReads(hub, readConvs);

  const read = (after: number) =>
    instance === undefined
      ? eventsForUser(hub.db, userId, after, limit + 1)
      : eventsForInstance(hub.db, userId, instance, after, limit + 1);
  let rows = read(confirmed);
  let woken = false;
  if (rows.length === 0 && waitMs > 0) {
    if (hub.bus.waitsOf(userId) >= LIMITS.maxWaitsPerAgent) {
      throw new HubError('rate_limited', `You already have ${LIMITS.maxWaitsPerAgent} waiting calls.`, 'Wait with one call at a time.');
    }
    // Ends at once (unauthorized) when the key is revoked, rotated or expires, and asks about the key before reading.
    const why = await waitUnderKey(hub, userId, waitMs, caller);
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
    readEvenIfFull(
      hub,
      () =>
        tx(hub.db, () => {
          const cur = cursorFor(hub, at);
          saveCursorFor(hub, at, { user_id: userId, confirmed_gid: cur.confirmed_gid, last_upto: Math.max(last, cur.confirmed_gid) });
        }),
      () => undefined,
    );
  }
  const events = rows.map((r) => eventView(hub, r, userId));
  return {
    events: instance === undefined ? events : events.map((e) => forInstance(e, userId, instance)),
    ack: makeAck(hub, posKey, last),
    more,
    woken,
  };
}

/** Runs a bookkeeping write of a read; when the disk is full (storage_full) it gives the fallback instead. */
function readEvenIfFull<T>(hub: DeliveryHub, write: () => T, fallback: () => T): T {
  try {
    return write();
  } catch (err) {
    if (!hub.storageFailure(err)) throw err;
    return fallback();
  }
}
