// Review mode (per agent, set by the owner): while it is on, the agent's send_message, send_card and
// send_file are held, and so is every other write that carries its words to others (hub/features/review/review-calls.ts:
// edit_message, request_human, create_task, create_group, update_task with a note, handoff; a named
// reaction is refused). The call succeeds with held: true and a held_id; nothing reaches the conversation
// and nobody is woken. The owner sends (as is, or with the text edited) or discards each held item from
// the Approvals inbox. Sending posts it as the agent through the same send functions as any send (so
// every check runs again then) and marks the message reviewed (provenance.reviewed, and
// provenance.owner_edited when the text changed). The agent learns the outcome from held.sent /
// held.discarded in its notes channel (its inbox conversation, where only it and the owner are), which
// wake it. A held file keeps its processed bytes in held_items until it is sent or discarded.
import type { FeaturesHub } from '../services';
import { newId } from '../../core/hub';
import { HubError } from '../../../../shared/errors';
import { LIMITS } from '../../../../shared/limits';
import type { HeldItem, HeldSendResult } from '../../../../shared/features/review';
import {
  closeHeld,
  countHeldOf,
  heldById,
  heldBytes,
  heldWaiting,
  insertHeld,
  markReviewed,
  reviewedAgents,
  setReviewMode,
  type HeldKind,
  type HeldRow,
} from '../../../store/tables/talk/held';
import { HELD_CALLS, TOOL_OF_KIND, refuseNamedReaction, type CallDone, type CallTool } from './review-calls';
import { conversationById } from '../../../store/tables/talk/conversations';
import { requireMember, requireMessage, resolveMembers } from '../../talk/access';
import { passGates } from '../../talk/gates';
import { requireText, sendMessage, type SendInput } from '../../talk/messages';
import { noteSent, personActed } from '../../control/brakes';
import { instanceName } from '../../talk/agent-sessions';
import { sendCard, validateCard, type SendCardInput } from '../cards/cards';
import { storeFile, type PreparedFile } from '../files/files';
import { findAgent } from '../../identity/identities';
import { agentSummary } from '../../control/agents';
import type { AgentCtx, ToolHandler } from '../../identity/tool-handler';
import type { AgentSummary } from '../../../../shared/agents/agents';

/** What a held file keeps besides its bytes. */
interface HeldFileInput {
  conv_id: string;
  caption: string;
  reply_to?: string;
  name: string;
  mime: string;
  sha256: string;
  image: null | { width: number; height: number; thumbMime: string };
}

const NEXT_STEP =
  'Your owner reviews what you write before anyone sees it. You get held.sent (with the text as posted, and for other tools than a send the result the call would have answered) or held.discarded in get_updates; carry on meanwhile.';

// ---- the owner's switch (as the gates read it: hub/control/review-switch.ts reviewOn) ----------------------

export function setReview(hub: FeaturesHub, agentName: string, on: boolean): { agent: AgentSummary; changed: boolean } {
  const underReview = hub.services.underReview;
  return underReview.changing(() =>
    hub.write(() => {
      const u = findAgent(hub, agentName);
      const changed = setReviewMode(hub.db, u.id, on, hub.now());
      underReview.forget();
      return { agent: agentSummary(hub, u), changed };
    }),
  );
}

/** What whoami reports about review mode. */
export function reviewStatus(hub: FeaturesHub, agentId: string) {
  const since = reviewedAgents(hub.db).get(agentId);
  return {
    on: since !== undefined,
    ...(since !== undefined ? { since } : {}),
    held_waiting: countHeldOf(hub.db, agentId),
    ...(since !== undefined
      ? {
          note: 'send_message, send_card, send_file, edit_message, request_human, create_task, create_group, handoff and update_task with a note answer held: true and a held_id: your owner sends (maybe edited) or discards each; held.sent / held.discarded tell you which. react takes one emoji only (a :name: is refused).',
        }
      : {}),
  };
}

// ---- holding an agent's send ----------------------------------------------------------------------

type Send = 'send_message' | 'send_card' | 'send_file';
type Reviewable = Send | CallTool | 'react';
const KIND_OF: Record<Send, HeldKind> = { send_message: 'message', send_card: 'card', send_file: 'file' };
const isSend = (n: Reviewable): n is Send => Object.hasOwn(KIND_OF, n);

/**
 * A tool's handler under review mode (hub/tools/tools.ts wraps the tools src/shared/features/review.ts lists as held or
 * refused): while its agent is under review, a send or a call carrying words is held, a named reaction refused.
 */
