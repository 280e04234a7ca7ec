// Claims: a member takes a message sent with intent=request for itself. The first claim wins:
// the check and the set are one conditional UPDATE inside one transaction.
import type { FeaturesHub } from '../services';
import { HubError } from '../../../../shared/errors';
import type { UserRef } from '../../../../shared/types';
import { messageById, type MessageRow } from '../../../store/tables/talk/messages';
import { activeHandoff } from '../../../store/tables/talk/handoffs';
import { dropClaim, takeClaim } from '../../../store/tables/talk/claims';
import { isManager, isTerminalTask, requireVisibleMessage, wakeable, type Access } from '../../talk/access';
import type { ToolHandlers } from '../../identity/tool-handler';

export interface ClaimResult {
  msg_id: string;
  conv_id: string;
  claimed_by: UserRef | null;
  /** False when nothing changed (you already held it / nobody held it). */
  changed: boolean;
  seq: number | null;
}

function requireRequest(hub: FeaturesHub, userId: string, msgId: string): { msg: MessageRow; access: Access } {
  const found = requireVisibleMessage(hub, userId, msgId);
  const { msg } = found;
  if (msg.intent !== 'request') {
    throw new HubError(
      'invalid_argument',
      `Message ${msgId} was not sent with intent=request; only requests can be claimed.`,
      'Claim a message whose intent is request.',
    );
  }
  if (msg.recalled_at) {
    throw new HubError('conflict', `Request ${msgId} was recalled.`, 'Nothing to do.');
  }
  return found;
}

function holderConflict(hub: FeaturesHub, msg: MessageRow): HubError {
  const holder = hub.ref(msg.claimed_by!);
  return new HubError(
    'conflict',
    `Request ${msg.id} is already claimed by ${holder.name}.`,
    `Leave it to ${holder.name}, or pick another request.`,
    {
      claimed_by: holder.name,
      claimed_by_id: holder.id,
      claimed_at: msg.claimed_at,
    },
  );
}

/** Takes a request for userId. Claiming what you hold is a no-op success; anybody else's claim is a conflict. */
export function claim(hub: FeaturesHub, userId: string, msgId: string): ClaimResult {
  return hub.write(() => {
    const { msg, access } = requireRequest(hub, userId, msgId);
    const conv = access.conv;
    if (hub.user(userId).kind === 'agent') {
      if (isTerminalTask(conv)) {
        throw new HubError(
          'silenced',
          `Task ${conv.id} is ${conv.task_state}; its requests can no longer be claimed.`,
          'Open a new task or talk elsewhere.',
        );
      }
      if (activeHandoff(hub.db, conv.id, userId)) {
        throw new HubError(
          'silenced',
          'You handed this conversation off; you are silent here until it is handed back.',
          'Wait for the handoff.returned event in get_updates.',
        );
      }
    }
    if (msg.claimed_by === userId) {
      return { msg_id: msg.id, conv_id: msg.conv_id, claimed_by: hub.ref(userId), changed: false, seq: null };
    }
    if (!takeClaim(hub.db, msg.id, userId, hub.now())) {
      throw holderConflict(hub, messageById(hub.db, msg.id)!);
    }
    const { seq } = hub.emit(msg.conv_id, 'claim.taken', userId, {
      msgId: msg.id,
      data: { msg_id: msg.id, by: hub.ref(userId) },
      wake: wakeable(hub, conv, userId, [msg.sender_id]),
    });
    return { msg_id: msg.id, conv_id: msg.conv_id, claimed_by: hub.ref(userId), changed: true, seq };
  });
}

/** Gives a claimed request back: its holder, or a manager of the conversation. */
export function releaseClaim(hub: FeaturesHub, userId: string, msgId: string): ClaimResult {
  return hub.write(() => {
    const { msg, access } = requireRequest(hub, userId, msgId);
    if (!msg.claimed_by) {
      return { msg_id: msg.id, conv_id: msg.conv_id, claimed_by: null, changed: false, seq: null };
    }
    const holder = msg.claimed_by;
    const manager = isManager(access.member) || userId === hub.ownerId;
    if (holder !== userId && !manager) {
      throw new HubError(
        'forbidden',
        `Request ${msg.id} is claimed by ${hub.ref(holder).name}; only they or a manager can release it.`,
        'Leave it to them.',
        {
          claimed_by: hub.ref(holder).name,
        },
      );
    }
    if (!dropClaim(hub.db, msg.id, holder))
      throw new HubError('conflict', `The claim on ${msg.id} changed meanwhile.`, 'Read it again and retry.');
    // The request's sender learns it is free again; a holder released by a manager learns it lost it.
    const { seq } = hub.emit(msg.conv_id, 'claim.released', userId, {
      msgId: msg.id,
      data: { msg_id: msg.id, by: hub.ref(userId), holder: hub.ref(holder) },
      wake: wakeable(hub, access.conv, userId, [msg.sender_id, holder]),
    });
    return { msg_id: msg.id, conv_id: msg.conv_id, claimed_by: null, changed: true, seq };
  });
}

export const claimTools = {
  claim: {
    run: ({ hub, agentId }, a) => claim(hub, agentId, a.msg_id),
  },
  release_claim: {
    run: ({ hub, agentId }, a) => releaseClaim(hub, agentId, a.msg_id),
  },
} satisfies ToolHandlers<'claim' | 'release_claim', FeaturesHub>;
