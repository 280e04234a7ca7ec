// Brakes on agents' sends (people are never slowed). A refused send is never queued, changes nothing in
// the conversation, and gets error code `brake` with a reason that starts with one of:
//   loop       the conversation is paused: agents traded BRAKES.loopTurns turns (a turn = a change of
//              speaking agent) within two hours with no person taking part, at least two of them taking
//              3 or more. The send that makes that turn is the last one: the conversation is then paused
//              for all agents (conversation.paused) until a person presses Resume or writes in it
//              (conversation.resumed wakes the members).
//   duplicate  the agent already sent exactly this text twice here since a person last took part.
//   budget     the agent sent its budget (default 60) of messages here in the last hour.
//   notice     the agent replies (reply_to) to a message sent with intent status or done that named
//              nobody in `to`: acknowledgements end there.
// Anything a person does in a conversation (any event a person is the actor of) resets its loop count
// and its duplicate counts.
//
// Counts are O(1) per send and kept in memory: per conversation its last turns, per agent and
// conversation the times of its sends in the last hour and the texts it sent since a person last took
// part. A conversation's counts are rebuilt from its event log (only its last two hours, at most
// REBUILD_EVENTS events) the first time one of its sends is checked after the hub starts. Paused
// conversations and the owner's per-agent budgets are kept in SQLite (store/tables/agents/brakes.ts).
// Approximations, on the safe side: an event a person acted in resets counts even if its transaction
// was then rolled back.
//
// Every brake that fires is shown to the owner: the loop brake as the conversation.paused event (a
// system row and a banner with Resume); the others as a progress row of kind error (data.brake) of the
// agent in that conversation — the conversation's live feed and the fleet feed — at most one a minute per
// agent, conversation and brake.
//
// PERCH_BRAKES=off starts a hub without brakes; it exists for the benchmark (bench/run.ts compares
// send_message with brakes on and off side by side) and is not an owner setting.
//
// brakeCheck is the brakes gate of an agent's write (hub/talk/gates.ts, stage words). Review mode (held messages) passes
// it and counts through noteSent too, so holding is no way round them.
import type { Hub } from '../core/hub';
import type { IdentityServices } from '../identity/services';
import { HubError } from '../../../shared/errors';
import { BRAKES, type AgentBrakes, type BrakeWord, type BudgetSetting, type ConversationPause } from '../../../shared/agents/brakes';
import type { MessageRow } from '../../store/tables/talk/messages';
import { allBudgets, allPauses, deletePause, insertPause, recentEvents, setBudgetRow } from '../../store/tables/agents/brakes';
import { membersOf } from '../../store/tables/talk/conversations';
import { insertProgress } from '../../store/tables/talk/progress';
import { tx } from '../../store/db/db';
import { visibleDeep } from '../../../shared/text/text';
import { progressView } from '../core/views';
import { findAgent } from '../identity/identities';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type BrakesHub = Hub<IdentityServices & { brakes: Brakes }>;

/** At most this many events of a conversation are read to rebuild its counts. */
export const REBUILD_EVENTS = 2000;
/** Distinct texts remembered per agent and conversation for `duplicate` (the oldest are forgotten). */
const TEXTS_KEPT = 256;
/** One progress row per agent, conversation and brake at most this often. */
const NOTICE_EVERY_MS = 60_000;

interface AgentConv {
  /** Times of its sends here (budget); live entries from `head`. */
  sent: number[];
  head: number;
  /** Texts sent since a person last took part (valid while epoch matches the conversation's). */
  texts: Map<string, number>;
  epoch: number;
}

interface ConvState {
  /** The last turns (at most BRAKES.loopTurns) since a person last took part. */
  turns: Array<{ at: number; agent: string }>;
  lastSpeaker: string | null;
  /** Rises each time a person takes part: duplicate counts of older epochs are void. */
  epoch: number;
  agents: Map<string, AgentConv>;
}

interface State {
  off: boolean;
  pauses: Map<string, ConversationPause>;
  /** Per agent: messages per hour per conversation (0 = off); absent = default. */
  budgets: Map<string, number>;
  convs: Map<string, ConvState>;
  lastNotice: Map<string, number>;
}

/** What the brakes keep for one hub: loaded on first use (startBrakes loads them when the hub starts). */
export class Brakes {
  private loaded: State | undefined = undefined;

  constructor(private readonly hub: BrakesHub) {}

