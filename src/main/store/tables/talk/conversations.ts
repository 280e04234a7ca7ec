import { sql, type Db } from '../../db/db';
import type { ConversationKind, MemberRole, TaskState } from '../../../../shared/types';

export interface ConversationRow {
  id: string;
  kind: ConversationKind;
  title: string;
  created_by: string;
  created_at: number;
  last_seq: number;
  last_event_at: number;
  direct_key: string | null;
  task_state: TaskState | null;
  task_assignee: string | null;
  floor_holder: string | null;
  floor_until: number | null;
  /** The owner archived it (hub/talk/archive.ts): hidden from agents' lists, read-only for agents. */
  archived_at: number | null;
  /** Who archived it: 'owner', or 'retention' (an idle rule). */
  archived_by: string | null;
}

export interface MemberRow {
  conv_id: string;
  user_id: string;
  role: MemberRole;
  from_seq: number;
  joined_at: number;
  read_seq: number;
}

export function insertConversation(
  db: Db,
  c: Pick<ConversationRow, 'id' | 'kind' | 'title' | 'created_by' | 'created_at'> &
    Partial<Pick<ConversationRow, 'direct_key' | 'task_state' | 'task_assignee'>>,
): void {
  sql(
    db,
    `INSERT INTO conversations (id, kind, title, created_by, created_at, last_event_at, direct_key, task_state, task_assignee)
           VALUES (@id, @kind, @title, @created_by, @created_at, @created_at, @direct_key, @task_state, @task_assignee)`,
  ).run({ direct_key: null, task_state: null, task_assignee: null, ...c });
}

export function conversationById(db: Db, id: string): ConversationRow | undefined {
  return sql<ConversationRow>(db, 'SELECT * FROM conversations WHERE id = ?').get(id);
}

export function conversationByDirectKey(db: Db, key: string): ConversationRow | undefined {
  return sql<ConversationRow>(db, 'SELECT * FROM conversations WHERE direct_key = ?').get(key);
}

/** Advances the conversation's seq by one and returns it (the caller appends the event). */
export function nextSeq(db: Db, convId: string, at: number): number {
  // UPDATE then SELECT (in the caller's transaction) is cheaper than UPDATE ... RETURNING.
  const r = sql(db, 'UPDATE conversations SET last_seq = last_seq + 1, last_event_at = ? WHERE id = ?').run(at, convId);
  if (r.changes !== 1) throw new Error(`nextSeq: no conversation ${convId}`);
  return sql<{ last_seq: number }>(db, 'SELECT last_seq FROM conversations WHERE id = ?').get(convId)!.last_seq;
}

export function insertMember(db: Db, m: Omit<MemberRow, 'read_seq'> & { read_seq?: number }): void {
  sql(
    db,
    `INSERT INTO members (conv_id, user_id, role, from_seq, joined_at, read_seq)
           VALUES (@conv_id, @user_id, @role, @from_seq, @joined_at, @read_seq)`,
  ).run({ read_seq: 0, ...m });
}

/** A conversation and the user's membership of it, in one lookup (requireMember runs on most calls). */
export function conversationAndMember(
  db: Db,
  convId: string,
  userId: string,
): { conv: ConversationRow; member: MemberRow | undefined } | undefined {
  const r = sql<
    ConversationRow & { m_role: MemberRole | null; m_from_seq: number | null; m_joined_at: number | null; m_read_seq: number | null }
  >(
    db,
    `SELECT c.*, m.role AS m_role, m.from_seq AS m_from_seq, m.joined_at AS m_joined_at, m.read_seq AS m_read_seq
       FROM conversations c LEFT JOIN members m ON m.conv_id = c.id AND m.user_id = ? WHERE c.id = ?`,
  ).get(userId, convId);
  if (!r) return undefined;
  const { m_role, m_from_seq, m_joined_at, m_read_seq, ...conv } = r;
  return {
    conv,
    member:
      m_role === null
        ? undefined
        : { conv_id: convId, user_id: userId, role: m_role, from_seq: m_from_seq!, joined_at: m_joined_at!, read_seq: m_read_seq! },
  };
}

