// Handoffs: an agent hands a conversation to a person and stays silent there (not woken either)
// until that person (or the owner) hands it back with a note, which wakes the agent.
import type { FeaturesHub } from '../services';
import { HubError } from '../../../../shared/errors';
import type { UserRef } from '../../../../shared/types';
import { conversationById, member } from '../../../store/tables/talk/conversations';
import {
  activeHandoff,
  activeHandoffsOf,
  allActiveHandoffs,
  handoffCreatedSeq,
  insertHandoff,
  returnHandoff,
  type HandoffRow,
} from '../../../store/tables/talk/handoffs';
import { isTerminalTask, requireMember, resolveUser, wakeable } from '../../talk/access';
import { requireText } from '../../talk/messages';
import type { ToolHandlers } from '../../identity/tool-handler';
import { conversationView, joinConversation } from '../../talk/conversations';
import type { HandoffItem } from '../../../../shared/api/owner-api';

export interface HandoffResult {
  conv_id: string;
  handoff_id: number;
  to: UserRef;
  seq: number;
  silenced: true;
  next_step: string;
}

export interface HandBackResult {
  conv_id: string;
  handoff_id: number;
  agent: UserRef;
  seq: number;
  woken: string[];
}

/** handoff's checks, writing nothing (review mode holds a handoff after them, hub/features/review/review-calls.ts). */
export function checkHandoff(hub: FeaturesHub, agentId: string, input: { conv_id: string; note: string; to?: string }) {
  const access = requireMember(hub, agentId, input.conv_id);
  const conv = access.conv;
  if (hub.user(agentId).kind !== 'agent') {
    throw new HubError('forbidden', 'Only agents hand conversations off.', 'Just answer in the conversation.');
  }
  if (conv.kind === 'inbox') {
    throw new HubError(
      'forbidden',
      "This is your owner's private notes channel; there is nothing to hand off.",
      'Hand off the conversation the work is in.',
    );
  }
  if (isTerminalTask(conv)) {
    throw new HubError(
      'silenced',
      `Task ${conv.id} is ${conv.task_state}; there is nothing left to hand off.`,
      'Open a new task or talk elsewhere.',
    );
  }
  const note = requireText(input.note, 'note').trim();
  if (!note) throw new HubError('invalid_argument', 'note is empty.', 'Say what the person needs to know to take over.');
  const existing = activeHandoff(hub.db, conv.id, agentId);
  if (existing) {
    throw new HubError(
      'conflict',
      `You already handed this conversation to ${hub.ref(existing.to_user).name}.`,
      'Wait for the handoff.returned event in get_updates.',
      { to: hub.ref(existing.to_user).name, since: existing.at },
    );
  }
  const to = input.to === undefined ? hub.owner : resolveUser(hub, input.to);
  if (to.kind !== 'human') {
    throw new HubError(
      'invalid_argument',
      `to: "${to.name}" is an agent; a handoff goes to a person.`,
      'Leave to out to hand off to your owner, or name a person in the conversation.',
    );
  }
  if (!member(hub.db, conv.id, to.id) && to.id !== hub.ownerId) {
    throw new HubError(
      'invalid_argument',
      `to: "${to.name}" is not a member of conversation ${conv.id}.`,
      'Name a person in the conversation, or leave to out to hand off to your owner.',
    );
  }
  return { conv, note, to };
}

/** An agent hands conv_id to a person (default: the owner) with a note. */
export function handoff(hub: FeaturesHub, agentId: string, input: { conv_id: string; note: string; to?: string }): HandoffResult {
  return hub.write(() => {
    const { conv, note, to } = checkHandoff(hub, agentId, input);
    // The owner may always take over: they join the conversation, seeing all of it.
    if (!member(hub.db, conv.id, to.id)) joinConversation(hub, agentId, conv.id, to.id, { reason: 'handoff' });
    const at = hub.now();
    const id = insertHandoff(hub.db, { conv_id: conv.id, agent_id: agentId, to_user: to.id, note, at });
    const { seq } = hub.emit(conv.id, 'handoff.created', agentId, {
      data: { handoff_id: id, agent: hub.ref(agentId), to: hub.ref(to.id), note },
      wake: wakeable(hub, conv, agentId, [to.id]),
    });
    return {
      conv_id: conv.id,
      handoff_id: id,
      to: hub.ref(to.id),
      seq,
      silenced: true,
      next_step: `You are silent in this conversation until ${to.name} hands it back; keep calling get_updates and wait for handoff.returned.`,
    };
  });
}

