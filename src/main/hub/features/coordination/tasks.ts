// Task channels: create_task (conversations.createTask) and update_task — states follow A2A.
// After completed / failed / canceled nobody is woken and agents cannot speak there (access.ts).
import type { FeaturesHub } from '../services';
import { HubError } from '../../../../shared/errors';
import { TASK_STATES, TERMINAL_TASK_STATES, type TaskState } from '../../../../shared/types';
import { conversationById, member, setTask, type MemberRow } from '../../../store/tables/talk/conversations';
import { activeHandoff } from '../../../store/tables/talk/handoffs';
import { isManager, requireMember, wakeable, type Access } from '../../talk/access';
import { conversationView, createTask } from '../../talk/conversations';
import { requireText } from '../../talk/messages';
import type { ToolHandlers } from '../../identity/tool-handler';
import { userByName, userById } from '../../../store/tables/agents/users';

export interface TaskUpdateInput {
  conv_id: string;
  state?: TaskState;
  assignee?: string;
  note?: string;
}

export type { TaskUpdateResult } from '../../../../shared/types';
import type { TaskUpdateResult } from '../../../../shared/types';

const isTerminal = (s: TaskState) => TERMINAL_TASK_STATES.includes(s);

/** update_task's checks, writing nothing (review mode holds an update with a note after them, hub/features/review/review-calls.ts). */
export function checkTaskUpdate(hub: FeaturesHub, userId: string, input: TaskUpdateInput, asOwner = false) {
  let access: Access;
  if (asOwner) {
    const conv = conversationById(hub.db, input.conv_id);
    if (!conv) throw new HubError('not_found', `No conversation ${input.conv_id}.`, 'Use a conv_id from the conversation list.');
    const m: MemberRow = member(hub.db, conv.id, userId) ?? {
      conv_id: conv.id,
      user_id: userId,
      role: 'owner',
      from_seq: 1,
      joined_at: 0,
      read_seq: 0,
    };
    access = { conv, member: m };
  } else {
    access = requireMember(hub, userId, input.conv_id);
  }
  const conv = access.conv;
  if (conv.kind !== 'task' || !conv.task_state) {
    throw new HubError(
      'invalid_argument',
      `Conversation ${conv.id} is not a task channel.`,
      'Use update_task on a conversation made with create_task.',
    );
  }
  if (input.state === undefined && input.assignee === undefined) {
    throw new HubError('invalid_argument', 'Give state, assignee or both.', 'Pass state to move the task, or assignee to reassign it.');
  }
  if (input.state !== undefined && !TASK_STATES.includes(input.state)) {
    throw new HubError(
      'invalid_argument',
      `state ${JSON.stringify(input.state)} is not a task state.`,
      `Use one of ${TASK_STATES.join(', ')}.`,
    );
  }
  const note = input.note === undefined ? undefined : requireText(input.note, 'note');
  const privileged = asOwner || isManager(access.member) || conv.created_by === userId;
  if (!asOwner && activeHandoff(hub.db, conv.id, userId)) {
    throw new HubError(
      'silenced',
      'You handed this task off; you are silent here until it is handed back.',
      'Wait for the handoff.returned event in get_updates.',
    );
  }

  const previous = conv.task_state;
  const state = input.state ?? previous;
  if (isTerminal(previous) && !privileged && (state !== previous || input.assignee !== undefined || note !== undefined)) {
    throw new HubError(
      'forbidden',
      `Task ${conv.id} is ${previous}; only its creator or a manager can reopen or change it.`,
      "Open a new task, or ask the task's creator.",
    );
  }

  if (state !== previous && isTerminal(state) && !privileged && conv.task_assignee !== userId) {
    const assignee = conv.task_assignee ? ` or its assignee (${hub.ref(conv.task_assignee).name})` : '';
    throw new HubError(
      'forbidden',
      `Only the task's creator (${hub.ref(conv.created_by).name})${assignee}, a manager or the owner can move task ${conv.id} to ${state}; nothing changed.`,
      `Tell them in the task why it should be ${state}, or move it to input_required with a note.`,
      { state, previous_state: previous },
    );
  }

  let assigneeId = conv.task_assignee;
  if (input.assignee !== undefined) {
    if (!privileged) {
      throw new HubError(
        'forbidden',
        "Only the task's creator or a manager can reassign it.",
        'Ask the creator, or move the state (e.g. input_required) with a note instead.',
      );
    }
    const u = userByName(hub.db, input.assignee) ?? userById(hub.db, input.assignee);
    if (!u || u.revoked_at != null) {
      throw new HubError('not_found', `No user "${input.assignee}".`, 'Use an exact user name (find_user) or id.');
    }
    if (!member(hub.db, conv.id, u.id)) {
      throw new HubError(
        'invalid_argument',
        `assignee: "${u.name}" is not a member of task ${conv.id}.`,
        'Add them with add_member first.',
      );
    }
    assigneeId = u.id;
  }

  return { conv, note, previous, state, assigneeId };
}

