// The event log's shapes: what each event type carries in `data` (EventPayloads), the event as agents and the owner
// read it (EventView, one variant per type), and the owner's live stream (LiveItem, with the hub's status values in
// HubLive). hub.emit is typed by EventPayloads, so a misspelt or missing field fails to compile where an event is
// written, and a reader that narrows on ev.type reads typed fields. Pure: no Node, no DOM.
import type {
  ConversationKind,
  DecidedRequestState,
  EventType,
  MessageView,
  ProgressView,
  RequestKind,
  RequestOutcome,
  RequestView,
  StorageStatus,
  TaskState,
  UserRef,
} from '../types';
import type { HeldKind } from '../features/review';
import type { PauseBy, CapName } from '../agents/control';
import type { FleetLive } from '../agents/agents';
import type { WakeRunView } from '../agents/wake';

/** floor.released: the holder's time ran out (no actor), another agent was given the floor, or it was released. */
export type FloorReleasedData =
  | { reason: 'expired'; holder: UserRef; until: number | null }
  | { reason: 'replaced'; holder: UserRef; by: UserRef; replaced_by: UserRef }
  | { reason: 'released'; holder: UserRef; by: UserRef };

/**
 * What each event type carries in its `data` (null: no data). Users are UserRefs, except where names are listed
 * (conversation.created's members and assignee, request.created's assignees, conversation.paused's agents).
 */
export interface EventPayloads {
  'conversation.created': { kind: ConversationKind; title: string; members: string[]; assignee?: string };
  /** history: how much of the past add_member gave (null: all); reason: why, when not add_member (e.g. 'handoff'). */
  'member.added': { user: UserRef; history: number | null; reason?: string };
  'message.created': null;
  'message.edited': null;
  'message.recalled': null;
  'reaction.added': { key: string };
  'reaction.removed': { key: string };
  'pin.added': null;
  'pin.removed': null;
  /** assignees: names. */
  'request.created': { request_id: string; kind: RequestKind; title: string; assignees: string[]; expires_at: number };
  'request.decided': { request_id: string; state: DecidedRequestState; outcome: RequestOutcome };
  'request.expired': { request_id: string; state: 'expired'; expires_at: number };
  'request.cancelled': { request_id: string; state: 'cancelled' };
  /** value: the button's id, or the form's values (shared/features/cards.ts). */
  'card.response': { msg_id: string; block_id: string; value: unknown; by: UserRef };
  'handoff.created': { handoff_id: number; agent: UserRef; to: UserRef; note: string };
  /**
   * handoff_note: the note the handoff was written with; absent for a member whose history starts after the
   * handoff (the event then says before_your_history). handoff_seq: the handoff's seq (null: not found).
   */
  'handoff.returned': {
    handoff_id: number;
    agent: UserRef;
    by: UserRef;
    note: string;
    handoff_note?: string;
    handed_off_at: number;
    handoff_seq: number | null;
  };
  /** previous_assignee: only when the task was reassigned. */
  'task.updated': {
    state: TaskState;
    previous_state: TaskState;
    assignee: UserRef | null;
    previous_assignee?: UserRef | null;
    note: string | null;
  };
  'claim.taken': { msg_id: string; by: UserRef };
  'claim.released': { msg_id: string; by: UserRef; holder: UserRef };
  'floor.granted': { agent: UserRef; by: UserRef; until: number; ttl_secs: number; replaced: UserRef | null; renewed: boolean };
  'floor.released': FloorReleasedData;
  /** In the agent's notes channel: its role config is now this version. */
  'config.updated': { version: number };
  /** In the agent's notes channel: a private note from the owner, maybe about a conversation. */
  'owner.note': { text: string; about_conv_id: string | null };
  // review mode (hub/features/review/review.ts), in the agent's notes channel; conv_id null: a held new task or group
  'held.created': { held_id: string; kind: HeldKind; conv_id: string | null };
  /** What was posted (msg_id, seq of a send; result of another write), with the words as sent. */
  'held.sent': {
    held_id: string;
    kind: HeldKind;
    conv_id: string;
    msg_id?: string;
    seq?: number;
    text: string;
    owner_edited: boolean;
    original_text?: string;
    result?: Record<string, unknown>;
  };
  'held.discarded': { held_id: string; kind: HeldKind; conv_id: string | null; text: string };
  // owner control (hub/control/control.ts), in the agent's notes channel
  'agent.paused': { by: PauseBy; reason: string | null; detail?: string };
  'agent.resumed': { was: PauseBy };
  // the loop brake (hub/control/brakes.ts); agents: names
  'conversation.paused': { reason: string; agents: string[]; brake: 'loop' };
  'conversation.resumed': { brake: 'loop' };
  // archived conversations (hub/talk/archive.ts); idle_days: the retention rule that archived it
  'conversation.archived': { by: 'owner' | 'retention'; idle_days?: number };
  'conversation.unarchived': { by: 'owner'; reason: 'unarchive' | 'owner_wrote' };
}