export function member(db: Db, convId: string, userId: string): MemberRow | undefined {
  return sql<MemberRow>(db, 'SELECT * FROM members WHERE conv_id = ? AND user_id = ?').get(convId, userId);
}

export function membersOf(db: Db, convId: string): MemberRow[] {
  return sql<MemberRow>(db, 'SELECT * FROM members WHERE conv_id = ? ORDER BY joined_at, user_id').all(convId);
}

/** A member's conversations, newest first; archived ones are left out (agents no longer see them in lists). */
export function conversationsOf(db: Db, userId: string, includeInbox = false): ConversationRow[] {
  return includeInbox
    ? sql<ConversationRow>(
        db,
        `SELECT c.* FROM members m JOIN conversations c ON c.id = m.conv_id
                                 WHERE m.user_id = ? AND c.archived_at IS NULL ORDER BY c.last_event_at DESC`,
      ).all(userId)
    : sql<ConversationRow>(
        db,
        `SELECT c.* FROM members m JOIN conversations c ON c.id = m.conv_id
                                 WHERE m.user_id = ? AND c.kind != 'inbox' AND c.archived_at IS NULL ORDER BY c.last_event_at DESC`,
      ).all(userId);
}

/** Every conversation, the agents' private notes channels included (the owner writes in those). */
export function allConversations(db: Db): ConversationRow[] {
  return sql<ConversationRow>(db, 'SELECT * FROM conversations ORDER BY last_event_at DESC').all();
}

/** True when the two users share at least one conversation (inboxes excluded). */
export function shareConversation(db: Db, a: string, b: string): boolean {
  return !!sql(
    db,
    `SELECT 1 FROM members x JOIN members y ON y.conv_id = x.conv_id AND y.user_id = ?
                    JOIN conversations c ON c.id = x.conv_id AND c.kind != 'inbox'
                    WHERE x.user_id = ? LIMIT 1`,
  ).get(b, a);
}

export function setTask(db: Db, convId: string, state: TaskState, assignee: string | null): void {
  sql(db, 'UPDATE conversations SET task_state = ?, task_assignee = ? WHERE id = ?').run(state, assignee, convId);
}

export function setFloor(db: Db, convId: string, holder: string | null, until: number | null): void {
  sql(db, 'UPDATE conversations SET floor_holder = ?, floor_until = ? WHERE id = ?').run(holder, until, convId);
}

export function setReadSeq(db: Db, convId: string, userId: string, seq: number): void {
  sql(db, 'UPDATE members SET read_seq = max(read_seq, ?) WHERE conv_id = ? AND user_id = ?').run(seq, convId, userId);
}

/** seq of the n-th most recent message of a conversation (for a new member's visible history). */
export function seqOfNthLatestMessage(db: Db, convId: string, n: number): number | undefined {
  const row = sql<{ seq: number }>(db, 'SELECT seq FROM messages WHERE conv_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?').get(convId, n - 1);
  return row?.seq;
}

/** How many conversations are archived. */
export function archivedCount(db: Db): number {
  return sql<{ n: number }>(db, 'SELECT count(*) AS n FROM conversations WHERE archived_at IS NOT NULL').get()!.n;
}

/** Archives (at, by) or unarchives (null) a conversation; true when it changed. */
export function setArchived(db: Db, convId: string, at: number | null, by: string | null): boolean {
  return (
    sql(db, `UPDATE conversations SET archived_at = ?, archived_by = ? WHERE id = ? AND (archived_at IS NULL) = (? IS NOT NULL)`).run(
      at,
      at === null ? null : by,
      convId,
      at,
    ).changes === 1
  );
}

/** Conversations not archived, not inboxes, whose last event is before `before` (the idle rule), at most limit. */
export function idleConversations(db: Db, before: number, limit: number): ConversationRow[] {
  return sql<ConversationRow>(
    db,
    `SELECT * FROM conversations WHERE last_event_at < ? AND archived_at IS NULL AND kind != 'inbox'
                                   ORDER BY last_event_at LIMIT (? + 0)`,
  ).all(before, limit);
}
