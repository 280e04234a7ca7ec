// Conversations: direct, group, task; membership; the list with unread counts.
import type { TalkHub } from './services';
import { conversationPause } from '../control/brakes';
import { newId } from '../core/hub';
import { HubError } from '../../../shared/errors';
import type { ConversationKind, ConversationView, MemberRole } from '../../../shared/types';
import type { EventPayloads } from '../../../shared/api/event-log';
import {
  allConversations,
  conversationByDirectKey,
  conversationById,
  conversationsOf,
  insertConversation,
  insertMember,
  member,
  membersOf,
  seqOfNthLatestMessage,
  type ConversationRow,
} from '../../store/tables/talk/conversations';
import { countMessagesAfterGid, countMessagesAfterSeq, cursorOf } from '../../store/tables/talk/events';
import { activeHandoffsOf } from '../../store/tables/talk/handoffs';
import { isManager, requireContactable, requireMember, resolveUser } from './access';
import { LIMITS } from '../../../shared/limits';

export function conversationView(hub: TalkHub, conv: ConversationRow, viewerId: string): ConversationView {
  const members = membersOf(hub.db, conv.id).map((m) => ({ ...hub.ref(m.user_id), role: m.role }));
  const view: ConversationView = {
    conv_id: conv.id,
    kind: conv.kind,
    title: conv.title || directTitle(hub, conv, members, viewerId),
    members,
    last_seq: conv.last_seq,
    last_event_at: conv.last_event_at,
    unread: unreadCount(hub, conv, viewerId),
  };
  if (conv.kind === 'task') {
    view.task = { state: conv.task_state!, assignee: conv.task_assignee ? hub.ref(conv.task_assignee) : null };
  }
  if (conv.floor_holder && (conv.floor_until ?? 0) > hub.now())
    view.floor = { holder: hub.ref(conv.floor_holder), until: conv.floor_until! };
  const handoffs = activeHandoffsOf(hub.db, conv.id);
  if (handoffs.length)
    view.handoffs = handoffs.map((h) => ({ agent: hub.ref(h.agent_id), to: hub.ref(h.to_user), note: h.note, at: h.at }));
  const paused = conversationPause(hub, conv.id); // the loop brake (hub/control/brakes.ts)
  if (paused) view.paused = paused;
  if (conv.archived_at != null) view.archived = { at: conv.archived_at, by: conv.archived_by === 'retention' ? 'retention' : 'owner' };
  return view;
}

function directTitle(hub: TalkHub, conv: ConversationRow, members: Array<{ id: string; name: string }>, viewerId: string): string {
  if (conv.kind !== 'direct') return conv.title;
  const other = members.filter((m) => m.id !== viewerId).map((m) => m.name);
  return other.length ? other.join(', ') : members.map((m) => m.name).join(', ');
}

/** Unread messages from others: agents count from their confirmed delivery position, people from what they read. */
function unreadCount(hub: TalkHub, conv: ConversationRow, viewerId: string): number {
  const m = member(hub.db, conv.id, viewerId);
  if (!m) return 0;
  if (hub.user(viewerId).kind === 'agent') {
    return countMessagesAfterGid(hub.db, conv.id, cursorOf(hub.db, viewerId).confirmed_gid, m.from_seq, viewerId);
  }
  return countMessagesAfterSeq(hub.db, conv.id, Math.max(m.read_seq, m.from_seq - 1), viewerId);
}

export function listConversations(hub: TalkHub, userId: string): ConversationView[] {
  return conversationsOf(hub.db, userId).map((c) => conversationView(hub, c, userId));
}

/** Every conversation (the owner sees all of them, member or not). */
export function listAllConversations(hub: TalkHub): ConversationView[] {
  return allConversations(hub.db).map((c) => conversationView(hub, c, hub.ownerId));
}

function createConversation(
  hub: TalkHub,
  creatorId: string,
  kind: ConversationKind,
  title: string,
  memberIds: string[],
  extra: { direct_key?: string; task_state?: 'submitted'; task_assignee?: string | null; wake?: string[] } = {},
): ConversationRow {
  const at = hub.now();
  const id = newId('c');
  insertConversation(hub.db, {
    id,
    kind,
    title,
    created_by: creatorId,
    created_at: at,
    direct_key: extra.direct_key ?? null,
    task_state: extra.task_state ?? null,
    task_assignee: extra.task_assignee ?? null,
  });
  const roles = new Map<string, MemberRole>();
  for (const uid of memberIds) roles.set(uid, 'member');
  if (kind !== 'direct') {
    roles.set(hub.ownerId, 'owner');
    if (creatorId !== hub.ownerId) roles.set(creatorId, 'admin');
  } else {
    roles.set(creatorId, 'member');
  }
  for (const [uid, role] of roles) insertMember(hub.db, { conv_id: id, user_id: uid, role, from_seq: 1, joined_at: at });
  hub.emit(id, 'conversation.created', creatorId, {
    data: {
      kind,
      title,
      members: [...roles.keys()].map((u) => hub.ref(u).name),
      ...(extra.task_assignee ? { assignee: hub.ref(extra.task_assignee).name } : {}),
    },
    wake: (extra.wake ?? []).filter((u) => u !== creatorId),
  });
  return conversationById(hub.db, id)!;
}