/** The data of an event of type T (undefined for types without data). */
export type EventData<T extends EventType> = EventPayloads[T] extends null ? undefined : EventPayloads[T];

type AllKeys<U> = U extends unknown ? keyof U : never;

/**
 * The same map at run time: per event type, whether it is about one message (hub.emit takes its msgId; a member
 * whose history starts after that message gets the event without it, as before_your_history with only the msg_id)
 * and every field its data may have. Checked against EventPayloads below, both ways, so the two cannot drift.
 */
export const EVENT_DATA = {
  'conversation.created': { message: false, fields: ['kind', 'title', 'members', 'assignee'] },
  'member.added': { message: false, fields: ['user', 'history', 'reason'] },
  'message.created': { message: true, fields: [] },
  'message.edited': { message: true, fields: [] },
  'message.recalled': { message: true, fields: [] },
  'reaction.added': { message: true, fields: ['key'] },
  'reaction.removed': { message: true, fields: ['key'] },
  'pin.added': { message: true, fields: [] },
  'pin.removed': { message: true, fields: [] },
  'request.created': { message: true, fields: ['request_id', 'kind', 'title', 'assignees', 'expires_at'] },
  'request.decided': { message: true, fields: ['request_id', 'state', 'outcome'] },
  'request.expired': { message: true, fields: ['request_id', 'state', 'expires_at'] },
  'request.cancelled': { message: true, fields: ['request_id', 'state'] },
  'card.response': { message: true, fields: ['msg_id', 'block_id', 'value', 'by'] },
  'handoff.created': { message: false, fields: ['handoff_id', 'agent', 'to', 'note'] },
  'handoff.returned': { message: false, fields: ['handoff_id', 'agent', 'by', 'note', 'handoff_note', 'handed_off_at', 'handoff_seq'] },
  'task.updated': { message: false, fields: ['state', 'previous_state', 'assignee', 'previous_assignee', 'note'] },
  'claim.taken': { message: true, fields: ['msg_id', 'by'] },
  'claim.released': { message: true, fields: ['msg_id', 'by', 'holder'] },
  'floor.granted': { message: false, fields: ['agent', 'by', 'until', 'ttl_secs', 'replaced', 'renewed'] },
  'floor.released': { message: false, fields: ['reason', 'holder', 'by', 'until', 'replaced_by'] },
  'config.updated': { message: false, fields: ['version'] },
  'owner.note': { message: false, fields: ['text', 'about_conv_id'] },
  'held.created': { message: false, fields: ['held_id', 'kind', 'conv_id'] },
  'held.sent': {
    message: false,
    fields: ['held_id', 'kind', 'conv_id', 'msg_id', 'seq', 'text', 'owner_edited', 'original_text', 'result'],
  },
  'held.discarded': { message: false, fields: ['held_id', 'kind', 'conv_id', 'text'] },
  'agent.paused': { message: false, fields: ['by', 'reason', 'detail'] },
  'agent.resumed': { message: false, fields: ['was'] },
  'conversation.paused': { message: false, fields: ['reason', 'agents', 'brake'] },
  'conversation.resumed': { message: false, fields: ['brake'] },
  'conversation.archived': { message: false, fields: ['by', 'idle_days'] },
  'conversation.unarchived': { message: false, fields: ['by', 'reason'] },
} as const satisfies { [T in EventType]: { message: boolean; fields: ReadonlyArray<AllKeys<EventPayloads[T]>> } };

/** Every field of every payload is listed in EVENT_DATA (the satisfies above: no field listed that is not one). */
type Unlisted = { [T in EventType]: Exclude<AllKeys<EventPayloads[T]>, (typeof EVENT_DATA)[T]['fields'][number]> }[EventType];
const everyFieldListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyFieldListed;

/** Event types about one message: hub.emit takes their msgId, and they may come as before_your_history. */
export type MessageEventType = { [T in EventType]: (typeof EVENT_DATA)[T]['message'] extends true ? T : never }[EventType];

