// Domain types shared by the hub, the MCP endpoint, the owner API and the UI. Pure: no Node, no DOM.
import type { ConversationPause } from './agents/brakes';

export type UserKind = 'human' | 'agent';
export type ConversationKind = 'direct' | 'group' | 'task' | 'inbox';
export type MemberRole = 'owner' | 'admin' | 'member';

export const INTENTS = ['request', 'proposal', 'answer', 'status', 'done'] as const;
export type Intent = (typeof INTENTS)[number];

export const TASK_STATES = ['submitted', 'working', 'input_required', 'completed', 'failed', 'canceled'] as const;
export type TaskState = (typeof TASK_STATES)[number];
export const TERMINAL_TASK_STATES: readonly TaskState[] = ['completed', 'failed', 'canceled'];

export const REQUEST_KINDS = ['approve', 'answer', 'choose'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];
export const REQUEST_STATES = ['pending', 'approved', 'rejected', 'answered', 'chosen', 'expired', 'cancelled'] as const;
export type RequestState = (typeof REQUEST_STATES)[number];
/** The states a decision leaves a request in (request.decided). */
export type DecidedRequestState = Exclude<RequestState, 'pending' | 'expired' | 'cancelled'>;

export const PROGRESS_KINDS = ['thinking', 'tool_call', 'tool_result', 'plan', 'step', 'error'] as const;
export type ProgressKind = (typeof PROGRESS_KINDS)[number];

