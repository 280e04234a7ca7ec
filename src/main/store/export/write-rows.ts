// The writing walk of perch import (store/export/import.ts): each checked row of an archive (store/export/check-refs.ts)
// merged into this hub's database inside the import's one transaction. How rows merge: the head of import.ts.
import crypto from 'node:crypto';
import { sql, type Db } from '../db/db';
import { ownerRow } from '../tables/agents/users';
import type { ExportKind } from './kinds';
import { ExportFileError } from './read';
import { ArchiveFiles, type ImageCleaner } from './write-files';
import { LedgerImport } from './ledger-rows';

type Row = Record<string, unknown>;

/** The id an export id takes when it is taken here by something else: same prefix, derived digits. */
function derived(id: string): string {
  const prefix = /^([A-Za-z]+)_/.exec(id)?.[1] ?? 'imp';
  return `${prefix}_${crypto.createHash('sha256').update(`perch-import:${id}`).digest('hex').slice(0, 16)}`;
}

interface ConvPlace {
  id: string;
  /** Events and messages at or below this seq are already here (a merged conversation); 0 for a new one. */
  floor: number;
  /** It was here before this import: its members are the ones here (an export seats nobody in it). */
  merged: boolean;
  /** A direct conversation: one already here takes nothing from an archive. */
  direct: boolean;
  /** The highest seq this import wrote in it (0: none); its last_seq rises to this and no further. */
  top: number;
}

export class Importer {
  readonly added: Record<string, number> = {};
  readonly skipped: Record<string, number> = {};
  readonly remapped: Record<string, number> = {};
  readonly agentsCreated: string[] = [];
  private readonly users = new Map<string, string>();
  private readonly convs = new Map<string, ConvPlace>();
  /** Messages whose id changed (or that were left out: null). Other ids stay as they are. */
  private readonly msgs = new Map<string, string | null>();
  private readonly files: ArchiveFiles;
  /** The flight recorder's records, re-chained into this hub's days (store/export/ledger-rows.ts). */
  readonly ledger: LedgerImport;
  private readonly inboxes = new Map<string, string>();
  /** Export ids of the messages this import adds, and where: rows that hang on a message come only with those. */
  private readonly addedMsgs = new Map<string, ConvPlace>();
  /** Ids here of the agents this import creates: checkpoints and summaries come only for those. */
  private readonly createdUsers = new Set<string>();
  private readonly keepGids: boolean;
  private lastCreated: number;
  private outOfOrder = false;

  constructor(
    private readonly db: Db,
    minArchiveGid: number,
    cleanImage: ImageCleaner,
  ) {
    this.files = new ArchiveFiles(db, cleanImage, () => this.count('files', true));
    this.ledger = new LedgerImport(db);
    const maxGid = sql<{ g: number | null }>(db, 'SELECT max(gid) AS g FROM events').get()?.g ?? 0;
    this.keepGids = minArchiveGid > maxGid;
    this.lastCreated = sql<{ c: number }>(db, 'SELECT created_at AS c FROM messages ORDER BY rowid DESC LIMIT 1').get()?.c ?? 0;
  }

  private count(kind: string, added: boolean): void {
    const m = added ? this.added : this.skipped;
    m[kind] = (m[kind] ?? 0) + 1;
  }

  private remap(kind: string): void {
    this.remapped[kind] = (this.remapped[kind] ?? 0) + 1;
  }

  private user(id: unknown, where: string): string {
    const u = this.users.get(id as string);
    if (u === undefined) throw new ExportFileError(`${where} refers to user ${JSON.stringify(id)}, who is not in the archive's users`);
    return u;
  }

  private userOrNull(id: unknown, where: string): string | null {
    return id === null ? null : this.user(id, where);
  }

