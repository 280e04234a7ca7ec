// Messages: send, edit, recall, reactions, pins, hiding, history, threads, search.
import { personWritesIn } from './archive';
import type { TalkHub } from './services';
import { newTimeOrderedId } from '../core/hub';
import { HubError } from '../../../shared/errors';
import { LIMITS } from '../../../shared/limits';
import type { MessageView } from '../../../shared/types';
import type { EventView } from '../../../shared/api/event-log';
import {
  addPin,
  addReaction,
  editMessageText,
  hiddenOf,
  insertMessage,
  messageById,
  pinsOf,
  reactionsOf,
  recallMessage as recallRow,
  removePin,
  removeReaction,
  searchMessages,
  setHidden,
  threadReplies,
  type MessageRow,
} from '../../store/tables/talk/messages';
import { allConversations, conversationById, conversationsOf, member, type ConversationRow } from '../../store/tables/talk/conversations';
import { eventsOfConversation } from '../../store/tables/talk/events';
import { deleteFilesOfMessage } from '../../store/tables/talk/files';
import { requireMember, requireMessage, resolveMembers, wakeable, type Access } from './access';
import { passGates } from './gates';
import { eventView, messageView } from '../core/views';
import { noteSent, personSends } from '../control/brakes';
import { instanceName, readsOf, seeInstance } from './agent-sessions';

export interface SendInput {
  conv_id: string;
  text: string;
  to?: string[];
  intent?: string;
  topics?: string[];
  refs?: unknown[];
  sources?: unknown[];
  reply_to?: string;
  thread_id?: string;
  kind?: string;
  payload?: Record<string, unknown>;
  /** Agent sessions (hub/talk/agent-sessions.ts): the sender's instance name, and the addressed one. */
  instance?: string;
  to_instance?: string;
}

import type { SentMessage } from '../../../shared/types';
export type { SentMessage }; // what a send answers (shared/types.ts)

export function requireText(text: string, field = 'text'): string {
  if (text.length > LIMITS.maxTextChars) {
    throw new HubError(
      'too_large',
      `${field} is ${text.length} characters; the limit is ${LIMITS.maxTextChars}.`,
      'Shorten it, or send the material as a file and point to it with refs.',
    );
  }
  return text;
}

/** Sends a message (the caller's transaction, or its own). Used by agents and the owner alike. */
/** opts.brakes false: a held send a person let through, already braked and counted when it was held (hub/features/review/review.ts). */
export function sendMessage(hub: TalkHub, senderId: string, input: SendInput, opts: { brakes?: boolean } = {}): SentMessage {
  return hub.write(() => {
    const access = requireMember(hub, senderId, input.conv_id);
    passGates('conversation', { hub, userId: senderId, access }); // may-speak (hub/talk/gates.ts)
    return insertMessageWithEvent(hub, senderId, access, input, [], opts.brakes ?? true);
  });
}

/**
 * Records a message and its event (the caller's transaction). brakes: false when the send was already
 * counted by the brakes (a held message a person let through, hub/control/brakes.ts).
 */
