// Review mode beyond sends (hub/features/review/review.ts holds send_message, send_card and send_file): the other writes that
// carry an agent's words to others are held the same way. Each is checked as the real call would check it
// (writing nothing), kept with its arguments, and done as the agent, with the text the owner approved, when
// the owner sends it. The reviewed words are one argument per tool (field): what the owner reads and may edit.
//   edit_message  text    the edit is made then, and the message is marked reviewed again
//   request_human title   the request (and its message, marked reviewed) is made then
//   create_task   title   the task channel is made then (the held item has no conversation yet)
//   create_group  title   the group is made then
//   update_task   note    held only with a note; a state change or reassignment without one goes through
//   handoff       note    the handoff is made (and the agent silenced) then
// A named reaction (react with :name:) is words too, but a reaction that waits for the owner means nothing:
// it is refused (under_review); one emoji goes through. src/shared/features/review.ts lists every tool's treatment.
import type { FeaturesHub } from '../services';
import { HubError } from '../../../../shared/errors';
import type { ToolArgs } from '../../../../shared/api/catalog';
import type { HeldItem, HeldKind } from '../../../../shared/features/review';
import { messageById } from '../../../store/tables/talk/messages';
import { checkEdit, editMessage, validateReactionKey } from '../../talk/messages';
import { checkRequest, createRequest } from '../requests/requests';
import { checkNewGroup, checkNewTask, createGroup, createTask } from '../../talk/conversations';
import { checkTaskUpdate, updateTaskAs } from '../coordination/tasks';
import { checkHandoff, handoff } from '../coordination/handoffs';

export type CallTool = 'edit_message' | 'request_human' | 'create_task' | 'create_group' | 'update_task' | 'handoff';

/** What a held call did when the owner sent it. */
export interface CallDone {
  /** What the tool would have answered the agent (held.sent carries it as data.result). */
  result: Record<string, unknown>;
  conv_id: string;
  /** A message it posted or edited: marked reviewed. */
  msg_id?: string;
  seq?: number;
}

interface HeldCall<N extends CallTool> {
  kind: HeldKind;
  /** The argument holding the words the owner reviews. */
  field: 'text' | 'title' | 'note';
  /** Whether this call is held at all (default: always). */
  holds?: (args: ToolArgs<N>) => boolean;
  /** The real call's checks, writing nothing; the conversation it is in (null: it makes one). */
  check: (hub: FeaturesHub, agentId: string, args: ToolArgs<N>) => string | null;
  /** The real call as the agent, in the caller's transaction. */
  run: (hub: FeaturesHub, agentId: string, args: ToolArgs<N>) => CallDone;
  /** What the owner is shown besides the words. */
  view?: (hub: FeaturesHub, args: ToolArgs<N>) => Partial<HeldItem>;
}

const names = (list: readonly string[] | undefined) => (list?.length ? { members: [...list] } : {});

export const HELD_CALLS: { [N in CallTool]: HeldCall<N> } = {
  edit_message: {
    kind: 'edit',
    field: 'text',
    check: (hub, agentId, a) => checkEdit(hub, agentId, a.msg_id, a.text).conv_id,
    run: (hub, agentId, a) => {
      const r = editMessage(hub, agentId, a.msg_id, a.text);
      return { result: r, conv_id: r.conv_id, msg_id: r.msg_id, seq: r.seq };
    },
    view: (hub, a) => {
      const m = messageById(hub.db, a.msg_id);
      return { edit_of: { msg_id: a.msg_id, text: m?.recalled_at == null ? (m?.text ?? '') : '' } };
    },
  },
  request_human: {
    kind: 'request',
    field: 'title',
    check: (hub, agentId, a) => {
      checkRequest(hub, agentId, a);
      return a.conv_id;
    },
    run: (hub, agentId, a) => {
      const r = createRequest(hub, agentId, a);
      return { result: r, conv_id: r.conv_id, msg_id: r.msg_id };
    },
    view: (_hub, a) => ({
      request: {
        kind: a.kind,
        ...(a.options ? { options: a.options } : {}),
        ...(a.assignees?.length ? { assignees: a.assignees } : {}),
        ...(a.context !== undefined ? { context: a.context } : {}),
        ...(a.ttl_secs !== undefined ? { ttl_secs: a.ttl_secs } : {}),
      },
    }),
  },
  create_task: {
    kind: 'task',
    field: 'title',
    check: (hub, agentId, a) => {
      checkNewTask(hub, agentId, a.title, a.members, a.assignee);
      return null;
    },
    run: (hub, agentId, a) => {
      const conversation = createTask(hub, agentId, a.title, a.members, a.assignee);
      return { result: { conversation }, conv_id: conversation.conv_id };
    },
    view: (_hub, a) => ({ ...names(a.members), ...(a.assignee ? { assignee: a.assignee } : {}) }),
  },
  create_group: {
    kind: 'group',
    field: 'title',
    check: (hub, agentId, a) => {
      checkNewGroup(hub, agentId, a.title, a.members);
      return null;
    },
    run: (hub, agentId, a) => {
      const conversation = createGroup(hub, agentId, a.title, a.members);
      return { result: { conversation }, conv_id: conversation.conv_id };
    },
    view: (_hub, a) => names(a.members),
  },
  update_task: {
    kind: 'task_update',
    field: 'note',
    holds: (a) => a.note !== undefined,
    check: (hub, agentId, a) => checkTaskUpdate(hub, agentId, a).conv.id,
    run: (hub, agentId, a) => {
      const r = updateTaskAs(hub, agentId, a);
      return { result: r as unknown as Record<string, unknown>, conv_id: r.conv_id, ...(r.seq != null ? { seq: r.seq } : {}) };
    },
    view: (_hub, a) => ({ ...(a.state ? { state_to: a.state } : {}), ...(a.assignee ? { assignee: a.assignee } : {}) }),
  },
  handoff: {
    kind: 'handoff',
    field: 'note',
    check: (hub, agentId, a) => checkHandoff(hub, agentId, a).conv.id,
    run: (hub, agentId, a) => {
      const r = handoff(hub, agentId, a);
      return { result: r as unknown as Record<string, unknown>, conv_id: r.conv_id, seq: r.seq };
    },
    view: (hub, a) => ({ handoff_to: a.to ?? hub.owner.name }),
  },
};

export const TOOL_OF_KIND: Partial<Record<HeldKind, CallTool>> = Object.fromEntries(
  (Object.keys(HELD_CALLS) as CallTool[]).map((t) => [HELD_CALLS[t].kind, t]),
);

/** react under review: one emoji goes through; a :name: is words, refused. */
export function refuseNamedReaction(key: string): void {
  const k = validateReactionKey(key);
  if (k.startsWith(':')) {
    throw new HubError(
      'under_review',
      `Your owner reviews what you write, and a named reaction (${k}) is words that cannot wait for review.`,
      'React with a single emoji such as 👀 or ✅ instead, or say it in a send_message (held for your owner).',
    );
  }
}