export function openDirect(hub: TalkHub, userId: string, target: string): ConversationView {
  return hub.write(() => {
    const other = resolveUser(hub, target);
    requireContactable(hub, userId, other);
    const key = [userId, other.id].sort().join(':');
    const conv =
      conversationByDirectKey(hub.db, key) ?? createConversation(hub, userId, 'direct', '', [userId, other.id], { direct_key: key });
    return conversationView(hub, conv, userId);
  });
}

function resolveContactables(hub: TalkHub, userId: string, names: readonly string[]): string[] {
  const ids = new Set<string>();
  for (const n of names) {
    const u = resolveUser(hub, n);
    if (u.id === userId) continue;
    requireContactable(hub, userId, u);
    ids.add(u.id);
  }
  return [...ids];
}

export function createGroup(hub: TalkHub, userId: string, title: string, members: readonly string[]): ConversationView {
  return hub.write(() => {
    const { title: t, ids } = checkNewGroup(hub, userId, title, members);
    const conv = createConversation(hub, userId, 'group', t, [userId, ...ids]);
    return conversationView(hub, conv, userId);
  });
}

/** create_group's checks, writing nothing (review mode holds a group after them, hub/features/review/review-calls.ts). */
export function checkNewGroup(hub: TalkHub, userId: string, title: string, members: readonly string[]): { title: string; ids: string[] } {
  return { title: requireTitle(title), ids: resolveContactables(hub, userId, members) };
}

/** create_task's checks, writing nothing: the title, the members (the assignee among them) and the assignee. */
export function checkNewTask(
  hub: TalkHub,
  userId: string,
  title: string,
  members: readonly string[],
  assignee?: string,
): { title: string; ids: string[]; assigneeId: string | null } {
  const t = requireTitle(title);
  const ids = resolveContactables(hub, userId, members);
  let assigneeId: string | null = null;
  if (assignee) {
    const a = resolveUser(hub, assignee);
    if (a.id !== userId) requireContactable(hub, userId, a);
    assigneeId = a.id;
    if (!ids.includes(a.id) && a.id !== userId) ids.push(a.id);
  }
  return { title: t, ids, assigneeId };
}

export function createTask(hub: TalkHub, userId: string, title: string, members: readonly string[], assignee?: string): ConversationView {
  return hub.write(() => {
    const { title: t, ids, assigneeId } = checkNewTask(hub, userId, title, members, assignee);
    const conv = createConversation(hub, userId, 'task', t, [userId, ...ids], {
      task_state: 'submitted',
      task_assignee: assigneeId,
      wake: assigneeId ? [assigneeId] : [],
    });
    return conversationView(hub, conv, userId);
  });
}

export function requireTitle(title: string): string {
  const t = title.trim();
  if (!t) throw new HubError('invalid_argument', 'title is empty.', 'Give it a short title in plain words.');
  if (t.length > LIMITS.maxTitleChars)
    throw new HubError('too_large', `title is over ${LIMITS.maxTitleChars} characters.`, 'Shorten the title.');
  return t;
}

/**
 * The one way a member joins an existing conversation: adds the row and emits member.added, in the
 * caller's transaction (add_member, a handoff to the owner, the owner speaking in a conversation).
 * fromSeq: the first event they see (1: all of it); history: what add_member was asked (null: all);
 * reason: why, when not add_member (e.g. 'handoff'); wake: who is woken by it.
 */
export function joinConversation(
  hub: TalkHub,
  actorId: string,
  convId: string,
  userId: string,
  opts: { role?: MemberRole; fromSeq?: number; history?: number | null; reason?: string; wake?: readonly string[] } = {},
): void {
  insertMember(hub.db, {
    conv_id: convId,
    user_id: userId,
    role: opts.role ?? 'member',
    from_seq: opts.fromSeq ?? 1,
    joined_at: hub.now(),
  });
  const data: EventPayloads['member.added'] = { user: hub.ref(userId), history: opts.history ?? null };
  if (opts.reason) data.reason = opts.reason;
  hub.emit(convId, 'member.added', actorId, { data, wake: opts.wake });
}

export function addMember(hub: TalkHub, userId: string, convId: string, user: string, history?: number): ConversationView {
  return hub.write(() => {
    const access = requireMember(hub, userId, convId);
    if (access.conv.kind === 'direct' || access.conv.kind === 'inbox') {
      throw new HubError(
        'invalid_argument',
        'Members can be added to groups and task channels only.',
        'Create a group with create_group instead.',
      );
    }
    if (!isManager(access.member)) {
      throw new HubError('forbidden', 'Only a manager of this group can add members.', "Ask the group's owner or an admin.");
    }
    const u = resolveUser(hub, user);
    requireContactable(hub, userId, u);
    if (member(hub.db, convId, u.id)) {
      throw new HubError('conflict', `${u.name} is already a member.`, 'Nothing to do.');
    }
    const conv = access.conv;
    let fromSeq = 1;
    if (history !== undefined) {
      fromSeq = history <= 0 ? conv.last_seq + 1 : (seqOfNthLatestMessage(hub.db, convId, history) ?? 1);
    }
    joinConversation(hub, userId, convId, u.id, { fromSeq, history: history ?? null, wake: [u.id] });
    return conversationView(hub, conversationById(hub.db, convId)!, userId);
  });
}
