// The hub: one process owns the database and the bus. Every door (MCP, owner API, CLI) calls these services.
import crypto from 'node:crypto';
import type { Db } from '../../store/db/db';
import { batch as groupCommit, isStorageError, tx, txRole } from '../../store/db/db';
import { insertEvent, type EventWithMessage } from '../../store/tables/talk/events';
import { nextSeq } from '../../store/tables/talk/conversations';
import { ownerRow, userById, insertUser, type UserRow } from '../../store/tables/agents/users';
import { getSetting, setSetting, eventByGid } from '../../store/tables/talk/settings';
import { Bus, tagEventType, type LiveEvent } from './bus';
import type { EventType, StorageStatus, UserRef } from '../../../shared/types';
import type { EventData, MessageEventType } from '../../../shared/api/event-log';
import { HubError } from '../../../shared/errors';
import { visibleDeep } from '../../../shared/text/text';
import { eventView } from './views';
import { OutsideWrites } from './outside-writes';
import { JobSlots } from './image-jobs';
import { Doors } from './doors';

export interface HubOptions<S extends object> {
  db: Db;
  now?: () => number;
  ownerName?: string;
  /** Builds the hub's services (the composition root's: src/main/hub-services.ts), once, at the end of construction. */
  services: (hub: Hub<S>) => S;
}

/**
 * What hub.emit takes for an event of type T: its data as shared/api/event-log.ts says (none for types without data), the
 * message it is about (msgId, for the types about one message and only for them), and who is woken.
 */
export type EmitOptions<T extends EventType> = T extends EventType
  ? { wake?: readonly string[] } & (T extends MessageEventType ? { msgId: string } : { msgId?: undefined }) &
      (EventData<T> extends undefined ? { data?: undefined } : { data: EventData<T> })
  : never;

interface PendingEvent {
  gid: number;
  type: EventType;
  woken: string[];
}

/**
 * The hub, with S its services: what the areas above core keep for one hub (caches, timers, counters, live waits),
 * one typed field per service. core names none of them; each area types what it reaches (`<area>/services.ts`, e.g.
 * `IdentityHub` = `Hub<IdentityServices>`), and src/main/hub/services.ts declares the whole `HubServices`, which the
 * composition root builds once (src/main/hub-services.ts createHub). core's own functions take plain `Hub`.
 */
export class Hub<S extends object = object> {
  readonly db: Db;
  readonly bus = new Bus();
  readonly now: () => number;
  readonly secret: Buffer;
  readonly ownerId: string;
  /** PRAGMA data_version as this hub last read it: its caches drop what another process may have changed (outside-writes.ts). */
  readonly outside: OutsideWrites;
  /** Slots for the image work of send_file (image-jobs.ts). */
  readonly imageJobs = new JobSlots();
  /** The services of the areas above core (S: src/main/hub/services.ts HubServices), built by the composition root. */
  readonly services: S;
  /** Where this hub's doors are reached (base URL, container listener): the HTTP door reports it (doors.ts). */
  readonly doors = new Doors();
  private users = new Map<string, UserRow>();
  private pending: PendingEvent[] = [];
  private storageStatus: StorageStatus;
  /** A unit of the open group commit succeeded (the batch's commit then proves the disk takes writes). */
  private unitWrote = false;
  private disposers: Array<() => void> = [];
  /**
   * Something the owner's fleet view shows changed without a commit (usage counted in memory, an agent's presence):
   * set by fleetChanged, read (fleetDirty) and cleared (fleetSeen) by the live fleet's tick (hub/control/fleet-live.ts).
   */
  private fleetNews = true;
  /** Observers of every appended event, in its transaction (hub/control/brakes.ts: a person's event resets counts). */
  private emitObservers: Array<(convId: string, type: EventType, actorId: string | null) => void> = [];

  constructor(opts: HubOptions<S>) {
    this.db = opts.db;
    this.now = opts.now ?? Date.now;
    this.secret = ensureSecret(this.db);
    this.ownerId = ensureOwner(this.db, opts.ownerName ?? 'owner', this.now()).id;
    this.storageStatus = { state: 'ok', since: this.now(), message: STORAGE_OK };
    this.outside = new OutsideWrites(this.db);
    this.services = opts.services(this);
  }

  /** Registers cleanup run by close(), in reverse order. */
  onClose(fn: () => void): void {
    this.disposers.push(fn);
  }

  /** Runs fn for every event appended from now on, in the event's transaction (keep it O(1)). */
  onEmit(fn: (convId: string, type: EventType, actorId: string | null) => void): void {
    this.emitObservers.push(fn);
  }