  /** A JSON array of user ids (to_ids, assignees) with each id mapped; other JSON is left as it is. */
  private userList(json: unknown, where: string): unknown {
    if (typeof json !== 'string') return json;
    let v: unknown;
    try {
      v = JSON.parse(json);
    } catch {
      return json;
    }
    if (!Array.isArray(v)) return json;
    return JSON.stringify(v.map((x) => (typeof x === 'string' && this.users.has(x) ? this.user(x, where) : x)));
  }

  private conv(id: unknown, where: string): ConvPlace {
    const c = this.convs.get(id as string);
    if (!c) throw new ExportFileError(`${where} refers to conversation ${JSON.stringify(id)}, which is not in the archive's conversations`);
    return c;
  }

  /** The message id here of an export message id (null: it was left out). */
  private msg(id: unknown): string | null {
    if (id === null) return null;
    const m = this.msgs.get(id as string);
    return m === undefined ? (id as string) : m;
  }

  /** Where a row with a text id goes: its id if free, else the derived id; undefined when the same row is there. */
  private place(table: string, id: string, same: (existing: Row) => boolean): string | undefined {
    for (const candidate of [id, derived(id)]) {
      const existing = sql<Row>(this.db, `SELECT * FROM ${table} WHERE id = ?`).get(candidate);
      if (!existing) {
        if (candidate !== id) this.remap(table);
        return candidate;
      }
      if (same(existing)) return undefined;
    }
    throw new ExportFileError(`${table} id ${JSON.stringify(id)} is taken here, and so is the id it would take instead`);
  }

  /**
   * Whether `user` (an id here) may have written in `c` for this import to add it: anyone in a conversation the
   * import adds; in one already here, only its members, and nobody in a direct one.
   */
  private writes(c: ConvPlace, user: string | null): boolean {
    if (!c.merged) return true;
    return !c.direct && user !== null && !!sql(this.db, 'SELECT 1 FROM members WHERE conv_id = ? AND user_id = ?').get(c.id, user);
  }

  /**
   * The message here of an export message this import adds, or null (it was here already, or left out, or `user`
   * may not write in its conversation).
   */
  private addedMsg(id: unknown, user?: string | null): string | null {
    const c = this.addedMsgs.get(id as string);
    if (c === undefined || (user !== undefined && !this.writes(c, user))) return null;
    return this.msg(id);
  }

  private wrote(c: ConvPlace, seq: number): void {
    c.top = Math.max(c.top, seq);
  }

  /** A user this import creates, or null (one already here: the export does not write into their own things). */
  private createdUser(id: unknown, where: string): string | null {
    const u = this.user(id, where);
    return this.createdUsers.has(u) ? u : null;
  }