export function reviewable<N extends Reviewable>(name: N, h: ToolHandler<N, any, FeaturesHub>): ToolHandler<N, any, FeaturesHub> {
  const run = (ctx: AgentCtx<FeaturesHub>, args: Record<string, unknown>, prepared: unknown): unknown => {
    // The hold stage of the gates (hub/talk/gates.ts: review): under review mode, the words are held for the owner.
    if (passGates('hold', { hub: ctx.hub, agentId: ctx.agentId, tool: name, ...(ctx.key ? { key: ctx.key } : {}) }) !== 'hold')
      return h.run(ctx, args as never, prepared);
    if (name === 'react') {
      refuseNamedReaction(args.key as string);
      return h.run(ctx, args as never, prepared);
    }
    if (isSend(name)) return hold(ctx, KIND_OF[name], args, prepared);
    const call = HELD_CALLS[name as CallTool] as HeldCallAny;
    return call.holds && !call.holds(args) ? h.run(ctx, args as never, prepared) : holdCall(ctx, name as CallTool, args);
  };
  return { ...(h.prepare ? { prepare: h.prepare } : {}), run: run as ToolHandler<N, any, FeaturesHub>['run'] };
}

/** HELD_CALLS' entries seen without their tool's argument types (their args were validated by the tool's schema). */
type HeldCallAny = {
  kind: HeldKind;
  field: 'text' | 'title' | 'note';
  holds?: (args: Record<string, unknown>) => boolean;
  check: (hub: FeaturesHub, agentId: string, args: Record<string, unknown>) => string | null;
  run: (hub: FeaturesHub, agentId: string, args: Record<string, unknown>) => CallDone;
  view?: (hub: FeaturesHub, args: Record<string, unknown>) => Partial<HeldItem>;
};
const callOf = (kind: HeldKind): HeldCallAny | undefined => {
  const tool = TOOL_OF_KIND[kind];
  return tool ? (HELD_CALLS[tool] as unknown as HeldCallAny) : undefined;
};

/** Checks a call as the real one would (writing nothing), then holds it with its arguments. */
function holdCall(ctx: AgentCtx<FeaturesHub>, tool: CallTool, args: Record<string, unknown>) {
  const { hub, agentId } = ctx;
  const call = HELD_CALLS[tool] as unknown as HeldCallAny;
  return hub.write(() => {
    const convId = call.check(hub, agentId, args);
    const input = without(args, 'client_msg_id', 'client_req_id', 'operation_id');
    const id = newId('h');
    const at = hub.now();
    insertHeld(hub.db, {
      id,
      agent_id: agentId,
      conv_id: convId,
      kind: call.kind,
      input: JSON.stringify(input),
      data: null,
      thumb: null,
      created_at: at,
    });
    const inbox = hub.user(agentId).inbox_id;
    if (inbox) hub.emit(inbox, 'held.created', agentId, { data: { held_id: id, kind: call.kind, conv_id: convId } });
    return { held: true as const, held_id: id, kind: call.kind, conv_id: convId, created_at: at, next_step: NEXT_STEP };
  });
}

function without<T extends Record<string, unknown>>(o: T, ...keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k) && v !== undefined) out[k] = v;
  return out;
}