export function insertMessageWithEvent(
  hub: TalkHub,
  senderId: string,
  access: Access,
  input: SendInput,
  extraWake: string[] = [],
  brakes = true,
): SentMessage {
  const text = requireText(input.text);
  const convId = access.conv.id;
  const [senderInstance, toInstance] = [instanceName(input.instance), instanceName(input.to_instance)]; // hub/talk/agent-sessions.ts
  const to = input.to?.length ? resolveMembers(hub, convId, input.to, 'to') : otherSide(hub, access.conv, senderId, input.intent);
  const replied = input.reply_to ? requireMessage(hub, access, input.reply_to, 'message to reply to') : undefined;
  let threadId: string | undefined;
  if (input.thread_id) {
    const root = requireMessage(hub, access, input.thread_id, 'thread root');
    threadId = root.thread_id ?? root.id; // a reply's id leads to its thread's root
  }
  // The gates with the words (hub/talk/gates.ts: brakes): an agent's send may be refused; a person's send lifts a loop pause.
  const agentSends = brakes && hub.user(senderId).kind === 'agent';
  if (agentSends) passGates('words', { hub, userId: senderId, access, words: input, replied });
  else if (brakes) {
    personSends(hub, senderId, convId);
    personWritesIn(hub, access.conv); // an archived conversation comes back (hub/talk/archive.ts)
  }
  const at = hub.now();
  const id = newTimeOrderedId('m');
  const woken = wakeable(hub, access.conv, senderId, [...to, ...extraWake]);
  const { seq } = hub.emit(convId, 'message.created', senderId, { msgId: id, wake: woken });
  insertMessage(hub.db, {
    id,
    conv_id: convId,
    seq,
    sender_id: senderId,
    kind: input.kind ?? 'text',
    text,
    intent: input.intent ?? null,
    reply_to: input.reply_to ?? null,
    thread_id: threadId ?? null,
    to_ids: to.length ? JSON.stringify(to) : null,
    topics: input.topics?.length ? JSON.stringify(input.topics) : null,
    refs: input.refs?.length ? JSON.stringify(input.refs) : null,
    sources: input.sources?.length ? JSON.stringify(input.sources) : null,
    payload: input.payload ? JSON.stringify(input.payload) : null,
    created_at: at,
    sender_instance: senderInstance ?? null,
    to_instance: toInstance ?? null,
  });
  if (agentSends) noteSent(hub, senderId, convId, text, input.kind); // brakes: count it
  if (senderInstance) seeInstance(hub, senderId, senderInstance);
  return {
    msg_id: id,
    conv_id: convId,
    seq,
    created_at: at,
    ...(threadId ? { thread_id: threadId } : {}),
    to: to.map((u) => hub.ref(u).name),
    woken: woken.map((u) => hub.ref(u).name),
  };
}

/**
 * Whom a message without `to` names: in a direct conversation (owner and agent, or two agents) the other side, who is
 * then woken like anyone named (and its wake run starts). Not a status or done message: those name nobody on purpose
 * (updates nobody must answer; the notice brake refuses replies to them). Nobody elsewhere, nor when the sender is
 * not one of the two sides (the owner reading in on two agents' direct conversation).
 */
function otherSide(hub: TalkHub, conv: ConversationRow, senderId: string, intent: string | undefined): string[] {
  if (conv.kind !== 'direct' || !conv.direct_key || intent === 'status' || intent === 'done') return [];
  const sides = conv.direct_key.split(':');
  if (sides.length !== 2 || !sides.includes(senderId)) return [];
  const other = sides[0] === senderId ? sides[1]! : sides[0]!;
  if (other === senderId || !member(hub.db, conv.id, other) || hub.user(other).revoked_at != null) return [];
  return [other];
}

function requireOwnLiveMessage(hub: TalkHub, userId: string, msgId: string, verb: string): { msg: MessageRow; access: Access } {
  const msg = messageById(hub.db, msgId);
  const m = msg && member(hub.db, msg.conv_id, userId);
  if (!msg || !m || msg.seq < m.from_seq) {
    throw new HubError('not_found', `No message ${msgId} that you can see.`, 'Use a msg_id from get_updates or get_history.');
  }
  if (msg.sender_id !== userId) {
    throw new HubError('forbidden', `Only its sender can ${verb} message ${msgId}.`, 'Send a new message instead.');
  }
  if (msg.recalled_at) {
    throw new HubError('conflict', `Message ${msgId} was recalled.`, 'Send a new message instead.');
  }
  return { msg, access: { conv: conversationById(hub.db, msg.conv_id)!, member: m } };
}

/** edit_message's checks, writing nothing (review mode holds an edit after them, hub/features/review/review-calls.ts). */
export function checkEdit(hub: TalkHub, userId: string, msgId: string, text: string): MessageRow {
  const { msg, access } = requireOwnLiveMessage(hub, userId, msgId, 'edit');
  passGates('conversation', { hub, userId, access }); // may-speak (hub/talk/gates.ts)
  requireText(text);
  if (msg.kind !== 'text') {
    throw new HubError(
      'invalid_argument',
      `Message ${msgId} is a ${msg.kind}; only text messages can be edited.`,
      'Send a new message instead.',
    );
  }
  return msg;
}