  close(): void {
    for (const fn of this.disposers.reverse()) {
      try {
        fn();
      } catch {
        /* keep closing */
      }
    }
    this.disposers = [];
  }

  // ---- users ------------------------------------------------------------------------------

  user(id: string): UserRow {
    let u = this.users.get(id);
    if (!u) {
      u = userById(this.db, id);
      if (!u) throw new HubError('not_found', `No user ${id}.`, 'Check the id with find_user.');
      this.users.set(id, u);
    }
    return u;
  }

  /**
   * Caches a row just read from the store (authentication reads the caller's row on every request),
   * so a change made by another process on the same file (e.g. `perch agent config`) is seen at once.
   */
  rememberUser(row: UserRow): void {
    this.users.set(row.id, row);
  }

  /** Forget cached rows of a user (after a config change or revocation). */
  /** The owner's fleet view has news that no commit carries: it is pushed on the next tick (hub/control/fleet-live.ts). */
  fleetChanged(): void {
    this.fleetNews = true;
  }

  /** Whether the fleet view has news since the live fleet last took it (fleetSeen). */
  get fleetDirty(): boolean {
    return this.fleetNews;
  }

  /** The live fleet built the view from what is there now (hub/control/fleet-live.ts). */
  fleetSeen(): void {
    this.fleetNews = false;
  }

  forgetUser(id: string): void {
    this.users.delete(id);
  }

  ref(id: string): UserRef {
    const u = this.user(id);
    return { id: u.id, name: u.name, kind: u.kind };
  }

  get owner(): UserRow {
    return this.user(this.ownerId);
  }

  // ---- writes & the event log ---------------------------------------------------------------

  /** Runs fn in one transaction; events it appended are published only after the commit. */
  write<T>(fn: () => T): T {
    const role = txRole(this.db);
    const mark = this.pending.length;
    try {
      const result = tx(this.db, fn);
      if (role === 'outer') {
        this.flush();
        this.storageWorks();
      } else if (role === 'unit') {
        this.unitWrote = true;
      }
      return result;
    } catch (err) {
      if (role === 'outer') this.pending = [];
      else if (role === 'unit') this.pending.length = mark; // that unit was rolled back alone
      throw this.storageFailure(err) ?? err;
    }
  }

  // ---- storage: a full or failing disk ------------------------------------------------------

  /** Whether the hub can save right now (see StorageStatus). */
  get storage(): StorageStatus {
    return { ...this.storageStatus };
  }

  /** The last write failed because the disk is full or failing (storage.state is 'full'). */
  get storageFull(): boolean {
    return this.storageStatus.state === 'full';
  }

  /**
   * If err says the disk is full or failing (SQLITE_FULL, SQLITE_IOERR*), records that the hub
   * cannot save (the owner is told once, on the live stream) and returns the storage_full refusal
   * to answer instead; otherwise undefined. Whatever failed was rolled back: nothing was saved.
   */
  storageFailure(err: unknown): HubError | undefined {
    if (err instanceof HubError) return err.code === 'storage_full' ? err : undefined;
    if (!isStorageError(err)) return undefined;
    const code = String((err as { code?: unknown }).code);
    if (this.storageStatus.state !== 'full') {
      this.setStorage({
        state: 'full',
        since: this.now(),
        message: `Perch cannot save: the disk is full (${code}). Agents' messages and your actions are refused, nothing is lost; free some disk space and Perch carries on by itself.`,
      });
    }
    return new HubError(
      'storage_full',
      `The hub cannot save: the owner's disk is full or failing (${code}). Nothing was saved.`,
      "The owner's disk is full; wait and retry later, nothing was saved. Reading (get_updates, get_history) still works.",
      { sqlite_code: code },
    );
  }

  /** A write was committed: if the hub could not save before, it can again. */
  private storageWorks(): void {
    if (this.storageStatus.state === 'ok') return;
    this.setStorage({ state: 'ok', since: this.now(), message: STORAGE_OK });
  }

  private setStorage(status: StorageStatus): void {
    this.storageStatus = status;
    process.stderr.write(`perch: storage ${status.state}: ${status.message}\n`);
    this.bus.publish({ kind: 'hub', value: { storage: { ...status } } });
  }

