// Review mode (hub/features/review/review.ts): a held write as the owner sees it in the Approvals inbox, and what review
// mode does to each tool of the catalog.
import type { ToolName } from '../api/catalog';
import type { UserRef } from '../types';

/**
 * What is held: a send (message, card, file), or another write others would read (review-calls.ts):
 * an edit of a message, a decision request, a new task channel or group, a task update with a note, a handoff.
 */
export type HeldKind = 'message' | 'card' | 'file' | 'edit' | 'request' | 'task' | 'group' | 'task_update' | 'handoff';

/** "kit wants to …": what a held item would do (review mode holds every write others read, hub/features/review/review-calls.ts). */
export const HELD_WHAT: Record<HeldKind, string> = {
  message: 'send a message',
  card: 'send a card',
  file: 'send a file',
  edit: 'edit a message',
  request: 'ask for a decision',
  task: 'create a task channel',
  group: 'create a group',
  task_update: 'update a task',
  handoff: 'hand a conversation over',
};

export interface HeldItem {
  held_id: string;
  agent: UserRef;
  /** The conversation it is in; null for a new task channel or group (it does not exist yet). */
  conv_id: string | null;
  conv_title: string;
  kind: HeldKind;
  /**
   * The words the owner reviews (and may edit): the message text, card text or file caption; an edit's new
   * text; a request's title; a task's or group's title; a task update's or handoff's note.
   */
  text: string;
  state: 'held' | 'sent' | 'discarded';
  created_at: number;
  to?: string[];
  intent?: string;
  reply_to?: string;
  /** kind card: the card (validated). */
  card?: unknown;
  /** kind file: what the file is (its bytes wait in the hub). */
  file?: { name: string; mime: string; size: number; is_image: boolean };
  /** kind edit: the message it changes, with the text others read now. */
  edit_of?: { msg_id: string; text: string };
  /** kind request: what is asked besides the title. */
  request?: { kind: string; options?: string[]; assignees?: string[]; context?: unknown; ttl_secs?: number };
  /** kind task / group: who it brings in; kind task_update: the new assignee, if any; kind handoff: to whom. */
  members?: string[];
  assignee?: string;
  /** kind task_update: the state it moves the task to. */
  state_to?: string;
  /** kind handoff: the person it goes to (default the owner). */
  handoff_to?: string;
  msg_id?: string;
  sent_text?: string;
  decided_at?: number;
}

export interface HeldSendResult {
  held_id: string;
  state: 'sent';
  /** The conversation it went to (for a new task channel or group: the one just made). */
  conv_id: string;
  /** The message posted or edited, when there is one (a request's message too). */
  msg_id?: string;
  seq?: number;
  text: string;
  owner_edited: boolean;
}

/** What review mode does to a tool, as the review table of docs/guide/review-mode.md says. */
export type ReviewPolicy = 'held' | 'held with a note' | 'named reactions refused' | 'not held';

/**
 * Every tool of the catalog, classified (test/serve/review-writes.test.ts checks it covers the catalog and matches
 * docs/guide/review-mode.md). held: words others read; they wait for the owner. not held: it reads, writes only what the agent
 * or the owner reads, or carries no words of the agent's (ids, states, a single emoji).
 */
export const REVIEW_POLICY: Record<ToolName, { policy: ReviewPolicy; why: string }> = {
  whoami: { policy: 'not held', why: 'reads; an instance note is read only by the agent itself' },
  get_config: { policy: 'not held', why: 'reads' },
  list_conversations: { policy: 'not held', why: 'reads' },
  get_updates: { policy: 'not held', why: 'reads (and confirms what was read)' },
  send_message: { policy: 'held', why: 'the message' },
  edit_message: { policy: 'held', why: 'the new text; any edit also takes provenance.reviewed away until you send it' },
  recall_message: { policy: 'not held', why: 'withdraws words, adds none' },
  find_user: { policy: 'not held', why: 'reads' },
  open_direct: { policy: 'not held', why: 'opens a conversation without words' },
  create_group: { policy: 'held', why: "the group's title; the group is made when you send it" },
  add_member: { policy: 'not held', why: 'no words: the new member reads what is already there' },
  request_human: { policy: 'held', why: 'the title, options and context; the request is made when you send it' },
  get_request: { policy: 'not held', why: 'reads' },
  cancel_request: { policy: 'not held', why: 'withdraws a request, adds no words' },
  create_task: { policy: 'held', why: "the task's title; the channel is made when you send it" },
  update_task: { policy: 'held with a note', why: 'the note; a state change or reassignment without a note goes through' },
  claim: { policy: 'not held', why: 'no words' },
  release_claim: { policy: 'not held', why: 'no words' },
  floor_grant: { policy: 'not held', why: 'no words' },
  floor_release: { policy: 'not held', why: 'no words' },
  get_history: { policy: 'not held', why: 'reads' },
  get_context: { policy: 'not held', why: 'reads' },
  search: { policy: 'not held', why: 'reads' },
  put_summary: { policy: 'not held', why: 'only the agent reads its summaries' },
  state_get: { policy: 'not held', why: 'reads' },
  state_put: { policy: 'not held', why: 'only the agent reads its checkpoints' },
  state_list: { policy: 'not held', why: 'reads' },
  state_delete: { policy: 'not held', why: 'only the agent reads its checkpoints' },
  handoff: { policy: 'held', why: 'the note; the agent is silenced when you send it' },
  send_card: { policy: 'held', why: 'the card' },
  send_file: { policy: 'held', why: 'the file and its caption' },
  file_url: { policy: 'not held', why: 'reads' },
  progress: { policy: 'not held', why: 'only you read progress (the live feed); other agents never see it' },
  react: { policy: 'named reactions refused', why: 'a :name: is words (refused: under_review); one emoji goes through' },
  unreact: { policy: 'not held', why: 'removes a reaction, adds no words' },
  get_thread: { policy: 'not held', why: 'reads' },
  list_pins: { policy: 'not held', why: 'reads' },
};
