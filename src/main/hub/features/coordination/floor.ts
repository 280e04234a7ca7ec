// The floor: a manager of a conversation lets one agent speak there for a while (one holder at a
// time). While it is held, other agents' sends are refused (the may-speak gate, hub/talk/gates.ts). Granting
// while someone else holds it replaces them: floor.released (reason "replaced") comes first.
// An expired floor silences nobody (access.ts compares floor_until with now); it is cleared lazily
// by the next grant/release there, or by expireFloors() (a sweep for a timer).
import type { Hub } from '../../core/hub';
import type { TalkServices } from '../../talk/services';
import { HubError } from '../../../../shared/errors';
import { LIMITS } from '../../../../shared/limits';
import type { UserRef } from '../../../../shared/types';
import { conversationById, member, setFloor, type ConversationRow, type MemberRow } from '../../../store/tables/talk/conversations';
import { activeHandoff } from '../../../store/tables/talk/handoffs';
import { clearFloorOf, expiredFloorConversations, lastActorOf, nextFloorExpiry } from '../../../store/tables/talk/floor';
import { deadlineTimer, type DeadlineTimer } from '../../core/deadlines';
import { isManager, requireMember, resolveUser, wakeable, type Access } from '../../talk/access';
import type { ToolHandlers } from '../../identity/tool-handler';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type FloorHub = Hub<TalkServices & { floorExpiry: FloorExpiry }>;

export interface FloorState {
  conv_id: string;
  holder: UserRef | null;
  until: number | null;
}

export interface FloorGrantResult extends FloorState {
  holder: UserRef;
  until: number;
  ttl_secs: number;
  seq: number;
  /** The agent that held the floor before and lost it to this grant, if any. */
  replaced: UserRef | null;
  woken: string[];
}

export interface FloorReleaseResult extends FloorState {
  released: UserRef | null;
  changed: boolean;
  seq: number | null;
}

/** Clears an expired floor of the conversation (in the caller's transaction); returns the fresh row. */
function clearIfExpired(hub: FloorHub, conv: ConversationRow): ConversationRow {
  if (!conv.floor_holder || (conv.floor_until ?? 0) > hub.now()) return conv;
  const holder = conv.floor_holder;
  if (clearFloorOf(hub.db, conv.id, holder)) {
    // The turn is over: whoever granted it (the coordinator) is woken to give the next one.
    const granter = lastActorOf(hub.db, conv.id, 'floor.granted');
    hub.emit(conv.id, 'floor.released', null, {
      data: { holder: hub.ref(holder), reason: 'expired', until: conv.floor_until },
      wake: wakeable(hub, conv, null, granter ? [granter] : []),
    });
  }
  return conversationById(hub.db, conv.id)!;
}

/** Clears every expired floor (a floor.released event with reason "expired" each). Returns how many. */
export function expireFloors(hub: FloorHub): number {
  return hub.write(() => {
    const ids = expiredFloorConversations(hub.db, hub.now());
    for (const id of ids) clearIfExpired(hub, conversationById(hub.db, id)!);
    return ids.length;
  });
}

/** The conversation's current (unexpired) floor. */
export function floorOf(hub: FloorHub, conv: ConversationRow): FloorState {
  const live = conv.floor_holder && (conv.floor_until ?? 0) > hub.now();
  return { conv_id: conv.id, holder: live ? hub.ref(conv.floor_holder!) : null, until: live ? conv.floor_until : null };
}

function access(hub: FloorHub, userId: string, convId: string, asOwner: boolean): Access {
  if (!asOwner) return requireMember(hub, userId, convId);
  const conv = conversationById(hub.db, convId);
  if (!conv) throw new HubError('not_found', `No conversation ${convId}.`, 'Use a conv_id from the conversation list.');
  const m: MemberRow = member(hub.db, convId, userId) ?? {
    conv_id: convId,
    user_id: userId,
    role: 'owner',
    from_seq: 1,
    joined_at: 0,
    read_seq: 0,
  };
  return { conv, member: { ...m, role: 'owner' } };
}

function grant(
  hub: FloorHub,
  userId: string,
  input: { conv_id: string; agent: string; ttl_secs?: number },
  asOwner: boolean,
): FloorGrantResult {
  return hub.write(() => {
    const a = access(hub, userId, input.conv_id, asOwner);
    if (a.conv.kind === 'inbox') {
      throw new HubError('invalid_argument', 'An inbox has no floor.', 'Give the floor in a group or task channel.');
    }
    if (!isManager(a.member)) {
      throw new HubError(
        'forbidden',
        'Only a manager of this conversation (its owner or an admin) can give the floor.',
        "Ask the conversation's owner or an admin.",
      );
    }
    const ttl = input.ttl_secs ?? LIMITS.floorDefaultTtlSecs;
    if (!Number.isInteger(ttl) || ttl < 1 || ttl > LIMITS.floorMaxTtlSecs) {
      throw new HubError(
        'invalid_argument',
        `ttl_secs must be a whole number from 1 to ${LIMITS.floorMaxTtlSecs}.`,
        `Leave it out for ${LIMITS.floorDefaultTtlSecs} seconds.`,
      );
    }
    const agent = resolveUser(hub, input.agent);
    if (agent.kind !== 'agent') {
      throw new HubError(
        'invalid_argument',
        `agent: "${agent.name}" is a person; the floor goes to an agent.`,
        'Name an agent of the conversation.',
      );
    }
    if (!member(hub.db, a.conv.id, agent.id)) {
      throw new HubError(
        'invalid_argument',
        `agent: "${agent.name}" is not a member of conversation ${a.conv.id}.`,
        'Add it with add_member first.',
      );
    }
    if (activeHandoff(hub.db, a.conv.id, agent.id)) {
      throw new HubError(
        'conflict',
        `${agent.name} handed this conversation off and is silent here.`,
        'Hand it back to the agent first, or give the floor to another agent.',
      );
    }
    const conv = clearIfExpired(hub, a.conv);
    let replaced: UserRef | null = null;
    if (conv.floor_holder && conv.floor_holder !== agent.id) {
      replaced = hub.ref(conv.floor_holder);
      hub.emit(conv.id, 'floor.released', userId, {
        data: { holder: replaced, by: hub.ref(userId), reason: 'replaced', replaced_by: hub.ref(agent.id) },
        wake: wakeable(hub, conv, userId, [conv.floor_holder]),
      });
    }
    const renewed = conv.floor_holder === agent.id;
    const until = hub.now() + ttl * 1000;
    setFloor(hub.db, conv.id, agent.id, until);
    const woken = wakeable(hub, conv, userId, [agent.id]);
    const { seq } = hub.emit(conv.id, 'floor.granted', userId, {
      data: { agent: hub.ref(agent.id), by: hub.ref(userId), until, ttl_secs: ttl, replaced, renewed },
      wake: woken,
    });
    return { conv_id: conv.id, holder: hub.ref(agent.id), until, ttl_secs: ttl, seq, replaced, woken: woken.map((u) => hub.ref(u).name) };
  });
}