  get state(): State {
    if (this.loaded) return this.loaded;
    const hub = this.hub;
    const s: State = (this.loaded = {
      off: process.env.PERCH_BRAKES === 'off',
      pauses: new Map(
        allPauses(hub.db).map((r) => [r.conv_id, { reason: r.reason, at: r.paused_at, agents: JSON.parse(r.agents) as string[] }]),
      ),
      budgets: new Map(allBudgets(hub.db).map((r) => [r.user_id, r.budget])),
      convs: new Map(),
      lastNotice: new Map(),
    });
    // Anything a person does in a conversation resets its counts (hub.ts calls this for every event).
    hub.onEmit((convId, _type, actorId) => {
      if (actorId && isPerson(hub, actorId)) personActedIn(s, convId);
    });
    return s;
  }
}

function stateOf(hub: BrakesHub): State {
  return hub.services.brakes.state;
}

/** Loads paused conversations and budgets when the hub starts (app.ts). */
export function startBrakes(hub: BrakesHub): void {
  stateOf(hub);
}

function isPerson(hub: BrakesHub, userId: string): boolean {
  try {
    return hub.user(userId).kind === 'human';
  } catch {
    return false;
  }
}

function personActedIn(s: State, convId: string): void {
  const c = s.convs.get(convId);
  if (!c) return; // not built yet: its rebuild reads this event from the log
  c.turns = [];
  c.lastSpeaker = null;
  c.epoch += 1;
}

/** A person took part in a conversation without an event of theirs (e.g. approving a held message): counts reset. */
export function personActed(hub: BrakesHub, convId: string): void {
  personActedIn(stateOf(hub), convId);
}

function agentConv(c: ConvState, agentId: string): AgentConv {
  let a = c.agents.get(agentId);
  if (!a) c.agents.set(agentId, (a = { sent: [], head: 0, texts: new Map(), epoch: c.epoch }));
  if (a.epoch !== c.epoch) {
    a.texts.clear();
    a.epoch = c.epoch;
  }
  return a;
}

function sentInWindow(a: AgentConv, now: number): number {
  const from = now - BRAKES.budgetWindowMs;
  while (a.head < a.sent.length && a.sent[a.head]! <= from) a.head += 1;
  if (a.head > 256 && a.head * 2 > a.sent.length) {
    a.sent = a.sent.slice(a.head);
    a.head = 0;
  }
  return a.sent.length - a.head;
}

/** Counts one send; returns the agents of a loop when this send completed one. */
function count(c: ConvState, agentId: string, text: string, at: number): string[] | null {
  const a = agentConv(c, agentId);
  a.sent.push(at);
  if (text) {
    a.texts.set(text, (a.texts.get(text) ?? 0) + 1);
    if (a.texts.size > TEXTS_KEPT) a.texts.delete(a.texts.keys().next().value!);
  }
  if (c.lastSpeaker === agentId) return null;
  c.lastSpeaker = agentId;
  c.turns.push({ at, agent: agentId });
  if (c.turns.length > BRAKES.loopTurns) c.turns.shift();
  if (c.turns.length < BRAKES.loopTurns || at - c.turns[0]!.at > BRAKES.loopWindowMs) return null;
  const per = new Map<string, number>();
  for (const t of c.turns) per.set(t.agent, (per.get(t.agent) ?? 0) + 1);
  const many = [...per].filter(([, n]) => n >= BRAKES.loopMinTurnsEach).map(([id]) => id);
  return many.length >= BRAKES.loopMinAgents ? many : null;
}

/** A conversation's counts, rebuilt from its log (last two hours, at most REBUILD_EVENTS events) on first use. */
function convState(hub: BrakesHub, s: State, convId: string): ConvState {
  let c = s.convs.get(convId);
  if (c) return c;
  c = { turns: [], lastSpeaker: null, epoch: 0, agents: new Map() };
  const now = hub.now();
  const rows = recentEvents(hub.db, convId, now - BRAKES.loopWindowMs, REBUILD_EVENTS).reverse();
  for (const r of rows) {
    if (!r.actor_id) continue;
    if (isPerson(hub, r.actor_id)) {
      c.turns = [];
      c.lastSpeaker = null;
      c.epoch += 1;
    } else if (r.type === 'message.created' && r.kind !== 'request') {
      count(c, r.actor_id, r.text ?? '', r.ts);
    }
  }
  s.convs.set(convId, c);
  return c;
}