  /**
   * Group commit: fn runs many independent writes (each its own unit, rolled back alone if it
   * throws) in one transaction with one COMMIT; their events are published after that commit.
   * Throws when the commit fails, and then nothing of it was written.
   */
  batch(fn: () => void): void {
    this.unitWrote = false;
    try {
      groupCommit(this.db, fn);
    } catch (err) {
      this.pending = [];
      throw this.storageFailure(err) ?? err;
    }
    this.flush();
    if (this.unitWrote) this.storageWorks();
  }

  /**
   * Appends one event to a conversation's log, in the caller's transaction. opts.data is the event's data, checked
   * against its type (shared/api/event-log.ts EventPayloads); msgId: the message it is about; wake: users named by it, woken
   * after the commit.
   */
  emit<T extends EventType>(
    convId: string,
    type: T,
    actorId: string | null,
    opts: EmitOptions<T>,
  ): { seq: number; gid: number; at: number } {
    if (!this.db.inTransaction) throw new Error('emit outside a transaction');
    const at = this.now();
    const seq = nextSeq(this.db, convId, at);
    const woken = opts.wake && opts.wake.length ? [...new Set(opts.wake)] : [];
    const gid = insertEvent(this.db, {
      conv_id: convId,
      seq,
      type,
      actor_id: actorId,
      msg_id: opts.msgId ?? null,
      ts: at,
      data: opts.data ? JSON.stringify(opts.data) : null,
      wake: woken.length ? JSON.stringify(woken) : null,
    });
    this.pending.push({ gid, type, woken });
    for (const fn of this.emitObservers) fn(convId, type, actorId); // brakes (hub/control/brakes.ts)
    return { seq, gid, at };
  }

  private flush(): void {
    const pending = this.pending;
    this.pending = [];
    if (pending.length === 0) return;
    for (const p of pending) for (const u of p.woken) this.bus.wake(u);
    if (this.bus.hasSubscribers()) {
      // The owner's view of each event is built only when a subscriber reads it (a subscriber with no
      // open stream does not), and then at most once; subscribers read it while publish runs.
      for (const p of pending) {
        let value: LiveEvent | undefined;
        const read = (): LiveEvent => {
          const row = eventByGid(this.db, p.gid) as EventWithMessage | undefined;
          if (!row) throw new Error(`event ${p.gid} is not in the log`);
          return visibleDeep({ event: eventView(this, row, this.ownerId), woken: p.woken }); // the owner reads it (shared/text/text.ts)
        };
        this.bus.publish(
          tagEventType(
            {
              kind: 'event',
              get value(): LiveEvent {
                if (!value) value = read();
                return value;
              },
            },
            p.type,
          ),
        );
      }
    }
  }

  // ---- tokens -----------------------------------------------------------------------------

  /** A short MAC over a string, bound to this hub's secret. */
  mac(text: string, length = 16): string {
    return crypto.createHmac('sha256', this.secret).update(text).digest('base64url').slice(0, length);
  }
}

const STORAGE_OK = 'Perch saves normally.';

function ensureSecret(db: Db): Buffer {
  const existing = getSetting(db, 'hub_secret');
  if (existing) return Buffer.from(existing, 'base64');
  const secret = crypto.randomBytes(32);
  tx(db, () => {
    if (!getSetting(db, 'hub_secret')) setSetting(db, 'hub_secret', secret.toString('base64'));
  });
  return Buffer.from(getSetting(db, 'hub_secret')!, 'base64');
}

function ensureOwner(db: Db, name: string, at: number): UserRow {
  const found = ownerRow(db);
  if (found) return found;
  return tx(db, () => {
    const again = ownerRow(db);
    if (again) return again;
    const row: UserRow = {
      id: `u_${crypto.randomBytes(8).toString('hex')}`,
      kind: 'human',
      name,
      description: 'The owner of this hub.',
      created_at: at,
      key_hash: null,
      key_hint: null,
      revoked_at: null,
      config: '{}',
      config_version: 1,
      inbox_id: null,
    };
    insertUser(db, row);
    return row;
  });
}

export function newId(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(8).toString('hex')}`;
}

let idCounter = crypto.randomInt(0, 0x100000);

/**
 * An id of the same shape as newId (prefix_ and 16 hex digits) that sorts by creation time: 11 hex
 * digits of the clock (ms), then 5 of a counter that starts at random. Rows keyed by it land at the
 * end of their indexes instead of on a random page, so a commit writes a few pages, not one per row.
 */
export function newTimeOrderedId(prefix: string): string {
  idCounter = (idCounter + 1) & 0xfffff;
  return `${prefix}_${Date.now().toString(16).padStart(11, '0').slice(-11)}${idCounter.toString(16).padStart(5, '0')}`;
}