/**
 * Moves a task's state and/or reassigns it. Any member may move it between the open states; ending it
 * (completed, failed, canceled: that silences every agent in it) is for its creator, its assignee or a
 * manager; reassigning, and leaving a terminal state (reopening), are for the creator or a manager.
 * asOwner: the owner may always.
 */
function updateTask(hub: FeaturesHub, userId: string, input: TaskUpdateInput, asOwner: boolean): TaskUpdateResult {
  return hub.write(() => {
    const { conv, note, previous, state, assigneeId } = checkTaskUpdate(hub, userId, input, asOwner);
    const reassigned = assigneeId !== conv.task_assignee;
    const changed = state !== previous || reassigned;
    if (!changed && note === undefined) {
      return result(hub, conv.id, userId, previous, false, null, []);
    }
    setTask(hub.db, conv.id, state, assigneeId);
    const after = conversationById(hub.db, conv.id)!;
    // The assignee (the new one when reassigned) is woken; when the task needs input, its creator too.
    // wakeable() wakes nobody once the task is completed, failed or canceled.
    const wanted: string[] = [];
    if (assigneeId) wanted.push(assigneeId);
    if (state === 'input_required' && state !== previous) wanted.push(conv.created_by);
    const woken = wakeable(hub, after, userId, wanted);
    const { seq } = hub.emit(conv.id, 'task.updated', userId, {
      data: {
        state,
        previous_state: previous,
        assignee: assigneeId ? hub.ref(assigneeId) : null,
        ...(reassigned ? { previous_assignee: conv.task_assignee ? hub.ref(conv.task_assignee) : null } : {}),
        note: note ?? null,
      },
      wake: woken,
    });
    return result(hub, conv.id, userId, previous, true, seq, woken);
  });
}

function result(
  hub: FeaturesHub,
  convId: string,
  viewerId: string,
  previous: TaskState,
  changed: boolean,
  seq: number | null,
  woken: string[],
): TaskUpdateResult {
  const conv = conversationById(hub.db, convId)!;
  return {
    conv_id: convId,
    state: conv.task_state!,
    previous_state: previous,
    assignee: conv.task_assignee ? hub.ref(conv.task_assignee).name : null,
    changed,
    seq,
    woken: woken.map((u) => hub.ref(u).name),
    task: conversationView(hub, conv, viewerId),
  };
}

/** A member (agent or person) updates a task. */
export function updateTaskAs(hub: FeaturesHub, userId: string, input: TaskUpdateInput): TaskUpdateResult {
  return updateTask(hub, userId, input, false);
}

/** Owner side: the owner may always move, reopen or reassign a task. */
export function setTaskState(hub: FeaturesHub, ownerId: string, input: TaskUpdateInput): TaskUpdateResult {
  if (ownerId !== hub.ownerId) {
    throw new HubError('forbidden', "Only the owner can set a task's state this way.", 'Use update_task as a member of the task.');
  }
  return updateTask(hub, ownerId, input, true);
}

export const taskTools = {
  create_task: {
    run: ({ hub, agentId }, a) => ({ conversation: createTask(hub, agentId, a.title, a.members, a.assignee) }),
  },
  update_task: {
    run: ({ hub, agentId }, a) => updateTaskAs(hub, agentId, a),
  },
} satisfies ToolHandlers<'create_task' | 'update_task', FeaturesHub>;