/** An edit takes provenance.reviewed away (store/tables/talk/messages.ts): a person approved the old text, not this one. */
export function editMessage(
  hub: TalkHub,
  userId: string,
  msgId: string,
  text: string,
): { msg_id: string; conv_id: string; seq: number; edited_at: number } {
  return hub.write(() => {
    const msg = checkEdit(hub, userId, msgId, text);
    const { seq, at } = hub.emit(msg.conv_id, 'message.edited', userId, { msgId });
    editMessageText(hub.db, msgId, text, at);
    return { msg_id: msgId, conv_id: msg.conv_id, seq, edited_at: at };
  });
}

export function recallMessage(
  hub: TalkHub,
  userId: string,
  msgId: string,
): { msg_id: string; conv_id: string; seq: number; recalled: true } {
  return hub.write(() => {
    const { msg } = requireOwnLiveMessage(hub, userId, msgId, 'recall');
    if (msg.kind === 'request') {
      throw new HubError(
        'invalid_argument',
        `Message ${msgId} is a request; withdraw it with cancel_request.`,
        'Call cancel_request with its request_id.',
      );
    }
    const { seq, at } = hub.emit(msg.conv_id, 'message.recalled', userId, { msgId });
    recallRow(hub.db, msgId, at);
    deleteFilesOfMessage(hub.db, msgId); // a recalled file's bytes are deleted too
    return { msg_id: msgId, conv_id: msg.conv_id, seq, recalled: true };
  });
}

// ---- reactions --------------------------------------------------------------------------

const NAMED_REACTION = /^:[a-z0-9_+-]{1,32}:$/;
/** Made on the first reaction: building a Segmenter loads ICU break data (tens of ms at hub start). */
let segmenter: Intl.Segmenter | undefined;