interface EventViewBase {
  conv_id: string;
  seq: number;
  at: number;
  actor: UserRef | null;
  /** True when this event names you (you were woken by it). */
  for_you: boolean;
  message?: MessageView;
  /**
   * request.* events, and the message.created of a request: the request as it is now (its one home;
   * the message's payload keeps only what never changes). Absent when the message was recalled.
   */
  request?: RequestView;
}

/** An event as its reader sees it, with its data (data is absent for types without data). */
type SeenEvent<T extends EventType> = EventPayloads[T] extends null ? { data?: undefined } : { data: EventPayloads[T] };

/**
 * The event is about a message from before what you can see of the conversation (you joined after it): it comes
 * without that message and with no data but its msg_id.
 */
export interface EventFromBeforeYourHistory {
  data: { msg_id: string };
  before_your_history: true;
  message?: undefined;
  request?: undefined;
}

/**
 * One event of type T as agents (get_updates, get_history) and the owner read it. An event about a message may
 * come as EventFromBeforeYourHistory; a handoff.returned whose handoff came before your history says
 * before_your_history too, and comes without its handoff_note.
 */
export type EventViewOf<T extends EventType> = T extends EventType
  ? EventViewBase & { type: T } & (T extends MessageEventType
        ? (SeenEvent<T> & { before_your_history?: undefined }) | EventFromBeforeYourHistory
        : SeenEvent<T> & { before_your_history?: true })
  : never;

/** Any event of the log; narrow it on type to read its data. */
export type EventView = EventViewOf<EventType>;

/** One item of the owner's live stream (GET /api/owner/events, or window.perch.onEvent). */
export interface LiveEvent {
  /** The log event, as the owner sees it. */
  event: EventView;
  /** Users this event woke. */
  woken: string[];
}

/**
 * The hub's status values on the owner's live stream ({ kind: 'hub', value }): each item carries one or more of them.
 * connected, at and storage come first on every stream (owner/http.ts); the rest as they change.
 */
export interface HubLive {
  /** The stream (re)connected, at this time (a reconnect means: load again what may have been missed). */
  connected: true;
  at: number;
  /** Whether the hub can save (StorageStatus). */
  storage: StorageStatus;
  /** Who is waiting for news (get_updates), by user id: sent when a user's first wait starts or last one ends. */
  waiting: Record<string, boolean>;
  /** The agents and their controls (hub/control/fleet-live.ts). */
  fleet: FleetLive;
  /** A wake run started, ran or ended (hub/wake-runs/wake-runs.ts). */
  wake_run: WakeRunView;
  /** Perch switched an agent's wake action off after runs that failed. */
  wake_off: { agent_id: string; reason: string };
  /** Perch stopped a wake run over its agent's memory ceiling (told once per agent while the hub runs). */
  wake_memory: { agent_id: string; run_id: string; reason: string };
  /** A daily cap paused an agent (hub/control/control.ts). */
  budget_paused: { agent: { id: string; name: string }; cap: CapName; detail: string; at: number };
  /** Conversations whose read receipts moved (hub/talk/agent-sessions.ts). */
  reads: string[];
  /**
   * The owner hid a message from their own view, or showed it again (hidden: false; hub/talk/messages.ts
   * hideMessage). Only on the owner's stream: hiding is the owner's own view, so it is never in the log agents read.
   */
  message_hidden: MessageHiddenLive;
  /** An agent's harness session waits for its user (a Notification hook: hub/control/harness.ts). */
  harness_waiting: {
    agent: { id: string; name: string };
    harness: import('../agents/harness').HarnessName;
    message: string;
    session_id: string | null;
    cwd: string | null;
    at: number;
  };
  /** A key was used from a place it may not connect from (hub/identity/places.ts): once per agent, key and place. */
  key_place_refused: KeyPlaceRefused;
}

/** A message the owner hid or showed again, as every open window of the owner learns it. */
export interface MessageHiddenLive {
  msg_id: string;
  conv_id: string;
  hidden: boolean;
}

/** A key refused for where it connected from, as told to the owner. */
export interface KeyPlaceRefused {
  agent: string;
  key_id: string | null;
  key_name: string;
  allowed: string[];
  place: string;
  via: string;
  address: string;
  at: number;
  /** The command that would allow it. */
  how: string;
}

export type LiveItem =
  { kind: 'event'; value: LiveEvent } | { kind: 'progress'; value: ProgressView } | { kind: 'hub'; value: Partial<HubLive> };
