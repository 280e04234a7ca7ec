// Who may see and do what. Every agent-facing service goes through these checks.
import type { Hub } from '../core/hub';
import type { ControlServices } from '../control/services';
import { HubError } from '../../../shared/errors';
import {
  conversationAndMember,
  conversationById,
  member,
  shareConversation,
  type ConversationRow,
  type MemberRow,
} from '../../store/tables/talk/conversations';
import { messageById, type MessageRow } from '../../store/tables/talk/messages';
import { userById, userByName, type UserRow } from '../../store/tables/agents/users';
import { activeHandoff } from '../../store/tables/talk/handoffs';
import { TERMINAL_TASK_STATES } from '../../../shared/types';
import { OutsideMemo, type OutsideWrites } from '../core/outside-writes';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type AccessHub = Hub<ControlServices & { userIds: OutsideMemo<string> }>;

export interface Access {
  conv: ConversationRow;
  member: MemberRow;
}

/** The conversation and the caller's membership, or a not_found / not_member refusal. */
export function requireMember(hub: AccessHub, userId: string, convId: string): Access {
  const found = conversationAndMember(hub.db, convId, userId);
  if (!found) {
    throw new HubError('not_found', `No conversation ${convId}.`, 'Use a conv_id from list_conversations or get_updates.');
  }
  const { conv, member: m } = found;
  if (!m) {
    throw new HubError(
      'not_member',
      `You are not a member of conversation ${convId}.`,
      'Use list_conversations to see the conversations you are in, or ask a manager to add you.',
    );
  }
  return { conv, member: m };
}

/** A message of the conversation that the member may see. */
export function requireMessage(hub: AccessHub, access: Access, msgId: string, what = 'message'): MessageRow {
  const msg = messageById(hub.db, msgId);
  if (!msg || msg.conv_id !== access.conv.id || msg.seq < access.member.from_seq) {
    throw new HubError(
      'not_found',
      `No ${what} ${msgId} in conversation ${access.conv.id}.`,
      'Use a msg_id from get_updates or get_history of this conversation.',
    );
  }
  return msg;
}

/** A message anywhere the user may see it (tools that take only a msg_id). */
export function requireVisibleMessage(hub: AccessHub, userId: string, msgId: string): { msg: MessageRow; access: Access } {
  const msg = messageById(hub.db, msgId);
  const m = msg && member(hub.db, msg.conv_id, userId);
  if (!msg || !m || msg.seq < m.from_seq) {
    throw new HubError('not_found', `No message ${msgId} that you can see.`, 'Use a msg_id from get_updates or get_history.');
  }
  return { msg, access: { conv: conversationById(hub.db, msg.conv_id)!, member: m } };
}

/** A user by exact name or id. */
export function resolveUser(hub: AccessHub, nameOrId: string): UserRow {
  const u = userByName(hub.db, nameOrId) ?? userById(hub.db, nameOrId);
  if (!u || u.revoked_at != null) {
    throw new HubError('not_found', `No user "${nameOrId}".`, 'Use an exact user name (find_user) or id.');
  }
  return u;
}

/**
 * Whom an agent may contact: its owner, the owner's other agents, or someone it already shares
 * a conversation with. (One owner per hub, so every agent here is the owner's.)
 */
export function requireContactable(hub: AccessHub, fromId: string, target: UserRow): void {
  if (target.id === fromId) {
    throw new HubError('invalid_argument', 'You cannot open a conversation with yourself.', 'Name another person or agent.');
  }
  const from = hub.user(fromId);
  if (from.kind === 'human') return;
  if (target.kind === 'human' && target.id === hub.ownerId) return;
  if (target.kind === 'agent') return; // a sibling: every agent of this hub belongs to its owner
  if (shareConversation(hub.db, fromId, target.id)) return;
  throw new HubError('forbidden', `You may not contact "${target.name}".`, 'Ask your owner to introduce you in a shared conversation.');
}

/** The cache of user ids by name, as the composition root makes it. */
export function userIdCache(outside: OutsideWrites): OutsideMemo<string> {
  return new OutsideMemo(outside);
}

/** Resolves names or ids to members of the conversation; unknown or non-member names are refused. */
export function resolveMembers(hub: AccessHub, convId: string, names: readonly string[] | undefined, field: string): string[] {
  if (!names || names.length === 0) return [];
  const ids: string[] = [];
  for (const n of names) {
    const id = hub.services.userIds.get(n, () => (userByName(hub.db, n) ?? userById(hub.db, n))?.id);
    if (id === undefined || !member(hub.db, convId, id)) {
      throw new HubError(
        'invalid_argument',
        `${field}: "${n}" is not a member of conversation ${convId}.`,
        'Name members of the conversation (list_conversations shows them).',
      );
    }
    ids.push(id);
  }
  return [...new Set(ids)];
}

export function isManager(m: MemberRow | undefined): boolean {
  return !!m && (m.role === 'owner' || m.role === 'admin');
}

export function isTerminalTask(conv: ConversationRow): boolean {
  return conv.kind === 'task' && !!conv.task_state && TERMINAL_TASK_STATES.includes(conv.task_state);
}

/** Refuses an agent's speech where it must stay silent: notes channel, ended task, handed off, someone else's floor (the may-speak gate, hub/talk/gates.ts). */
export function requireMaySpeak(hub: AccessHub, userId: string, access: Access): void {
  const user = hub.user(userId);
  if (user.kind === 'human') return;
  const { conv } = access;
  if (conv.kind === 'inbox') {
    throw new HubError(
      'forbidden',
      "This is your owner's private notes channel; you cannot write here.",
      'Answer your owner in your direct conversation (open_direct with your owner).',
    );
  }
  if (isTerminalTask(conv)) {
    throw new HubError(
      'silenced',
      `Task ${conv.id} is ${conv.task_state}; agents cannot speak in it.`,
      'Open a new task or talk elsewhere; a manager can reopen it with update_task.',
    );
  }
  const h = activeHandoff(hub.db, conv.id, userId);
  if (h) {
    throw new HubError(
      'silenced',
      `You handed this conversation to ${hub.ref(h.to_user).name}; you are silent here until they hand it back.`,
      'Wait for the handoff.returned event in get_updates.',
    );
  }
  if (conv.floor_holder && conv.floor_holder !== userId && (conv.floor_until ?? 0) > hub.now()) {
    throw new HubError(
      'silenced',
      `${hub.ref(conv.floor_holder).name} holds the floor in this conversation until ${new Date(conv.floor_until!).toISOString()}.`,
      'Wait until the floor is released or granted to you.',
      { floor_holder: hub.ref(conv.floor_holder).name, until: conv.floor_until },
    );
  }
}

/** Of the users named by an event, those who are actually woken: not the actor, not silenced there. */
export function wakeable(hub: AccessHub, conv: ConversationRow, actorId: string | null, ids: readonly string[]): string[] {
  if (ids.length === 0) return [];
  if (isTerminalTask(conv)) return [];
  return ids.filter((id) => id !== actorId && !activeHandoff(hub.db, conv.id, id));
}