function budgetOf(s: State, agentId: string): number {
  return s.budgets.get(agentId) ?? BRAKES.budgetPerHour;
}

export interface BrakeInput {
  text: string;
  reply_to?: string;
  kind?: string;
}

/**
 * Refuses an agent's send with code `brake` when a brake applies (see the top of this file). Changes
 * nothing (the owner is shown the refusal after the caller's transaction). Requests to a person
 * (kind request) are never braked. `replied`: the message named by reply_to, if already read.
 */
export function brakeCheck(hub: BrakesHub, agentId: string, convId: string, input: BrakeInput, replied?: MessageRow): void {
  const s = stateOf(hub);
  if (s.off || input.kind === 'request') return;
  const pause = s.pauses.get(convId);
  if (pause) {
    refuse(
      hub,
      agentId,
      convId,
      'loop',
      `loop: this conversation is paused: ${pause.reason}`,
      'Stop sending here and tell your owner (request_human, or your direct conversation with them). Only a person can resume it: by pressing Resume or by writing in it; you get conversation.resumed in get_updates.',
      { paused_at: pause.at },
    );
  }
  if (input.reply_to) {
    const r = replied && replied.id === input.reply_to ? replied : undefined;
    if (r && (r.intent === 'status' || r.intent === 'done') && !r.to_ids) {
      refuse(
        hub,
        agentId,
        convId,
        'notice',
        `notice: message ${r.id} was sent with intent ${r.intent} and named nobody; acknowledgements end there.`,
        'Do not answer status or done messages; carry on with your work, or name someone in `to` when there is something to act on.',
      );
    }
  }
  const now = hub.now();
  const c = convState(hub, s, convId);
  const a = agentConv(c, agentId);
  if (input.text && (a.texts.get(input.text) ?? 0) >= BRAKES.duplicateMax) {
    refuse(
      hub,
      agentId,
      convId,
      'duplicate',
      `duplicate: you already sent exactly this text ${BRAKES.duplicateMax} times in this conversation since a person last took part.`,
      'Do not repeat yourself: say something new, or wait for a person to take part.',
    );
  }
  const budget = budgetOf(s, agentId);
  if (budget > 0 && sentInWindow(a, now) >= budget) {
    const oldest = a.sent[a.head]!;
    refuse(
      hub,
      agentId,
      convId,
      'budget',
      `budget: you sent ${budget} messages in this conversation in the last hour (your budget).`,
      `Send fewer, longer messages; you may send here again in ${Math.ceil((oldest + BRAKES.budgetWindowMs - now) / 60_000)} minutes. Your owner can change your budget.`,
      { budget_per_hour: budget, retry_after_ms: oldest + BRAKES.budgetWindowMs - now },
    );
  }
}

/**
 * Counts an agent's send (call in the transaction that records it: insertMessageWithEvent does, and
 * review mode does when it holds a message). When the send completes a loop, the conversation is
 * paused in that transaction and its agents are woken with conversation.paused.
 */
export function noteSent(hub: BrakesHub, agentId: string, convId: string, text: string, kind?: string): void {
  const s = stateOf(hub);
  if (s.off || kind === 'request') return;
  const now = hub.now();
  const loopers = count(convState(hub, s, convId), agentId, text, now);
  if (!loopers || s.pauses.has(convId)) return;
  const names = loopers.map((id) => hub.ref(id).name);
  const pause: ConversationPause = {
    reason: `agents (${names.join(', ')}) traded ${BRAKES.loopTurns} turns within ${BRAKES.loopWindowMs / 3_600_000} hours with no person taking part`,
    at: now,
    agents: names,
  };
  insertPause(hub.db, { conv_id: convId, reason: pause.reason, agents: JSON.stringify(names), paused_at: now });
  s.pauses.set(convId, pause);
  hub.emit(convId, 'conversation.paused', null, {
    data: { reason: pause.reason, agents: names, brake: 'loop' },
    wake: agentMembers(hub, convId),
  });
}

function agentMembers(hub: BrakesHub, convId: string): string[] {
  return membersOf(hub.db, convId)
    .map((m) => m.user_id)
    .filter((id) => !isPerson(hub, id));
}

/** The loop pause of a conversation, if any (ConversationView.paused). */
export function conversationPause(hub: BrakesHub, convId: string): ConversationPause | undefined {
  return stateOf(hub).pauses.get(convId);
}