function release(hub: FloorHub, userId: string, convId: string, asOwner: boolean): FloorReleaseResult {
  return hub.write(() => {
    const a = access(hub, userId, convId, asOwner);
    const conv = clearIfExpired(hub, a.conv);
    if (!conv.floor_holder) {
      return { conv_id: conv.id, holder: null, until: null, released: null, changed: false, seq: null };
    }
    const holder = conv.floor_holder;
    if (holder !== userId && !isManager(a.member)) {
      throw new HubError(
        'forbidden',
        `${hub.ref(holder).name} holds the floor; only they or a manager can release it.`,
        'Wait until the floor is released or expires.',
        {
          floor_holder: hub.ref(holder).name,
          until: conv.floor_until,
        },
      );
    }
    clearFloorOf(hub.db, conv.id, holder);
    // Whoever gave the floor learns the turn ended; a holder released by someone else learns it lost it.
    const granter = lastActorOf(hub.db, conv.id, 'floor.granted');
    const { seq } = hub.emit(conv.id, 'floor.released', userId, {
      data: { holder: hub.ref(holder), by: hub.ref(userId), reason: 'released' },
      wake: wakeable(hub, conv, userId, granter ? [holder, granter] : [holder]),
    });
    return { conv_id: conv.id, holder: null, until: null, released: hub.ref(holder), changed: true, seq };
  });
}

/** A manager of the conversation gives the floor to one of its agents. */
export function floorGrant(hub: FloorHub, userId: string, input: { conv_id: string; agent: string; ttl_secs?: number }): FloorGrantResult {
  const r = grant(hub, userId, input, false);
  armFloorExpiry(hub);
  return r;
}

// Floors run out on time even when nobody touches the conversation: one timer (deadlines.ts), armed for
// the soonest expiry after every grant (no polling). Only a running hub (startFloorExpiry) arms it.

/** The hub's floor-expiry timer: none until the running hub starts it. */
export class FloorExpiry {
  private timer: DeadlineTimer | undefined = undefined;

  constructor(private readonly hub: FloorHub) {}

  /** Starts the timer (idempotent); it stops when the hub closes. */
  start(): void {
    if (this.timer) return;
    const hub = this.hub;
    const timer = deadlineTimer({ next: () => nextFloorExpiry(hub.db), fire: () => expireFloors(hub), now: () => hub.now(), slackMs: 5 });
    this.timer = timer;
    hub.onClose(() => {
      timer.close();
      this.timer = undefined;
    });
    timer.arm();
  }

  /** A floor was granted: the timer re-reads the soonest expiry (when it runs). */
  armSoon(): void {
    this.timer?.armSoon();
  }
}

export function startFloorExpiry(hub: FloorHub): void {
  hub.services.floorExpiry.start();
}

function armFloorExpiry(hub: FloorHub): void {
  hub.services.floorExpiry.armSoon();
}

/** The holder or a manager ends the current turn. No floor held: nothing changes. */
export function floorRelease(hub: FloorHub, userId: string, convId: string): FloorReleaseResult {
  return release(hub, userId, convId, false);
}

/** Owner side: the owner manages every conversation's floor. release: true ends the turn; else agent gets it. */
export function ownerFloor(
  hub: FloorHub,
  ownerId: string,
  input: { conv_id: string; agent?: string; ttl_secs?: number; release?: boolean },
): FloorGrantResult | FloorReleaseResult {
  if (ownerId !== hub.ownerId) {
    throw new HubError('forbidden', 'Only the owner can manage the floor this way.', 'Use floor_grant / floor_release as a manager.');
  }
  if (input.release) {
    if (input.agent !== undefined)
      throw new HubError('invalid_argument', 'Give agent or release, not both.', 'Release the floor, then grant it.');
    return release(hub, ownerId, input.conv_id, true);
  }
  if (input.agent === undefined)
    throw new HubError('invalid_argument', 'Give agent to grant the floor, or release: true.', 'Name the agent that should speak.');
  const r = grant(hub, ownerId, { conv_id: input.conv_id, agent: input.agent, ttl_secs: input.ttl_secs }, true);
  armFloorExpiry(hub);
  return r;
}

export const floorTools = {
  floor_grant: {
    run: ({ hub, agentId }, a) => floorGrant(hub, agentId, a),
  },
  floor_release: {
    run: ({ hub, agentId }, a) => floorRelease(hub, agentId, a.conv_id),
  },
} satisfies ToolHandlers<'floor_grant' | 'floor_release', FloorHub>;
