// The checking walk of perch import (store/export/import.ts): every id a row of an archive names must be a row of
// the same archive, read before it; a file's type is decided by its bytes. Nothing is written here: the archive is
// read whole with these checks before the writing walk (store/export/write-rows.ts) starts.
import { IMAGE_MIME, sniffImage } from '../../../shared/features/files';
import type { ExportKind } from './kinds';
import { ExportFileError } from './read';
import { ArchiveChains } from './ledger-rows';

type Row = Record<string, unknown>;

/** What a files row says about its bytes, checked against the bytes themselves. */
interface FileClaim {
  where: string;
  mime: string;
  is_image: number;
  has_thumb: number;
  thumb_mime: string | null;
}

/**
 * The references between the rows of one export, checked in the checking walk (nothing is written yet): every id
 * a row points at must be a row of the same export, read before it (the kinds' order), and a message a row of a
 * conversation points at must be in that conversation. Duplicate ids and (conversation, seq) pairs are refused;
 * a file's type is decided by its bytes and must be what its row says. Memory: a few entries per row, and the
 * rows are bounded by MAX_ROWS (store/export/read.ts).
 */
export class ArchiveRefs {
  private readonly users = new Set<string>();
  /** Conversation ids and their numbers (messages keep the number, not another copy of the id). */
  private readonly convs = new Map<string, number>();
  private readonly msgConv = new Map<string, number>();
  private readonly requests = new Set<string>();
  /** Direct conversations (by number) and their two people: nobody else may be a member. */
  private readonly directs = new Map<number, string[]>();
  private readonly keyless = new Set<number>();
  private readonly seqs = { messages: new Map<number, Set<number>>(), events: new Map<number, Set<number>>() };
  private readonly fileClaims = new Map<string, FileClaim>();
  private readonly fileTypes = new Map<string, string | null>();
  /** Checked at the end: they may name rows that come later in their kind (users' inboxes, replies, threads). */
  private readonly later: Array<() => void> = [];
  minGid = Number.MAX_SAFE_INTEGER;
  /** The flight recorder's days, each verified as a hash chain (store/export/ledger-rows.ts). */
  readonly ledger = new ArchiveChains();

  private fail(where: string, what: string): never {
    throw new ExportFileError(`${where}: ${what}; an archive may only point at its own rows`);
  }

  private user(where: string, field: string, id: unknown): void {
    if (id !== null && !this.users.has(id as string)) this.fail(where, `${field} ${JSON.stringify(id)} is not in the archive's users`);
  }

  private userList(where: string, field: string, json: unknown): void {
    if (typeof json === 'string') for (const id of JSON.parse(json) as string[]) this.user(where, field, id);
  }

  private conv(where: string, id: unknown): number {
    const n = this.convs.get(id as string);
    if (n === undefined) this.fail(where, `conv_id ${JSON.stringify(id)} is not in the archive's conversations`);
    return n;
  }

  /** A message of the export; in conversation `conv` when given. */
  private msg(where: string, field: string, id: unknown, conv?: number): void {
    if (id === null) return;
    const c = this.msgConv.get(id as string);
    if (c === undefined) this.fail(where, `${field} ${JSON.stringify(id)} is not in the archive's messages`);
    if (conv !== undefined && c !== conv) this.fail(where, `${field} ${JSON.stringify(id)} is a message of another conversation`);
  }

  private unique(where: string, what: string, has: boolean): void {
    if (has) throw new ExportFileError(`${where}: ${what} appears twice in the archive`);
  }

  private seq(where: string, kind: 'messages' | 'events', conv: number, convId: unknown, seq: number): void {
    const m = this.seqs[kind];
    let set = m.get(conv);
    if (!set) m.set(conv, (set = new Set()));
    this.unique(where, `seq ${seq} of conversation ${JSON.stringify(convId)} in ${kind}`, set.has(seq));
    set.add(seq);
  }