/**
 * A person lifts a conversation's loop pause (Resume, or writing in it): conversation.resumed wakes its
 * members. In the caller's transaction, or its own. Returns whether it was paused.
 */
export function resumeConversation(hub: BrakesHub, personId: string, convId: string): boolean {
  const s = stateOf(hub);
  if (!s.pauses.has(convId)) return false;
  return hub.write(() => {
    if (!deletePause(hub.db, convId)) {
      s.pauses.delete(convId);
      return false;
    }
    s.pauses.delete(convId);
    hub.emit(convId, 'conversation.resumed', personId, { data: { brake: 'loop' }, wake: agentMembers(hub, convId) });
    return true;
  });
}

/** A person sends in a conversation (insertMessageWithEvent): that lifts its loop pause. */
export function personSends(hub: BrakesHub, personId: string, convId: string): void {
  if (stateOf(hub).pauses.has(convId)) resumeConversation(hub, personId, convId);
}

/** An agent's brakes (whoami, the owner's agents.brakes). */
export function agentBrakes(hub: BrakesHub, agentId: string): AgentBrakes {
  const s = stateOf(hub);
  const b = budgetOf(s, agentId);
  return {
    budget_per_hour: b > 0 ? b : null,
    budget_is_default: !s.budgets.has(agentId),
    loop: {
      turns: BRAKES.loopTurns,
      within_secs: BRAKES.loopWindowMs / 1000,
      min_agents: BRAKES.loopMinAgents,
      min_turns_each: BRAKES.loopMinTurnsEach,
    },
    duplicate_max: BRAKES.duplicateMax,
    notice: 'Replies (reply_to) to a status or done message that named nobody in `to` are refused.',
  };
}

/** The owner sets an agent's budget: a number of messages per hour per conversation, 'off', or 'default'. */
export function setAgentBudget(hub: BrakesHub, agent: string, budget: BudgetSetting): { agent: string; brakes: AgentBrakes } {
  const row = findAgent(hub, agent);
  const s = stateOf(hub);
  const value = budget === 'default' ? null : budget === 'off' ? 0 : budget;
  if (typeof budget === 'number' && (!Number.isInteger(budget) || budget < 1 || budget > BRAKES.budgetMax)) {
    throw new HubError(
      'invalid_argument',
      `budget must be a whole number from 1 to ${BRAKES.budgetMax}, "off" or "default".`,
      'Give a number of messages per hour per conversation, off, or default (60).',
    );
  }
  tx(hub.db, () => setBudgetRow(hub.db, row.id, value));
  if (value === null) s.budgets.delete(row.id);
  else s.budgets.set(row.id, value);
  return { agent: row.name, brakes: agentBrakes(hub, row.id) };
}

function refuse(
  hub: BrakesHub,
  agentId: string,
  convId: string,
  word: BrakeWord,
  reason: string,
  nextStep: string,
  extra: Record<string, unknown> = {},
): never {
  // Shown to the owner after the caller's transaction (which this refusal rolls back).
  setImmediate(() => showToOwner(hub, agentId, convId, word, reason));
  throw new HubError('brake', `A brake stopped this send: ${reason} Nothing was sent.`, nextStep, {
    reason,
    brake: word,
    conv_id: convId,
    ...extra,
  });
}

/** A progress row of kind error (data.brake) for the owner's feeds, at most one a minute per agent, conversation and brake. */
function showToOwner(hub: BrakesHub, agentId: string, convId: string, word: BrakeWord, reason: string): void {
  const s = stateOf(hub);
  const key = `${agentId}\u0000${convId}\u0000${word}`;
  const now = hub.now();
  if (now - (s.lastNotice.get(key) ?? -Infinity) < NOTICE_EVERY_MS) return;
  s.lastNotice.set(key, now);
  if (s.lastNotice.size > 10_000) s.lastNotice.clear();
  try {
    const row = {
      user_id: agentId,
      conv_id: convId,
      kind: 'error',
      text: `Brake (${word}): ${reason}`,
      data: JSON.stringify({ brake: { word, reason } }),
      msg_id: null,
      ts: now,
    };
    const id = tx(hub.db, () => insertProgress(hub.db, row));
    hub.bus.publish({ kind: 'progress', value: visibleDeep(progressView(hub, { id, ...row })) });
  } catch {
    /* the disk is full: the refusal stands, the owner's row is lost */
  }
}