  row(kind: ExportKind, r: Row, where: string): void {
    switch (kind.name) {
      case 'users':
        return this.userRow(r);
      case 'conversations':
        return this.convRow(r, where);
      case 'members': {
        const c = this.conv(r.conv_id, where);
        const ch = c.merged
          ? 0
          : sql(
              this.db,
              'INSERT OR IGNORE INTO members (conv_id, user_id, role, from_seq, joined_at, read_seq) VALUES (?, ?, ?, ?, ?, ?)',
            ).run(c.id, this.user(r.user_id, where), r.role, r.from_seq, r.joined_at, r.read_seq).changes;
        return this.count(kind.name, ch === 1);
      }
      case 'messages':
        return this.messageRow(r, where);
      case 'events': {
        const c = this.conv(r.conv_id, where);
        if ((r.seq as number) <= c.floor) return this.count(kind.name, false);
        const actor = this.userOrNull(r.actor_id, where);
        // In a conversation already here, only the events of a message this import adds, by one who may write there.
        if (c.merged && (this.addedMsgs.get(r.msg_id as string) !== c || !this.writes(c, actor))) return this.count(kind.name, false);
        const msgId = this.msg(r.msg_id);
        this.wrote(c, r.seq as number);
        sql(
          this.db,
          'INSERT INTO events (gid, conv_id, seq, type, actor_id, msg_id, ts, data, wake, imported) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, 1)',
        ).run(this.keepGids ? r.gid : null, c.id, r.seq, r.type, actor, msgId, r.ts, r.data);
        return this.count(kind.name, true);
      }
      case 'reactions': {
        const m = this.addedMsg(r.msg_id, this.user(r.user_id, where));
        if (m === null) return this.count(kind.name, false);
        const ch = sql(this.db, 'INSERT OR IGNORE INTO reactions (msg_id, user_id, key, at) VALUES (?, ?, ?, ?)').run(
          m,
          this.user(r.user_id, where),
          r.key,
          r.at,
        ).changes;
        return this.count(kind.name, ch === 1);
      }
      case 'pins': {
        const m = this.addedMsg(r.msg_id, this.user(r.pinned_by, where));
        if (m === null) return this.count(kind.name, false);
        const ch = sql(this.db, 'INSERT OR IGNORE INTO pins (conv_id, msg_id, pinned_by, pinned_at) VALUES (?, ?, ?, ?)').run(
          this.conv(r.conv_id, where).id,
          m,
          this.user(r.pinned_by, where),
          r.pinned_at,
        ).changes;
        return this.count(kind.name, ch === 1);
      }
      case 'requests': {
        const m = this.addedMsg(r.msg_id, this.user(r.requester_id, where));
        if (m === null) return this.count(kind.name, false);
        const id = this.place('requests', r.id as string, (e) => e.msg_id === m && e.created_at === r.created_at);
        if (id === undefined) return this.count(kind.name, false);
        sql(
          this.db,
          `INSERT INTO requests (id, conv_id, msg_id, requester_id, kind, title, options, context, assignees, state, outcome, created_at, expires_at, decided_at, decided_by, door)
                      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          id,
          this.conv(r.conv_id, where).id,
          m,
          this.user(r.requester_id, where),
          r.kind,
          r.title,
          r.options,
          r.context,
          this.userList(r.assignees, where),
          // Nobody here waits for a request that was pending there: it arrives expired, never as a live card the
          // owner could decide (an archive's author could otherwise plant a request and read the decision).
          r.state === 'pending' ? 'expired' : r.state,
          r.state === 'pending' ? null : r.outcome,
          r.created_at,
          r.expires_at,
          r.state === 'pending' ? Date.now() : r.decided_at,
          r.state === 'pending' ? null : this.userOrNull(r.decided_by, where),
          r.door, // which door filed a harness's prompt: the card says so (an archive written before it: null, as before)
        );
        return this.count(kind.name, true);
      }
      case 'card_responses': {
        const u = this.user(r.user_id, where);
        const m = this.addedMsg(r.msg_id, u);
        if (
          m === null ||
          sql(this.db, 'SELECT 1 FROM card_responses WHERE msg_id = ? AND user_id = ? AND block_id = ? AND value = ? AND at = ?').get(
            m,
            u,
            r.block_id,
            r.value,
            r.at,
          )
        ) {
          return this.count(kind.name, false);
        }
        sql(this.db, 'INSERT INTO card_responses (msg_id, user_id, block_id, value, at) VALUES (?, ?, ?, ?, ?)').run(
          m,
          u,
          r.block_id,
          r.value,
          r.at,
        );
        return this.count(kind.name, true);
      }
      case 'handoffs': {
        const place = this.conv(r.conv_id, where);
        const c = place.id;
        const agent = this.user(r.agent_id, where);
        if (
          !this.writes(place, agent) ||
          sql(this.db, 'SELECT 1 FROM handoffs WHERE conv_id = ? AND agent_id = ? AND at = ?').get(c, agent, r.at)
        )
          return this.count(kind.name, false);
        const free = !sql(this.db, 'SELECT 1 FROM handoffs WHERE id = ?').get(r.id);
        sql(
          this.db,
          'INSERT INTO handoffs (id, conv_id, agent_id, to_user, note, at, returned_at, return_note) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        ).run(free ? r.id : null, c, agent, this.user(r.to_user, where), r.note, r.at, r.returned_at, r.return_note);
        return this.count(kind.name, true);
      }
      case 'files': {
        // Written with its bytes (files/<id>), which come later in the export.
        const c = this.conv(r.conv_id, where);
        const conv = c.id;
        const m = this.msg(r.msg_id);
        const uploader = this.user(r.uploader_id, where);
        // Into a conversation already here, only with a message this import adds there, from one who may write there.
        if (c.merged && (this.addedMsgs.get(r.msg_id as string) !== c || !this.writes(c, uploader))) return this.count(kind.name, false);
        const place = this.place('files', r.id as string, (e) => e.sha256 === r.sha256 && e.conv_id === conv);
        if (place === undefined) return this.count(kind.name, false);
        this.files.expect(r.id as string, { ...r, conv_id: conv, msg_id: m, uploader_id: uploader, place });
        return;
      }
      case 'state_keys': {
        const u = this.createdUser(r.user_id, where);
        const ch =
          u === null
            ? 0
            : sql(this.db, 'INSERT OR IGNORE INTO state_keys (user_id, key, version, at) VALUES (?, ?, ?, ?)').run(
                u,
                r.key,
                r.version,
                r.at,
              ).changes;
        return this.count(kind.name, ch === 1);
      }
      case 'state_values': {
        const u = this.createdUser(r.user_id, where);
        const ch =
          u === null
            ? 0
            : sql(this.db, 'INSERT OR IGNORE INTO state_values (user_id, key, version, value, at) VALUES (?, ?, ?, ?, ?)').run(
                u,
                r.key,
                r.version,
                r.value,
                r.at,
              ).changes;
        return this.count(kind.name, ch === 1);
      }
      case 'summaries': {
        const u = this.createdUser(r.user_id, where);
        const c = this.conv(r.conv_id, where).id;
        if (
          u === null ||
          sql(this.db, 'SELECT 1 FROM summaries WHERE user_id = ? AND conv_id = ? AND from_seq = ? AND to_seq = ? AND at = ?').get(
            u,
            c,
            r.from_seq,
            r.to_seq,
            r.at,
          )
        )
          return this.count(kind.name, false);
        const free = !sql(this.db, 'SELECT 1 FROM summaries WHERE id = ?').get(r.id);
        sql(this.db, 'INSERT INTO summaries (id, user_id, conv_id, from_seq, to_seq, text, at) VALUES (?, ?, ?, ?, ?, ?, ?)').run(
          free ? r.id : null,
          u,
          c,
          r.from_seq,
          r.to_seq,
          r.text,
          r.at,
        );
        return this.count(kind.name, true);
      }
      case 'progress': {
        const u = this.user(r.user_id, where);
        const place = this.conv(r.conv_id, where);
        const c = place.id;
        if (
          !this.writes(place, u) ||
          sql(this.db, 'SELECT 1 FROM progress WHERE user_id = ? AND conv_id = ? AND ts = ? AND kind = ? AND text = ?').get(
            u,
            c,
            r.ts,
            r.kind,
            r.text,
          )
        )
          return this.count(kind.name, false);
        const free = !sql(this.db, 'SELECT 1 FROM progress WHERE id = ?').get(r.id);
        sql(this.db, 'INSERT INTO progress (id, user_id, conv_id, kind, text, data, msg_id, ts) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
          free ? r.id : null,
          u,
          c,
          r.kind,
          r.text,
          r.data,
          this.msg(r.msg_id),
          r.ts,
        );
        return this.count(kind.name, true);
      }
      case 'hidden_messages': {
        const m = this.addedMsg(r.msg_id);
        const ch =
          m === null
            ? 0
            : sql(this.db, 'INSERT OR IGNORE INTO hidden_messages (user_id, msg_id, hidden_at) VALUES (?, ?, ?)').run(
                this.user(r.user_id, where),
                m,
                r.hidden_at,
              ).changes;
        return this.count(kind.name, ch === 1);
      }
      case 'ledger_records':
        return this.count(kind.name, this.ledger.row(r, where, this.user(r.agent_id, where)));
      default:
        throw new ExportFileError(`kind ${kind.name} cannot be imported`);
    }
  }

  private userRow(r: Row): void {
    if (r.kind === 'human') {
      const owner = ownerRow(this.db);
      if (owner) {
        this.users.set(r.id as string, owner.id);
        return this.count('users', false);
      }
    } else if (r.kind !== 'agent') {
      throw new ExportFileError(`users row ${JSON.stringify(r.id)} has kind ${JSON.stringify(r.kind)}`);
    }
    const byName = sql<{ id: string }>(this.db, 'SELECT id FROM users WHERE name = ?').get(r.name);
    if (byName) {
      this.users.set(r.id as string, byName.id);
      return this.count('users', false);
    }
    const taken = sql(this.db, 'SELECT 1 FROM users WHERE id = ?').get(r.id);
    const id = taken ? derived(r.id as string) : (r.id as string);
    if (taken) this.remap('users');
    sql(
      this.db,
      `INSERT INTO users (id, kind, name, description, created_at, key_hash, key_hint, revoked_at, config, config_version, inbox_id)
                  VALUES (?, ?, ?, ?, ?, NULL, NULL, ?, ?, ?, NULL)`,
    ).run(id, r.kind, r.name, r.description, r.created_at, r.revoked_at, r.config, r.config_version);
    this.users.set(r.id as string, id);
    this.createdUsers.add(id);
    if (typeof r.inbox_id === 'string') this.inboxes.set(id, r.inbox_id);
    if (r.kind === 'agent') this.agentsCreated.push(r.name as string);
    this.count('users', true);
  }

  private directKey(key: unknown, where: string): string | null {
    if (typeof key !== 'string') return null;
    return key
      .split(':')
      .map((id) => (this.users.has(id) ? this.user(id, where) : id))
      .join(':');
  }

  private convRow(r: Row, where: string): void {
    const same = (e: Row) => e.kind === r.kind && e.created_at === r.created_at;
    let id: string | undefined;
    for (const candidate of [r.id as string, derived(r.id as string)]) {
      const existing = sql<Row>(this.db, 'SELECT * FROM conversations WHERE id = ?').get(candidate);
      if (!existing) {
        id = candidate;
        break;
      }
      if (same(existing)) {
        // The same conversation: only what comes after its last seq here is added (its last_seq: finish()).
        this.convs.set(r.id as string, {
          id: candidate,
          floor: existing.last_seq as number,
          merged: true,
          direct: existing.kind === 'direct',
          top: 0,
        });
        return this.count('conversations', false);
      }
    }
    if (id === undefined)
      throw new ExportFileError(`conversation id ${JSON.stringify(r.id)} is taken here, and so is the id it would take instead`);
    if (id !== r.id) this.remap('conversations');
    let directKey = this.directKey(r.direct_key, where);
    // A direct conversation of the same two people already here stays the one they write in.
    if (directKey !== null && sql(this.db, 'SELECT 1 FROM conversations WHERE direct_key = ?').get(directKey)) directKey = null;
    sql(
      this.db,
      `INSERT INTO conversations (id, kind, title, created_by, created_at, last_seq, last_event_at, direct_key, task_state, task_assignee, floor_holder, floor_until,
                    archived_at, archived_by)
                  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      id,
      r.kind,
      r.title,
      this.user(r.created_by, where),
      r.created_at,
      0, // the highest seq written, set by finish(): never what the archive claims
      r.last_event_at,
      directKey,
      r.task_state,
      this.userOrNull(r.task_assignee, where),
      this.userOrNull(r.floor_holder, where),
      r.floor_until,
      r.archived_at ?? null,
      r.archived_at == null ? null : r.archived_by === 'retention' ? 'retention' : 'owner',
    );
    this.convs.set(r.id as string, { id, floor: 0, merged: false, direct: r.kind === 'direct', top: 0 });
    this.count('conversations', true);
  }

  private messageRow(r: Row, where: string): void {
    const c = this.conv(r.conv_id, where);
    if ((r.seq as number) <= c.floor) {
      if (!sql(this.db, 'SELECT 1 FROM messages WHERE id = ? AND conv_id = ?').get(r.id, c.id)) this.msgs.set(r.id as string, null);
      return this.count('messages', false);
    }
    const sender = this.user(r.sender_id, where);
    const id = this.writes(c, sender)
      ? this.place('messages', r.id as string, (e) => e.conv_id === c.id && e.created_at === r.created_at)
      : undefined;
    if (id === undefined) {
      if (!sql(this.db, 'SELECT 1 FROM messages WHERE id = ? AND conv_id = ?').get(r.id, c.id)) this.msgs.set(r.id as string, null);
      return this.count('messages', false);
    }
    if (id !== r.id) this.msgs.set(r.id as string, id);
    this.addedMsgs.set(r.id as string, c);
    this.wrote(c, r.seq as number);
    // reviewed (a person read it before it was posted) is the hub's own attestation: never taken from an export.
    sql(
      this.db,
      `INSERT INTO messages (id, conv_id, seq, sender_id, kind, text, intent, reply_to, thread_id, to_ids, topics, refs, sources, payload, created_at,
                    edited_at, recalled_at, claimed_by, claimed_at, reviewed, sender_instance, to_instance, provenance)
                  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'imported')`,
    ).run(
      id,
      c.id,
      r.seq,
      sender,
      r.kind,
      r.text,
      r.intent,
      this.msg(r.reply_to),
      this.msg(r.thread_id),
      this.userList(r.to_ids, where),
      r.topics,
      r.refs,
      r.sources,
      r.payload,
      r.created_at,
      r.edited_at,
      r.recalled_at,
      this.userOrNull(r.claimed_by, where),
      r.claimed_at,
      null,
      r.sender_instance,
      r.to_instance,
    );
    if ((r.created_at as number) < this.lastCreated) this.outOfOrder = true;
    this.lastCreated = r.created_at as number;
    this.count('messages', true);
  }

  file(id: string, thumb: boolean, bytes: Buffer): Promise<void> {
    return this.files.bytes(id, thumb, bytes);
  }

  /** `from` names the archive (the ledger's `ledger_imported` record says it); `now` is the import's time. */
  finish(from: string, now: number): void {
    // A conversation's next seq follows the highest one written: the rest of an archive's claims are not taken.
    for (const c of this.convs.values()) {
      if (!c.merged) sql(this.db, 'UPDATE conversations SET last_seq = ? WHERE id = ?').run(c.top, c.id);
      else if (c.top > 0)
        sql(
          this.db,
          `UPDATE conversations SET last_seq = max(last_seq, ?),
             last_event_at = max(last_event_at, (SELECT max(ts) FROM events WHERE conv_id = ? AND seq > ?)) WHERE id = ?`,
        ).run(c.top, c.id, c.floor, c.id);
    }
    for (const [userId, inbox] of this.inboxes) {
      const c = this.convs.get(inbox);
      if (c) sql(this.db, 'UPDATE users SET inbox_id = ? WHERE id = ?').run(c.id, userId);
    }
    // Replies and thread roots that named a message whose id changed after they were written.
    for (const [from, to] of this.msgs) {
      if (to === null) continue;
      sql(this.db, "UPDATE messages SET reply_to = ? WHERE reply_to = ? AND provenance = 'imported'").run(to, from);
      sql(this.db, "UPDATE messages SET thread_id = ? WHERE thread_id = ? AND provenance = 'imported'").run(to, from);
    }
    this.files.finish();
    this.ledger.finish(ownerRow(this.db)?.id, from, now);
    if (this.outOfOrder) sql(this.db, "INSERT OR IGNORE INTO settings (key, value) VALUES ('messages_out_of_time_order', '1')").run();
  }
}