/** Checks the send as the real one would (membership, may speak, sizes, to, reply_to, thread, card), then holds it. */
function hold(ctx: AgentCtx<FeaturesHub>, kind: HeldKind, args: Record<string, unknown>, prepared: unknown) {
  const { hub, agentId } = ctx;
  return hub.write(() => {
    const convId = args.conv_id as string;
    const access = requireMember(hub, agentId, convId);
    passGates('conversation', { hub, userId: agentId, access }); // may-speak (hub/talk/gates.ts)
    const replied = typeof args.reply_to === 'string' ? requireMessage(hub, access, args.reply_to, 'message to reply to') : undefined;
    let input: Record<string, unknown>;
    let data: Buffer | null = null;
    let thumb: Buffer | null = null;
    if (kind === 'message') {
      requireText(args.text as string);
      // instance names are checked now, as a posted send checks them, not when the owner sends it (hub/talk/agent-sessions.ts)
      instanceName(args.instance as string | undefined);
      instanceName(args.to_instance as string | undefined);
      resolveMembers(hub, convId, args.to as string[] | undefined, 'to');
      if (typeof args.thread_id === 'string') requireMessage(hub, access, args.thread_id, 'thread root');
      input = without(args, 'client_msg_id', 'operation_id');
    } else if (kind === 'card') {
      requireText(args.text as string);
      input = { ...without(args, 'client_msg_id', 'operation_id'), card: validateCard(args.card) };
    } else {
      const p = prepared as PreparedFile;
      const caption = requireText((args.caption as string | undefined) ?? '', 'caption');
      const f: HeldFileInput = {
        conv_id: convId,
        caption,
        name: p.name,
        mime: p.mime,
        sha256: p.sha256,
        image: p.image ? { width: p.image.width, height: p.image.height, thumbMime: p.image.thumbMime } : null,
        ...(typeof args.reply_to === 'string' ? { reply_to: args.reply_to } : {}),
      };
      input = f as unknown as Record<string, unknown>;
      data = p.data;
      thumb = p.image?.thumb ?? null;
    }
    const id = newId('h');
    const at = hub.now();
    // The gates with the words (hub/talk/gates.ts: brakes): a held send is braked and counted toward duplicate and
    // budget like a posted one, so review mode is no way round them.
    const heldText = textOf(kind, input);
    const brakeKind = kind === 'message' ? (input.kind as string | undefined) : kind;
    const words = {
      text: heldText,
      ...(typeof args.reply_to === 'string' ? { reply_to: args.reply_to } : {}),
      ...(brakeKind ? { kind: brakeKind } : {}),
    };
    passGates('words', { hub, userId: agentId, access, words, ...(replied ? { replied } : {}) });
    noteSent(hub, agentId, convId, heldText, brakeKind);
    insertHeld(hub.db, { id, agent_id: agentId, conv_id: convId, kind, input: JSON.stringify(input), data, thumb, created_at: at });
    // The owner's UI learns of it from the agent's notes channel; nobody is woken.
    const inbox = hub.user(agentId).inbox_id;
    if (inbox) hub.emit(inbox, 'held.created', agentId, { data: { held_id: id, kind, conv_id: convId } });
    const base = { held: true as const, held_id: id, conv_id: convId, created_at: at, next_step: NEXT_STEP };
    if (kind === 'message') return { ...base, woken: [] as string[] };
    if (kind === 'file')
      return {
        ...base,
        kind: (data && thumb ? 'image' : 'file') as 'image' | 'file',
        name: (input as unknown as HeldFileInput).name,
        mime: (input as unknown as HeldFileInput).mime,
        size: data!.length,
      };
    return base;
  });
}

// ---- the owner: list, send, discard -------------------------------------------------------------------

function textOf(kind: HeldKind, input: Record<string, unknown>): string {
  const field = kind === 'file' ? 'caption' : (callOf(kind)?.field ?? 'text');
  return String(input[field] ?? '');
}

export function heldView(hub: FeaturesHub, r: HeldRow): HeldItem {
  const input = JSON.parse(r.input) as Record<string, unknown>;
  const conv = r.conv_id ? conversationById(hub.db, r.conv_id) : undefined;
  const item: HeldItem = {
    held_id: r.id,
    agent: hub.ref(r.agent_id),
    conv_id: r.conv_id,
    conv_title: conv?.title ?? '',
    kind: r.kind,
    text: textOf(r.kind, input),
    state: r.state,
    created_at: r.created_at,
  };
  if (Array.isArray(input.to) && input.to.length) item.to = input.to as string[];
  if (typeof input.intent === 'string') item.intent = input.intent;
  if (typeof input.reply_to === 'string') item.reply_to = input.reply_to;
  if (r.kind === 'card') item.card = input.card;
  if (r.kind === 'file') {
    const f = input as unknown as HeldFileInput;
    item.file = { name: f.name, mime: f.mime, size: r.data_size ?? 0, is_image: !!f.image };
  }
  Object.assign(item, callOf(r.kind)?.view?.(hub, input));
  if (r.msg_id) item.msg_id = r.msg_id;
  if (r.sent_text != null) item.sent_text = r.sent_text;
  if (r.decided_at != null) item.decided_at = r.decided_at;
  return item;
}

export function listHeld(hub: FeaturesHub): HeldItem[] {
  return heldWaiting(hub.db, LIMITS.historyMaxLimit).map((r) => heldView(hub, r));
}

function requireHeld(hub: FeaturesHub, heldId: string): HeldRow {
  const r = heldById(hub.db, heldId);
  if (!r) throw new HubError('not_found', `No held item ${heldId}.`, 'Use a held_id from the Approvals inbox (held.list).');
  if (r.state !== 'held')
    throw new HubError('conflict', `Held item ${heldId} was already ${r.state}.`, 'Nothing left to do for it.', { state: r.state });
  return r;
}