/** Every kind of event in the log (what each carries, and the event as it is read: shared/api/event-log.ts). */
export const EVENT_TYPES = [
  'conversation.created',
  'member.added',
  'message.created',
  'message.edited',
  'message.recalled',
  'reaction.added',
  'reaction.removed',
  'pin.added',
  'pin.removed',
  'request.created',
  'request.decided',
  'request.expired',
  'request.cancelled',
  'card.response',
  'handoff.created',
  'handoff.returned',
  'task.updated',
  'claim.taken',
  'claim.released',
  'floor.granted',
  'floor.released',
  'config.updated',
  'owner.note',
  // review mode (hub/features/review/review.ts), in the agent's notes channel
  'held.created',
  'held.sent',
  'held.discarded',
  'agent.paused', // owner control (hub/control/control.ts): the agent was paused (data: by, reason, detail)
  'agent.resumed', // owner control (hub/control/control.ts): the agent may work again
  // brakes (hub/control/brakes.ts): the loop brake paused the conversation for agents; a person lifted it
  'conversation.paused',
  'conversation.resumed',
  // archived conversations (hub/talk/archive.ts): the owner (or an idle retention rule) archived it; read-only for agents
  'conversation.archived',
  'conversation.unarchived',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface UserRef {
  id: string;
  name: string;
  kind: UserKind;
}

/** Filled by the server; no sender can set it. */
export interface Provenance {
  author: UserKind;
  ai: boolean;
  on_behalf_of: { id: string; name: string } | null;
  authority: 'human' | 'agent';
  attested_by: 'server';
  /** Review mode: a person read this before it was posted (and owner_edited: changed its text). */
  reviewed?: true;
  owner_edited?: true;
  /** The message came from an archive (perch import); it was written in another hub or before. */
  imported?: true;
}

export interface MessageView {
  msg_id: string;
  conv_id: string;
  seq: number;
  /** instance: the sender's session (instance name), when it named one. */
  sender: UserRef & { instance?: string };
  kind: string;
  text: string | null;
  intent?: Intent;
  to?: string[];
  /** The session (instance name) of the addressed agent the sender named; a courtesy, not a filter. */
  to_instance?: string;
  topics?: string[];
  refs?: unknown[];
  sources?: unknown[];
  reply_to?: string;
  thread_id?: string;
  payload?: Record<string, unknown>;
  created_at: number;
  edited_at?: number;
  recalled?: boolean;
  /** The owner hid this message from their own view (messages.hide); only in the owner's reads. */
  hidden?: true;
  claimed_by?: UserRef;
  untrusted: true;
  provenance: Provenance;
}

export interface ConversationView {
  conv_id: string;
  kind: ConversationKind;
  title: string;
  members: Array<UserRef & { role: MemberRole }>;
  last_seq: number;
  last_event_at: number;
  unread: number;
  task?: { state: TaskState; assignee: UserRef | null };
  floor?: { holder: UserRef; until: number } | null;
  handoffs?: Array<{ agent: UserRef; to: UserRef; note: string; at: number }>;
  /** The loop brake paused this conversation for agents (hub/control/brakes.ts); only a person lifts it. */
  paused?: ConversationPause;
  /** The owner archived it (hub/talk/archive.ts): by the owner, or by an idle retention rule. Agents never list it. */
  archived?: { at: number; by: 'owner' | 'retention' };
}

export interface ProgressView {
  id: number;
  agent: UserRef;
  conv_id: string;
  kind: ProgressKind;
  text: string;
  data?: unknown;
  msg_id?: string;
  at: number;
}

/**
 * Whether the hub can save (hub.storage, and { kind: 'hub', value: { storage } } on the live stream
 * when it changes). 'full': the last write failed because the disk is full or failing; writes are
 * refused with storage_full and reads go on. It returns to 'ok' by itself with the next write that works.
 */
export interface StorageStatus {
  state: 'ok' | 'full';
  /** When the state began (ms since epoch). */
  since: number;
  /** For the owner: what is wrong and what to do, or that all is well. */
  message: string;
}

export function isStorageStatus(v: unknown): v is StorageStatus {
  const s = v as StorageStatus | null | undefined;
  return (
    !!s && typeof s === 'object' && (s.state === 'ok' || s.state === 'full') && typeof s.since === 'number' && typeof s.message === 'string'
  );
}

/** What a task update (update_task, the owner's tasks.set) answers. */
export interface TaskUpdateResult {
  conv_id: string;
  state: TaskState;
  previous_state: TaskState;
  assignee: string | null;
  changed: boolean;
  seq: number | null;
  woken: string[];
  task: ConversationView;
}

// ---- requests to a person (request_human) as their requester and the owner see them (re-exported by shared/features/requests.ts)

export type Decision = 'approve' | 'reject' | 'answer' | 'choose';

export interface RequestOutcome {
  decision: Decision;
  answer?: string;
  choice?: string;
  comment?: string;
}

/** A request as its requester (get_request) and the owner (listRequests) see it. */
export interface RequestView {
  request_id: string;
  conv_id: string;
  msg_id: string;
  kind: RequestKind;
  title: string;
  options?: string[];
  requester: UserRef;
  assignees: UserRef[];
  state: RequestState;
  outcome: RequestOutcome | null;
  created_at: number;
  expires_at: number;
  decided_at?: number;
  decided_by?: UserRef;
  /** A cancelled request the hub withdrew because nobody waited for it any more: why (an agent's own permission prompt whose hook went away). */
  withdrawn?: string;
  /** The owner's views only: a harness's permission prompt filed through the hook door, by `perch hook` or `perch channel` (absent: an agent's own request_human, whatever its context says). */
  door?: 'hook' | 'channel';
  /** A cancelled permission prompt relayed by `perch channel` that Claude Code's own terminal dialog dealt with. */
  answered_in?: 'terminal';
  /**
   * The owner's views only: whether a hook door's prompt, decided while its hook waited, reached that hook (awaiting:
   * not yet; undelivered: the hook went away or the hub stopped first, so the harness's own dialog decided).
   */
  delivery?: 'awaiting' | 'delivered' | 'undelivered';
}

/** What the owner's Approvals inbox shows: the view plus the conversation and the context. */
export interface OwnerRequestView extends RequestView {
  conv_title: string;
  context?: unknown;
}

/**
 * What the payload of a message of kind 'request' stores: only what never changes. The request's state
 * has one home, the request (RequestView); readers get it added (RequestPayload) or from request.* events.
 */
export interface RequestMessagePayload {
  request_id: string;
  kind: RequestKind;
  title: string;
  options: string[] | null;
  context: unknown;
  assignees: UserRef[];
  expires_at: number;
}

/** payload of a message of kind 'request' as read: the stored part plus the request's current state, added at read time. */
export interface RequestPayload extends RequestMessagePayload {
  state: RequestState;
  outcome?: RequestOutcome;
  decided_by?: UserRef;
  decided_at?: number;
}

/** What a send answers (send_message, messages.send; send_file adds the file: shared/features/files.ts SentFile). */
export interface SentMessage {
  msg_id: string;
  conv_id: string;
  seq: number;
  created_at: number;
  thread_id?: string;
  /** Whom the message names, as applied: the `to` given, or in a direct conversation the other side. */
  to: string[];
  woken: string[];
}