export function validateReactionKey(key: string): string {
  if (NAMED_REACTION.test(key)) return key;
  const graphemes = [...(segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' })).segment(key)];
  if (graphemes.length === 1 && /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(key)) return key;
  throw new HubError(
    'invalid_argument',
    `Reaction ${JSON.stringify(key)} is not one emoji or a :name:.`,
    'Use a single emoji such as 👀 or ✅, or a name like :done:.',
  );
}

export function react(
  hub: TalkHub,
  userId: string,
  convId: string,
  msgId: string,
  key: string,
  add: boolean,
): { msg_id: string; key: string; changed: boolean } {
  return hub.write(() => {
    const access = requireMember(hub, userId, convId);
    const msg = requireMessage(hub, access, msgId);
    if (msg.recalled_at) throw new HubError('conflict', `Message ${msgId} was recalled.`, 'React to another message.');
    const k = add ? validateReactionKey(key) : key;
    const at = hub.now();
    const changed = add ? addReaction(hub.db, msgId, userId, k, at) : removeReaction(hub.db, msgId, userId, k);
    if (changed) hub.emit(convId, add ? 'reaction.added' : 'reaction.removed', userId, { msgId, data: { key: k } });
    return { msg_id: msgId, key: k, changed };
  });
}

// ---- pins -------------------------------------------------------------------------------

export function pin(
  hub: TalkHub,
  userId: string,
  convId: string,
  msgId: string,
  on: boolean,
): { msg_id: string; pinned: boolean; changed: boolean } {
  return hub.write(() => {
    const access = requireMember(hub, userId, convId);
    const msg = requireMessage(hub, access, msgId);
    if (on && msg.recalled_at) throw new HubError('conflict', `Message ${msgId} was recalled.`, 'Pin another message.');
    const changed = on ? addPin(hub.db, convId, msgId, userId, hub.now()) : removePin(hub.db, convId, msgId);
    if (changed) hub.emit(convId, on ? 'pin.added' : 'pin.removed', userId, { msgId });
    return { msg_id: msgId, pinned: on, changed };
  });
}

export function listPins(hub: TalkHub, userId: string, convId: string, limit: number = LIMITS.historyDefaultLimit, asOwner = false) {
  const access = asOwner ? ownerAccess(hub, convId) : requireMember(hub, userId, convId);
  const rows = pinsOf(hub.db, convId, Math.min(limit, LIMITS.historyMaxLimit)).filter((r) => r.seq >= access.member.from_seq);
  return {
    conv_id: convId,
    pins: rows.map((r) => ({
      message: withReactions(hub, [messageView(hub, r)], userId)[0]!,
      pinned_by: hub.ref(r.pinned_by),
      pinned_at: r.pinned_at,
    })),
  };
}

// ---- hiding (one person's own view) ------------------------------------------------------------

/**
 * A person hides a message from their own view, or shows it again (on = false): any message they can
 * read, an agent's too (recall is only for their own). Nothing changes for anyone else and nothing is
 * written to the log agents read; their reads carry hidden: true (withReactions). When the owner's view
 * changed, every open window of the owner learns it after the commit (the live stream's message_hidden).
 */
export function hideMessage(
  hub: TalkHub,
  userId: string,
  msgId: string,
  on: boolean,
): { msg_id: string; conv_id: string; hidden: boolean; changed: boolean } {
  const result = hub.write(() => {
    const msg = messageById(hub.db, msgId);
    if (!msg) throw new HubError('not_found', `No message ${msgId}.`, 'Use a msg_id from the conversation history.');
    const changed = setHidden(hub.db, userId, msgId, on, hub.now());
    return { msg_id: msgId, conv_id: msg.conv_id, hidden: on, changed };
  });
  if (result.changed && userId === hub.ownerId) {
    hub.bus.publish({ kind: 'hub', value: { message_hidden: { msg_id: result.msg_id, conv_id: result.conv_id, hidden: result.hidden } } });
  }
  return result;
}

// ---- reading ----------------------------------------------------------------------------

export type MessageWithReactions = MessageView & { reactions?: Array<{ key: string; count: number; users: string[]; mine: boolean }> };

/** Messages as one viewer reads them: with their reactions, and (for the owner) hidden: true on those the owner hid. */
export function withReactions(hub: TalkHub, messages: MessageView[], viewerId: string): MessageWithReactions[] {
  const ids = messages.map((m) => m.msg_id);
  const hidden = viewerId === hub.ownerId ? hiddenOf(hub.db, viewerId, ids) : undefined;
  const rows = reactionsOf(hub.db, ids);
  if (rows.length === 0 && !hidden?.size) return messages;
  const by = new Map<string, Map<string, string[]>>();
  for (const r of rows) {
    let keys = by.get(r.msg_id);
    if (!keys) by.set(r.msg_id, (keys = new Map()));
    const users = keys.get(r.key) ?? [];
    users.push(r.user_id);
    keys.set(r.key, users);
  }
  return messages.map((m) => {
    const keys = by.get(m.msg_id);
    let out: MessageWithReactions = m;
    if (keys)
      out = {
        ...m,
        reactions: [...keys].map(([key, users]) => ({
          key,
          count: users.length,
          users: users.map((u) => hub.ref(u).name),
          mine: users.includes(viewerId),
        })),
      };
    if (hidden?.has(m.msg_id)) out = { ...out, hidden: true };
    return out;
  });
}

function attachReactions(hub: TalkHub, events: EventView[], viewerId: string): EventView[] {
  const msgs = events.filter((e) => e.type === 'message.created' && e.message).map((e) => e.message!);
  const decorated = new Map(withReactions(hub, msgs, viewerId).map((m) => [m.msg_id, m]));
  return events.map((e) => (e.type === 'message.created' && e.message ? { ...e, message: decorated.get(e.message.msg_id)! } : e));
}

export function getHistory(
  hub: TalkHub,
  userId: string,
  convId: string,
  opts: { before_seq?: number; after_seq?: number; limit?: number },
  asOwner = false,
) {
  const fromSeq = asOwner ? 1 : requireMember(hub, userId, convId).member.from_seq;
  if (asOwner && !conversationById(hub.db, convId)) {
    throw new HubError('not_found', `No conversation ${convId}.`, 'Use a conv_id from the conversation list.');
  }
  if (opts.before_seq !== undefined && opts.after_seq !== undefined) {
    throw new HubError(
      'invalid_argument',
      'Give before_seq or after_seq, not both.',
      'Page backwards with before_seq, or forwards with after_seq.',
    );
  }
  const limit = Math.min(opts.limit ?? LIMITS.historyDefaultLimit, LIMITS.historyMaxLimit);
  const rows = eventsOfConversation(hub.db, convId, { afterSeq: opts.after_seq, beforeSeq: opts.before_seq, fromSeq, limit: limit + 1 });
  let more = rows.length > limit;
  const page = opts.after_seq !== undefined ? rows.slice(0, limit) : rows.slice(rows.length > limit ? 1 : 0);
  if (!more && page.length) more = false;
  const events = attachReactions(
    hub,
    page.map((r) => eventView(hub, r, userId)),
    userId,
  );
  const conv = conversationById(hub.db, convId)!;
  return {
    conv_id: convId,
    events,
    first_seq: events[0]?.seq ?? null,
    last_seq: events[events.length - 1]?.seq ?? null,
    /** More events exist beyond this page in the direction you paged. */
    more,
    conversation_last_seq: conv.last_seq,
    visible_from_seq: fromSeq,
    /** Read receipts: how far each member (and named instance) confirmed (hub/talk/agent-sessions.ts). */
    reads: readsOf(hub, convId),
  };
}

export function getThread(
  hub: TalkHub,
  userId: string,
  convId: string,
  threadId: string,
  opts: { after_seq?: number; limit?: number },
  asOwner = false,
) {
  const access = asOwner ? ownerAccess(hub, convId) : requireMember(hub, userId, convId);
  const root = requireMessage(hub, access, threadId, 'thread root');
  const rootId = root.thread_id ?? root.id;
  const rootRow = rootId === root.id ? root : requireMessage(hub, access, rootId, 'thread root');
  const limit = Math.min(opts.limit ?? LIMITS.historyDefaultLimit, LIMITS.historyMaxLimit);
  const replies = threadReplies(hub.db, convId, rootId, opts.after_seq ?? 0, access.member.from_seq, limit + 1);
  const more = replies.length > limit;
  const views = withReactions(
    hub,
    [rootRow, ...replies.slice(0, limit)].map((m) => messageView(hub, m)),
    userId,
  );
  return {
    conv_id: convId,
    thread_id: rootId,
    root: views[0],
    replies: views.slice(1),
    more,
    last_seq: views.length > 1 ? views[views.length - 1]!.seq : null,
  };
}

function ownerAccess(hub: TalkHub, convId: string): Access {
  const conv = conversationById(hub.db, convId);
  if (!conv) throw new HubError('not_found', `No conversation ${convId}.`, 'Use a conv_id from the conversation list.');
  return {
    conv,
    member: member(hub.db, convId, hub.ownerId) ?? {
      conv_id: convId,
      user_id: hub.ownerId,
      role: 'owner',
      from_seq: 1,
      joined_at: 0,
      read_seq: 0,
    },
  };
}

export interface SearchInput {
  query: string;
  conv_id?: string;
  sender_id?: string;
  sender_type?: string;
  kind?: string;
  intent?: string;
  topic?: string;
  has_refs?: boolean;
  since?: number;
  until?: number;
  limit?: number;
}

export function search(hub: TalkHub, userId: string, input: SearchInput, asOwner = false) {
  const query = input.query.trim();
  if (!query) throw new HubError('invalid_argument', 'query is empty.', 'Search for some text.');
  let convIds: string[];
  const fromSeq = new Map<string, number>();
  let complete = true;
  if (input.conv_id) {
    if (asOwner) {
      ownerAccess(hub, input.conv_id);
      fromSeq.set(input.conv_id, 1);
    } else {
      fromSeq.set(input.conv_id, requireMember(hub, userId, input.conv_id).member.from_seq);
    }
    convIds = [input.conv_id];
  } else if (asOwner) {
    // The owner sees every conversation, from its start.
    convIds = allConversations(hub.db).map((c) => c.id);
    for (const id of convIds) fromSeq.set(id, 1);
  } else {
    const convs = conversationsOf(hub.db, userId);
    complete = convs.length <= LIMITS.searchRecentConversations;
    convIds = convs.slice(0, LIMITS.searchRecentConversations).map((c) => c.id);
    for (const id of convIds) fromSeq.set(id, member(hub.db, id, userId)?.from_seq ?? 1);
  }
  const limit = Math.min(input.limit ?? LIMITS.searchDefaultLimit, LIMITS.searchMaxLimit);
  const rows = searchMessages(hub.db, {
    convIds,
    fromSeq,
    query,
    senderId: input.sender_id,
    senderKind: input.sender_type,
    kind: input.kind,
    intent: input.intent,
    topic: input.topic,
    hasRefs: input.has_refs,
    since: input.since,
    until: input.until,
    limit,
  });
  return { query, messages: rows.map((r) => messageView(hub, r)), complete, searched_conversations: convIds.length };
}