  row(kind: ExportKind, r: Row, where: string): void {
    switch (kind.name) {
      case 'ledger_records':
        this.user(where, 'agent_id', r.agent_id);
        return void this.ledger.take(r, where);
      case 'users': {
        this.unique(where, `user ${JSON.stringify(r.id)}`, this.users.has(r.id as string));
        this.users.add(r.id as string);
        if (r.inbox_id !== null) this.later.push(() => void this.conv(where, r.inbox_id));
        return;
      }
      case 'conversations': {
        this.unique(where, `conversation ${JSON.stringify(r.id)}`, this.convs.has(r.id as string));
        this.convs.set(r.id as string, this.convs.size);
        this.user(where, 'created_by', r.created_by);
        this.user(where, 'task_assignee', r.task_assignee);
        this.user(where, 'floor_holder', r.floor_holder);
        if (typeof r.direct_key === 'string') for (const id of r.direct_key.split(':')) this.user(where, 'direct_key', id);
        if (r.kind === 'direct') {
          this.directs.set(this.convs.size - 1, typeof r.direct_key === 'string' ? r.direct_key.split(':') : []);
          if (typeof r.direct_key !== 'string') this.keyless.add(this.convs.size - 1);
        }
        return;
      }
      case 'members': {
        const c = this.conv(where, r.conv_id);
        const two = this.directs.get(c);
        // One imported without its key (its two people had one here already) names its two by its first members.
        if (two && this.keyless.has(c) && two.length < 2 && !two.includes(r.user_id as string)) two.push(r.user_id as string);
        if (two && !two.includes(r.user_id as string))
          throw new ExportFileError(
            `${where}: ${JSON.stringify(r.user_id)} is a member of direct conversation ${JSON.stringify(r.conv_id)} but not one of its two people`,
          );
        return this.user(where, 'user_id', r.user_id);
      }
      case 'messages': {
        const c = this.conv(where, r.conv_id);
        this.unique(where, `message ${JSON.stringify(r.id)}`, this.msgConv.has(r.id as string));
        this.msgConv.set(r.id as string, c);
        this.seq(where, 'messages', c, r.conv_id, r.seq as number);
        this.user(where, 'sender_id', r.sender_id);
        this.user(where, 'claimed_by', r.claimed_by);
        this.userList(where, 'to_ids', r.to_ids);
        this.later.push(() => {
          this.msg(where, 'reply_to', r.reply_to, c);
          this.msg(where, 'thread_id', r.thread_id, c);
        });
        return;
      }
      case 'events': {
        const c = this.conv(where, r.conv_id);
        this.seq(where, 'events', c, r.conv_id, r.seq as number);
        this.user(where, 'actor_id', r.actor_id);
        this.msg(where, 'msg_id', r.msg_id, c);
        this.minGid = Math.min(this.minGid, r.gid as number);
        return;
      }
      case 'reactions':
      case 'card_responses':
      case 'hidden_messages':
        this.msg(where, 'msg_id', r.msg_id);
        return this.user(where, 'user_id', r.user_id);
      case 'pins':
        this.msg(where, 'msg_id', r.msg_id, this.conv(where, r.conv_id));
        return this.user(where, 'pinned_by', r.pinned_by);
      case 'requests': {
        this.unique(where, `request ${JSON.stringify(r.id)}`, this.requests.has(r.id as string));
        this.requests.add(r.id as string);
        this.msg(where, 'msg_id', r.msg_id, this.conv(where, r.conv_id));
        this.user(where, 'requester_id', r.requester_id);
        this.user(where, 'decided_by', r.decided_by);
        return this.userList(where, 'assignees', r.assignees);
      }
      case 'handoffs':
        this.conv(where, r.conv_id);
        this.user(where, 'agent_id', r.agent_id);
        return this.user(where, 'to_user', r.to_user);
      case 'files': {
        this.unique(where, `file ${JSON.stringify(r.id)}`, this.fileClaims.has(r.id as string));
        this.msg(where, 'msg_id', r.msg_id, this.conv(where, r.conv_id));
        this.user(where, 'uploader_id', r.uploader_id);
        this.fileClaims.set(r.id as string, {
          where,
          mime: r.mime as string,
          is_image: r.is_image as number,
          has_thumb: r.has_thumb as number,
          thumb_mime: r.thumb_mime as string | null,
        });
        return;
      }
      case 'state_keys':
      case 'state_values':
        return this.user(where, 'user_id', r.user_id);
      case 'summaries':
        this.conv(where, r.conv_id);
        return this.user(where, 'user_id', r.user_id);
      case 'progress':
        this.msg(where, 'msg_id', r.msg_id, this.conv(where, r.conv_id));
        return this.user(where, 'user_id', r.user_id);
      default:
        throw new ExportFileError(`kind ${kind.name} cannot be imported`);
    }
  }

  /** A file's bytes (or its thumbnail's): its type, from the bytes alone. */
  file(id: string, thumb: boolean, bytes: Buffer): void {
    const type = sniffImage(bytes);
    this.fileTypes.set(thumb ? `${id}.thumb` : id, type === null ? null : IMAGE_MIME[type]);
  }

  finish(): void {
    for (const check of this.later) check();
    for (const [id, f] of this.fileClaims) {
      const type = this.fileTypes.get(id);
      if (type === undefined) throw new ExportFileError(`files/${id} (the bytes of a file) is missing from the archive`);
      const is = type === null ? 'not an image' : `a ${type} image`;
      if (f.is_image !== (type === null ? 0 : 1))
        throw new ExportFileError(`${f.where}: file ${id} says is_image ${f.is_image}, but its bytes are ${is}`);
      if (type !== null ? f.mime !== type : Object.values(IMAGE_MIME).includes(f.mime))
        throw new ExportFileError(`${f.where}: file ${id} says ${f.mime}, but its bytes are ${is}`);
      const thumb = this.fileTypes.get(`${id}.thumb`);
      if (f.has_thumb && thumb === undefined)
        throw new ExportFileError(`files/${id}.thumb (the bytes of a file) is missing from the archive`);
      if (thumb !== undefined) {
        if (!f.has_thumb) throw new ExportFileError(`files/${id}.thumb has no row in files.jsonl`);
        if (type === null || thumb === null || f.thumb_mime !== thumb)
          throw new ExportFileError(
            `${f.where}: the thumbnail of file ${id} must be an image of the thumb_mime its row gives, thumbnailing an image`,
          );
      }
    }
    for (const id of this.fileTypes.keys())
      if (!this.fileClaims.has(id.replace(/\.thumb$/, ''))) throw new ExportFileError(`files/${id} has no row in files.jsonl`);
  }
}