/** Posts a held item as its agent (text: the owner's edit, if any); the agent gets held.sent and is woken. */
/** A held send was braked and counted when it was held: posting it is not braked or counted again. */
const HELD = { brakes: false } as const;

export function sendHeld(hub: FeaturesHub, heldId: string, text?: string): HeldSendResult {
  return hub.write(() => {
    const r = requireHeld(hub, heldId);
    const input = JSON.parse(r.input) as Record<string, unknown>;
    const call = callOf(r.kind);
    const field = r.kind === 'file' ? 'caption' : (call?.field ?? 'text');
    const original = textOf(r.kind, input);
    const finalText = requireText(text ?? original, field);
    if (r.kind !== 'file' && !finalText.trim())
      throw new HubError('invalid_argument', `${field} is empty.`, 'Give the text to send, or discard the item.');
    const edited = finalText !== original;
    // A person approving a held message takes part: the loop and duplicate counts start again (hub/control/brakes.ts).
    if (r.conv_id) personActed(hub, r.conv_id);
    let sent: { msg_id?: string; seq?: number; conv_id: string; result?: Record<string, unknown> };
    if (call) {
      // Another write than a send (hub/features/review/review-calls.ts): the real call, as the agent, with the approved words.
      sent = call.run(hub, r.agent_id, { ...input, [field]: finalText });
    } else if (r.kind === 'message') {
      sent = { ...sendMessage(hub, r.agent_id, { ...(input as unknown as SendInput), text: finalText }, HELD), conv_id: r.conv_id! };
    } else if (r.kind === 'card') {
      sent = { ...sendCard(hub, r.agent_id, { ...(input as unknown as SendCardInput), text: finalText }, HELD), conv_id: r.conv_id! };
    } else {
      const f = input as unknown as HeldFileInput;
      const bytes = heldBytes(hub.db, r.id);
      if (!bytes?.data)
        throw new HubError('conflict', `The bytes of held file ${heldId} are gone.`, 'Discard it; the agent can send the file again.');
      const p: PreparedFile = {
        name: f.name,
        mime: f.mime,
        data: bytes.data,
        sha256: f.sha256,
        image:
          f.image && bytes.thumb
            ? { width: f.image.width, height: f.image.height, thumb: bytes.thumb, thumbMime: f.image.thumbMime }
            : null,
      };
      sent = {
        ...storeFile(hub, r.agent_id, { conv_id: f.conv_id, caption: finalText, ...(f.reply_to ? { reply_to: f.reply_to } : {}) }, p, HELD),
        conv_id: f.conv_id,
      };
    }
    // The posted (or edited) message carries provenance.reviewed; an edit had taken it away (store/tables/talk/messages.ts).
    if (sent.msg_id) markReviewed(hub.db, sent.msg_id, edited);
    const at = hub.now();
    closeHeld(hub.db, r.id, 'sent', at, sent.msg_id ?? null, finalText);
    const inbox = hub.user(r.agent_id).inbox_id;
    const posted = {
      conv_id: sent.conv_id,
      ...(sent.msg_id ? { msg_id: sent.msg_id } : {}),
      ...(sent.seq !== undefined ? { seq: sent.seq } : {}),
    };
    const data = {
      held_id: r.id,
      kind: r.kind,
      ...posted,
      text: finalText,
      owner_edited: edited,
      ...(edited ? { original_text: original } : {}),
      ...(call ? { result: sent.result } : {}),
    };
    if (inbox) hub.emit(inbox, 'held.sent', hub.ownerId, { data, wake: [r.agent_id] });
    return { held_id: r.id, state: 'sent', ...posted, text: finalText, owner_edited: edited };
  });
}

/** Drops a held item (and a held file's bytes); the agent gets held.discarded and is woken. */
export function discardHeld(hub: FeaturesHub, heldId: string): { held_id: string; state: 'discarded' } {
  return hub.write(() => {
    const r = requireHeld(hub, heldId);
    const input = JSON.parse(r.input) as Record<string, unknown>;
    closeHeld(hub.db, r.id, 'discarded', hub.now(), null, null);
    const inbox = hub.user(r.agent_id).inbox_id;
    if (inbox)
      hub.emit(inbox, 'held.discarded', hub.ownerId, {
        data: { held_id: r.id, kind: r.kind, conv_id: r.conv_id, text: textOf(r.kind, input) },
        wake: [r.agent_id],
      });
    return { held_id: r.id, state: 'discarded' };
  });
}