/**
 * Owner side: the person a conversation was handed to (or the owner, always) hands it back to the agent
 * with a note. agent (name or id) may be left out when exactly one handoff is active there.
 */
export function handBack(hub: FeaturesHub, personId: string, input: { conv_id: string; agent?: string; note?: string }): HandBackResult {
  return hub.write(() => {
    const conv = conversationById(hub.db, input.conv_id);
    if (!conv) throw new HubError('not_found', `No conversation ${input.conv_id}.`, 'Use a conv_id from the conversation list.');
    const active = activeHandoffsOf(hub.db, conv.id);
    let h: HandoffRow | undefined;
    if (input.agent !== undefined) {
      const agent = resolveUser(hub, input.agent);
      h = active.find((x) => x.agent_id === agent.id);
      if (!h) {
        throw new HubError('not_found', `${agent.name} has not handed conversation ${conv.id} off.`, "Check the conversation's handoffs.", {
          active: active.map((x) => hub.ref(x.agent_id).name),
        });
      }
    } else if (active.length === 1) {
      h = active[0]!;
    } else if (active.length === 0) {
      throw new HubError('not_found', `Nothing was handed off in conversation ${conv.id}.`, "Check the conversation's handoffs.");
    } else {
      throw new HubError('invalid_argument', `Several agents handed conversation ${conv.id} off; name one.`, 'Pass agent.', {
        active: active.map((x) => hub.ref(x.agent_id).name),
      });
    }
    if (personId !== h.to_user && personId !== hub.ownerId) {
      throw new HubError(
        'forbidden',
        `${hub.ref(h.agent_id).name} handed this conversation to ${hub.ref(h.to_user).name}; only they or the owner can hand it back.`,
        'Ask them to hand it back.',
      );
    }
    const note = requireText(input.note ?? '', 'note').trim();
    const at = hub.now();
    // Close the handoff first: the agent is wakeable again, so the returned event wakes it.
    returnHandoff(hub.db, h.id, note, at);
    const after = conversationById(hub.db, conv.id)!;
    const woken = wakeable(hub, after, personId, [h.agent_id]);
    const { seq } = hub.emit(conv.id, 'handoff.returned', personId, {
      // handoff_seq: a member whose history starts after the handoff does not get its note (views.ts).
      data: {
        handoff_id: h.id,
        agent: hub.ref(h.agent_id),
        by: hub.ref(personId),
        note,
        handoff_note: h.note,
        handed_off_at: h.at,
        handoff_seq: handoffCreatedSeq(hub.db, conv.id, h.id) ?? null,
      },
      wake: woken,
    });
    return { conv_id: conv.id, handoff_id: h.id, agent: hub.ref(h.agent_id), seq, woken: woken.map((u) => hub.ref(u).name) };
  });
}

/** Every handoff still waiting for its person, oldest first (the owner's Handoffs list). */
export function listActiveHandoffs(hub: FeaturesHub): HandoffItem[] {
  return allActiveHandoffs(hub.db).map((h) => ({
    conv_id: h.conv_id,
    agent: hub.ref(h.agent_id),
    to: hub.ref(h.to_user),
    note: h.note,
    at: h.at,
    title: conversationView(hub, conversationById(hub.db, h.conv_id)!, hub.ownerId).title,
  }));
}

export const handoffTools = {
  handoff: {
    run: ({ hub, agentId }, a) => handoff(hub, agentId, a),
  },
} satisfies ToolHandlers<'handoff', FeaturesHub>;
