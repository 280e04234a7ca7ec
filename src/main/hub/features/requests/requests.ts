// Asking a person to decide: request_human, get_request, cancel_request (agents) and
// decideRequest, listRequests (the owner). Requests expire on time through one timer per hub,
// and lazily on every read, so a late or missed timer never shows a wrong state.
import { performance } from 'node:perf_hooks';
import type { TalkServices } from '../../talk/services';
import { newId, type Hub } from '../../core/hub';
import { HubError } from '../../../../shared/errors';
import { LIMITS } from '../../../../shared/limits';
import { matchVisible } from '../../../../shared/text/text';
import { REQUEST_STATES, type DecidedRequestState, type RequestKind, type RequestState } from '../../../../shared/types';
import { conversationById } from '../../../store/tables/talk/conversations';
import {
  dueRequests,
  finishRequest,
  insertRequest,
  listRequestRows,
  nextRequestExpiry,
  pendingRequests,
  requestById,
  type RequestRow,
} from '../../../store/tables/talk/requests';
import { PERMISSION_PROMPT_SOURCE } from '../../../../shared/features/permission-prompts';
import { isTerminalTask, requireMember, wakeable } from '../../talk/access';
import { passGates } from '../../talk/gates';
import { requireTitle } from '../../talk/conversations';
import { insertMessageWithEvent } from '../../talk/messages';
import type { ToolHandlers } from '../../identity/tool-handler';
import type { ToolResult } from '../../../../shared/api/catalog';
import { deadlineTimer, type DeadlineTimer } from '../../core/deadlines';
import type { Decision, RequestOutcome, OwnerRequestView, RequestMessagePayload } from '../../../../shared/features/requests';
import { requestView } from '../../core/views';
import { waitUnderKey, type Caller } from '../../identity/key-waits';
import { standingDecision } from './permission-rules';
import type { PromptDoor } from '../../identity/key-waits';
import { requireAssignees, requireContext, requireOptions, requireTtl } from './request-input';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type RequestsHub = Hub<TalkServices & { requestExpiry: RequestExpiry }>;

export type { Decision } from '../../../../shared/features/requests';

export interface RequestInput {
  conv_id: string;
  kind: RequestKind;
  title: string;
  options?: string[];
  context?: unknown;
  assignees?: string[];
  ttl_secs?: number;
}

export interface DecideInput {
  request_id: string;
  decision: Decision;
  /** kind answer: the answer text. */
  answer?: string;
  /** kind choose: one of the request's options. */
  choice?: string;
  comment?: string;
}

export type { RequestOutcome, RequestView, OwnerRequestView } from '../../../../shared/features/requests';

const DECIDED_STATE: Record<Decision, DecidedRequestState> = {
  approve: 'approved',
  reject: 'rejected',
  answer: 'answered',
  choose: 'chosen',
};

const ALLOWED_DECISIONS: Record<RequestKind, readonly Decision[]> = {
  approve: ['approve', 'reject'],
  answer: ['answer', 'reject'],
  choose: ['choose', 'reject'],
};

// ---- views ------------------------------------------------------------------------------

function parseJson<T>(s: string | null): T | undefined {
  return s == null ? undefined : (JSON.parse(s) as T);
}

function ownerView(hub: RequestsHub, r: RequestRow, convTitle?: string): OwnerRequestView {
  const v: OwnerRequestView = { ...requestView(hub, r), conv_title: convTitle ?? conversationById(hub.db, r.conv_id)?.title ?? '' };
  const context = parseJson<unknown>(r.context);
  if (context !== undefined) v.context = context;
  if (r.door === 'hook' || r.door === 'channel') v.door = r.door;
  return v;
}

/** A decision is addressed to the requester; in an ended task nobody is woken (DESIGN invariant 3). */
function requesterWake(hub: RequestsHub, r: RequestRow): string[] {
  const conv = conversationById(hub.db, r.conv_id);
  return conv && isTerminalTask(conv) ? [] : [r.requester_id];
}

// ---- creating (the input's checks: request-input.ts) ------------------------------------------

/** request_human: the request becomes a message of kind 'request' plus a request.created event waking the assignees. */
/** request_human's checks, writing nothing (review mode holds a request after them, hub/features/review/review-calls.ts). */
export function checkRequest(hub: RequestsHub, requesterId: string, input: RequestInput) {
  const access = requireMember(hub, requesterId, input.conv_id);
  passGates('conversation', { hub, userId: requesterId, access }); // may-speak (hub/talk/gates.ts)
  return {
    access,
    title: requireTitle(input.title),
    options: requireOptions(input.kind, input.options),
    context: requireContext(input.context),
    assignees: requireAssignees(hub, input.conv_id, input.assignees),
    ttl: requireTtl(input.ttl_secs),
  };
}

/**
 * door: 'hook' or 'channel' when the hook door files a harness's permission prompt (mcp/hook-door.ts, through
 * request_human's handler with the caller's door); never from anything an agent sends. Only such a prompt can be
 * decided by a standing rule (hub/features/requests/permission-rules.ts).
 */
export function createRequest(hub: RequestsHub, requesterId: string, input: RequestInput, door?: PromptDoor) {
  const result = hub.write(() => {
    const { access, title, options, context, assignees, ttl } = checkRequest(hub, requesterId, input);
    const at = hub.now();
    const expiresAt = at + ttl * 1000;
    const id = newId('r');
    const sent = insertMessageWithEvent(hub, requesterId, access, {
      conv_id: input.conv_id,
      text: title,
      kind: 'request',
      // Only what never changes: the request's state lives in the request (views.ts adds it when read).
      payload: {
        request_id: id,
        kind: input.kind,
        title,
        options,
        context: context == null ? null : JSON.parse(context),
        assignees: assignees.map((u) => hub.ref(u)),
        expires_at: expiresAt,
      } satisfies RequestMessagePayload,
    });
    insertRequest(hub.db, {
      id,
      conv_id: input.conv_id,
      msg_id: sent.msg_id,
      requester_id: requesterId,
      kind: input.kind,
      title,
      options: options ? JSON.stringify(options) : null,
      context,
      assignees: JSON.stringify(assignees),
      created_at: at,
      expires_at: expiresAt,
      door: door ?? null,
    });
    // An agent's own permission prompt that a standing rule of the owner decides (hub/features/requests/permission-rules.ts):
    // recorded decided at once, by the owner; nobody is asked or notified (a push goes only for a pending request).
    const ruled = standingDecision(hub, requesterId, {
      conv: access.conv,
      door,
      kind: input.kind,
      title,
      context: context == null ? undefined : JSON.parse(context),
      assignees,
    });
    let outcome: RequestOutcome | undefined;
    if (ruled) {
      outcome = { decision: ruled.behavior === 'allow' ? 'approve' : 'reject', comment: ruled.comment };
      finishRequest(hub.db, id, { state: DECIDED_STATE[outcome.decision], outcome: JSON.stringify(outcome), at, by: hub.ownerId });
    }
    hub.emit(input.conv_id, 'request.created', requesterId, {
      msgId: sent.msg_id,
      data: { request_id: id, kind: input.kind, title, assignees: assignees.map((u) => hub.ref(u).name), expires_at: expiresAt },
      wake: ruled ? [] : wakeable(hub, access.conv, requesterId, assignees),
    });
    if (outcome) {
      hub.emit(input.conv_id, 'request.decided', hub.ownerId, {
        msgId: sent.msg_id,
        data: { request_id: id, state: DECIDED_STATE[outcome.decision], outcome },
        wake: [],
      });
      return {
        request_id: id,
        conv_id: input.conv_id,
        msg_id: sent.msg_id,
        state: DECIDED_STATE[outcome.decision],
        outcome,
        assignees: assignees.map((u) => hub.ref(u).name),
        expires_at: expiresAt,
        next_step: 'Decided at once by a standing rule of your owner; get_request returns the same.',
      };
    }
    return {
      request_id: id,
      conv_id: input.conv_id,
      msg_id: sent.msg_id,
      state: 'pending' as const,
      assignees: assignees.map((u) => hub.ref(u).name),
      expires_at: expiresAt,
      next_step: 'Call get_request with this request_id and wait_secs to wait for the decision.',
    };
  });
  ensureExpiry(hub);
  return result;
}

// ---- expiry ---------------------------------------------------------------------------------

/** The hub's request-expiry timer (deadlines.ts), made on the first request or by startRequestExpiry. */
export class RequestExpiry {
  private timer: DeadlineTimer | undefined = undefined;

  constructor(private readonly hub: RequestsHub) {}

  /** The timer, made on first use (it stops when the hub closes). */
  ensure(): DeadlineTimer {
    let t = this.timer;
    if (!t) {
      const hub = this.hub;
      const timer = deadlineTimer({ next: () => nextRequestExpiry(hub.db), fire: () => expireDueRequests(hub), now: () => hub.now() });
      this.timer = t = timer;
      hub.onClose(() => timer.close());
    }
    return t;
  }

  /** Requests changed: the timer (if any) re-reads the soonest expiry. */
  armSoon(): void {
    this.timer?.armSoon();
  }
}

/** Expires every pending request whose time is up (request.expired wakes its requester). Returns how many. */
export function expireDueRequests(hub: RequestsHub): number {
  const now = hub.now();
  // Outside a transaction, check cheaply first so reads do not take the write lock for nothing.
  if (!hub.db.inTransaction && dueRequests(hub.db, now).length === 0) return 0;
  const n = hub.write(() => {
    let count = 0;
    for (const r of dueRequests(hub.db, now)) {
      if (!finishRequest(hub.db, r.id, { state: 'expired', outcome: null, at: now, by: null })) continue;
      hub.emit(r.conv_id, 'request.expired', null, {
        msgId: r.msg_id,
        data: { request_id: r.id, state: 'expired', expires_at: r.expires_at },
        wake: requesterWake(hub, r),
      });
      count++;
    }
    return count;
  });
  if (n) hub.services.requestExpiry.armSoon();
  return n;
}

/** Makes sure the hub's expiry timer runs (started on the first request if the door did not start it). */
function ensureExpiry(hub: RequestsHub): DeadlineTimer {
  const t = hub.services.requestExpiry.ensure();
  t.armSoon();
  return t;
}

/**
 * Starts expiring requests on time: expires what is already overdue (e.g. across a restart),
 * then keeps one timer for the next expiry. Idempotent; stopped by hub.close().
 */
export function startRequestExpiry(hub: RequestsHub): void {
  ensureExpiry(hub);
  expireDueRequests(hub);
}

// ---- reading, waiting, cancelling ---------------------------------------------------------------

function requireRequest(hub: RequestsHub, requestId: string): RequestRow {
  const r = requestById(hub.db, requestId);
  if (!r) throw new HubError('not_found', `No request ${requestId}.`, 'Use a request_id returned by request_human.');
  return r;
}

/** The requester's own request (others get not_found: a request is between its requester and its deciders). */
function requireOwnRequest(hub: RequestsHub, agentId: string, requestId: string): RequestRow {
  const r = requestById(hub.db, requestId);
  if (!r || r.requester_id !== agentId) {
    throw new HubError('not_found', `No request ${requestId} of yours.`, 'Use a request_id that request_human returned to you.');
  }
  return r;
}

/** A request as its requester reads it (get_request, cancel_request). */
function agentResult(hub: RequestsHub, r: RequestRow): ToolResult<'get_request'> {
  const v = requestView(hub, r);
  const out: ToolResult<'get_request'> = {
    request_id: v.request_id,
    conv_id: v.conv_id,
    msg_id: v.msg_id,
    kind: v.kind,
    title: v.title,
    state: v.state,
    outcome: v.outcome,
    assignees: v.assignees.map((a) => a.name),
    created_at: v.created_at,
    expires_at: v.expires_at,
  };
  if (v.options) out.options = v.options;
  if (v.decided_at != null) out.decided_at = v.decided_at;
  if (v.decided_by) out.decided_by = v.decided_by.name;
  if (v.state === 'pending') out.next_step = 'Still pending: call get_request again with wait_secs, or cancel_request to withdraw it.';
  return out;
}

/** get_request: state and outcome; with wait_secs, waits (no polling) until decided, expired, cancelled or the wait ends. */
export async function getRequest(
  hub: RequestsHub,
  agentId: string,
  input: { request_id: string; wait_secs?: number },
  caller: Caller = {},
) {
  expireDueRequests(hub);
  let r = requireOwnRequest(hub, agentId, input.request_id);
  const waitMs = Math.min(Math.max(input.wait_secs ?? 0, 0), LIMITS.waitAnswerSecs) * 1000;
  if (r.state === 'pending' && waitMs > 0) {
    if (hub.bus.waitsOf(agentId) >= LIMITS.maxWaitsPerAgent) {
      throw new HubError('rate_limited', `You already have ${LIMITS.maxWaitsPerAgent} waiting calls.`, 'Wait with one call at a time.');
    }
    const deadline = performance.now() + waitMs;
    while (r.state === 'pending') {
      const remaining = deadline - performance.now();
      if (remaining <= 0) break;
      // Never sleep past the expiry: the request must come back expired on time.
      const ms = Math.max(1, Math.min(remaining, r.expires_at - hub.now() + 1));
      const why = await waitUnderKey(hub, agentId, ms, caller); // ends at once when the key stops working (hub/identity/key-waits.ts)
      expireDueRequests(hub);
      r = requireRequest(hub, r.id);
      if (why === 'aborted') {
        // The caller went away while it waited: a hook's prompt has nobody left to tell the decision to.
        if (r.state === 'pending' && isHookPrompt(r)) r = withdrawPrompt(hub, r, HOOK_GONE);
        break;
      }
      // Woken for another reason (a message, a card response) while still pending: keep waiting.
    }
  }
  return agentResult(hub, r);
}

/** cancel_request: only the requester, only while pending. */
export function cancelRequest(hub: RequestsHub, agentId: string, requestId: string) {
  expireDueRequests(hub);
  return hub.write(() => {
    const r = requireOwnRequest(hub, agentId, requestId);
    requireStillPending(hub, r, 'cancel');
    const at = hub.now();
    // A prompt relayed by `perch channel` is closed by it when Claude Code's own dialog dealt with it (the next
    // prompt came, or the session ended): the card says it was answered in the terminal, not withdrawn.
    const outcome = isRelayedPrompt(r) ? JSON.stringify({ answered_in: 'terminal' }) : null;
    if (!finishRequest(hub.db, r.id, { state: 'cancelled', outcome, at, by: agentId })) {
      throw new HubError('conflict', `Request ${r.id} is no longer pending.`, 'Read it with get_request.');
    }
    const conv = conversationById(hub.db, r.conv_id)!;
    hub.emit(r.conv_id, 'request.cancelled', agentId, {
      msgId: r.msg_id,
      data: { request_id: r.id, state: 'cancelled' },
      wake: wakeable(hub, conv, agentId, JSON.parse(r.assignees) as string[]),
    });
    hub.services.requestExpiry.armSoon();
    return agentResult(hub, requestById(hub.db, r.id)!);
  });
}

// ---- prompts whose asker is gone -----------------------------------------------------------------
// The harness hook door files the harness's prompt and waits for it in get_request under the caller's connection
// (POST /hook/<harness>/permission-request: src/main/mcp/hook-door.ts, what `perch hook permission-request` posts to);
// when that wait goes away (the hook was killed, the hub stopped) the harness has already shown its own dialog and
// will never read a decision. Such a prompt is withdrawn (cancelled, saying why) as soon as its waiting call's
// connection closes, and at start for every one filed before it: approving it afterwards is refused.
// A prompt relayed by `perch channel` (context.via "channel") is not: the channel outlives hub restarts.

const HOOK_GONE = 'the harness stopped waiting (its hook went away); its own dialog decides';
const HUB_RESTARTED = 'the harness stopped waiting (the hub restarted while it waited); its own dialog decides';

/** An agent's own permission prompt: how it came (a hook, or relayed by `perch channel`), or undefined if it is none. */
function promptVia(r: Pick<RequestRow, 'context'>): 'hook' | 'channel' | undefined {
  if (!r.context) return undefined;
  let ctx: unknown;
  try {
    ctx = JSON.parse(r.context);
  } catch {
    return undefined;
  }
  const c = ctx as { source?: unknown; via?: unknown } | null;
  if (!c || typeof c !== 'object' || c.source !== PERMISSION_PROMPT_SOURCE) return undefined;
  return c.via === 'channel' ? 'channel' : 'hook';
}

/** Whether a request is an agent's own permission prompt filed by its hook (not relayed by the channel). */
export function isHookPrompt(r: Pick<RequestRow, 'context'>): boolean {
  return promptVia(r) === 'hook';
}

/** Whether a request is an agent's own permission prompt relayed by `perch channel`. */
function isRelayedPrompt(r: Pick<RequestRow, 'context'>): boolean {
  return promptVia(r) === 'channel';
}

/** Withdraws a pending request nobody waits for: cancelled, by its requester, with why (the card shows it). */
function withdrawPrompt(hub: RequestsHub, r: RequestRow, why: string): RequestRow {
  try {
    hub.write(() => {
      if (
        !finishRequest(hub.db, r.id, { state: 'cancelled', outcome: JSON.stringify({ withdrawn: why }), at: hub.now(), by: r.requester_id })
      )
        return;
      hub.emit(r.conv_id, 'request.cancelled', r.requester_id, {
        msgId: r.msg_id,
        data: { request_id: r.id, state: 'cancelled' },
        wake: [],
      });
    });
    hub.services.requestExpiry.armSoon();
  } catch {
    // the disk is full or the hub is closing: the prompt expires on time instead
  }
  return requestById(hub.db, r.id) ?? r;
}

/** At start: every hook prompt still pending was filed before this hub, and its hook's wait ended with the last one. */
export function withdrawOrphanedPrompts(hub: RequestsHub): number {
  let n = 0;
  for (const r of pendingRequests(hub.db)) {
    if (isHookPrompt(r) && withdrawPrompt(hub, r, HUB_RESTARTED).state === 'cancelled') n++;
  }
  return n;
}

function answeredInTerminal(r: RequestRow): boolean {
  try {
    return (JSON.parse(r.outcome ?? 'null') as { answered_in?: unknown } | null)?.answered_in === 'terminal';
  } catch {
    return false;
  }
}

function withdrawnReason(r: RequestRow): string | undefined {
  try {
    const o = JSON.parse(r.outcome ?? 'null') as { withdrawn?: unknown } | null;
    return typeof o?.withdrawn === 'string' ? o.withdrawn : undefined;
  } catch {
    return undefined;
  }
}

function requireStillPending(hub: RequestsHub, r: RequestRow, what: 'cancel' | 'decide'): void {
  if (r.state === 'pending' && r.expires_at > hub.now()) return;
  if (r.state === 'pending' || r.state === 'expired') {
    throw new HubError(
      'expired',
      `Request ${r.id} expired at ${new Date(r.expires_at).toISOString()}; it can no longer be ${what === 'cancel' ? 'cancelled' : 'decided'}.`,
      what === 'cancel' ? 'Nothing to cancel.' : 'The requester has been told it expired; it may ask again.',
    );
  }
  const withdrawn = r.state === 'cancelled' ? withdrawnReason(r) : undefined;
  if (r.state === 'cancelled' && answeredInTerminal(r)) {
    throw new HubError(
      'conflict',
      `Request ${r.id} was answered in the terminal (Claude Code's own dialog).`,
      what === 'cancel' ? 'Nothing to cancel.' : 'Nothing to decide: the prompt was answered there.',
    );
  }
  if (withdrawn)
    throw new HubError(
      'conflict',
      `Request ${r.id} was withdrawn: ${withdrawn}.`,
      what === 'cancel' ? 'Nothing to cancel.' : 'Nothing to decide: nobody waits for this decision any more.',
    );
  if (r.state === 'cancelled') {
    throw new HubError(
      'conflict',
      `Request ${r.id} was cancelled by its requester.`,
      what === 'cancel' ? 'Nothing to cancel.' : 'Nothing to decide.',
    );
  }
  const by = r.decided_by ? ` by ${hub.ref(r.decided_by).name}` : '';
  throw new HubError(
    'conflict',
    `Request ${r.id} was already decided${by}: ${r.state}.`,
    what === 'cancel' ? 'It can no longer be cancelled; read the outcome with get_request.' : 'A request is decided once.',
    { state: r.state },
  );
}

// ---- the owner's side ---------------------------------------------------------------------------

function validateDecision(r: RequestRow, input: DecideInput): RequestOutcome {
  const allowed = ALLOWED_DECISIONS[r.kind];
  if (!allowed.includes(input.decision)) {
    throw new HubError(
      'invalid_argument',
      `decision: a request of kind ${r.kind} takes ${allowed.join(' or ')}, not ${JSON.stringify(input.decision)}.`,
      `Decide with ${allowed.join(' or ')}.`,
    );
  }
  const outcome: RequestOutcome = { decision: input.decision };
  if (input.comment !== undefined && input.comment !== null) {
    if (typeof input.comment !== 'string')
      throw new HubError('invalid_argument', 'comment: must be text.', 'Send the comment as a string.');
    if (input.comment.length > LIMITS.maxTextChars)
      throw new HubError('too_large', `comment is over ${LIMITS.maxTextChars} characters.`, 'Shorten the comment.');
    if (input.comment.trim()) outcome.comment = input.comment;
  }
  const given = (v: unknown) => v !== undefined && v !== null;
  if (input.decision === 'answer') {
    if (typeof input.answer !== 'string' || !input.answer.trim()) {
      throw new HubError(
        'invalid_argument',
        'answer: the answer text is required to answer this request.',
        'Type an answer, or reject the request.',
      );
    }
    if (input.answer.length > LIMITS.maxTextChars)
      throw new HubError('too_large', `answer is over ${LIMITS.maxTextChars} characters.`, 'Shorten the answer.');
    outcome.answer = input.answer;
  } else if (given(input.answer)) {
    throw new HubError(
      'invalid_argument',
      `answer: only decision=answer takes an answer (this is decision=${input.decision}).`,
      'Leave answer out.',
    );
  }
  if (input.decision === 'choose') {
    const options = JSON.parse(r.options ?? '[]') as string[];
    // The owner was shown the options through visibleText: the option as stored is the choice.
    const choice = typeof input.choice === 'string' ? matchVisible(options, input.choice) : undefined;
    if (choice === undefined) {
      throw new HubError(
        'invalid_argument',
        `choice: must be one of ${options.map((o) => JSON.stringify(o)).join(', ')}.`,
        "Choose one of the request's options, or reject it.",
      );
    }
    outcome.choice = choice;
  } else if (given(input.choice)) {
    throw new HubError(
      'invalid_argument',
      `choice: only decision=choose takes a choice (this is decision=${input.decision}).`,
      'Leave choice out.',
    );
  }
  return outcome;
}

/**
 * The owner (or another assigned person) decides a request. Agents never may. Deciding twice is
 * a conflict; deciding after expiry is refused with code expired. The decision is the event
 * request.decided (data: request_id, state, outcome) waking the requester.
 */
export function decideRequest(hub: RequestsHub, deciderId: string, input: DecideInput): OwnerRequestView {
  expireDueRequests(hub);
  const view = hub.write(() => {
    const decider = hub.user(deciderId);
    if (decider.kind !== 'human') {
      throw new HubError(
        'forbidden',
        'An agent can never decide a request; only the people it asks can.',
        'Ask the owner to decide it in Perch.',
      );
    }
    const r = requireRequest(hub, input.request_id);
    const assignees = JSON.parse(r.assignees) as string[];
    if (!assignees.includes(deciderId) && deciderId !== hub.ownerId) {
      throw new HubError(
        'forbidden',
        `${decider.name} is not asked to decide request ${r.id}.`,
        `It is for ${assignees.map((a) => hub.ref(a).name).join(', ')}.`,
      );
    }
    requireStillPending(hub, r, 'decide');
    const outcome = validateDecision(r, input);
    const state = DECIDED_STATE[input.decision];
    const at = hub.now();
    if (!finishRequest(hub.db, r.id, { state, outcome: JSON.stringify(outcome), at, by: deciderId })) {
      throw new HubError('conflict', `Request ${r.id} is no longer pending.`, 'Reload it: somebody decided it first.');
    }
    hub.emit(r.conv_id, 'request.decided', deciderId, {
      msgId: r.msg_id,
      data: { request_id: r.id, state, outcome },
      wake: requesterWake(hub, r),
    });
    return ownerView(hub, requestById(hub.db, r.id)!);
  });
  hub.services.requestExpiry.armSoon();
  return view;
}

/** One request as the owner sees it (with its context). */
export function getRequestForOwner(hub: RequestsHub, requestId: string): OwnerRequestView {
  expireDueRequests(hub);
  return ownerView(hub, requireRequest(hub, requestId));
}

/** The owner's Approvals inbox: pending first (soonest to expire first), with conversation title, requester and expiry. */
export function listRequests(hub: RequestsHub, opts: { state?: RequestState; limit?: number } = {}): OwnerRequestView[] {
  if (opts.state !== undefined && !REQUEST_STATES.includes(opts.state)) {
    throw new HubError('invalid_argument', `state: must be one of ${REQUEST_STATES.join(', ')}.`, 'Leave state out to list all requests.');
  }
  expireDueRequests(hub);
  const limit = Math.max(1, Math.min(opts.limit ?? 200, 1000));
  return listRequestRows(hub.db, { state: opts.state, limit }).map((row) => ownerView(hub, row, row.conv_title));
}

// ---- agent tools ------------------------------------------------------------------------------

export const requestTools = {
  request_human: {
    // ctx.door: set only by the hook door filing a harness's prompt (mcp/hook-door.ts), never by the MCP door.
    run: ({ hub, agentId, door }, a) =>
      createRequest(
        hub,
        agentId,
        {
          conv_id: a.conv_id,
          kind: a.kind,
          title: a.title,
          options: a.options,
          context: a.context,
          assignees: a.assignees,
          ttl_secs: a.ttl_secs,
        },
        door,
      ),
  },
  get_request: {
    run: (ctx, a) => getRequest(ctx.hub, ctx.agentId, a, ctx),
  },
  cancel_request: {
    run: ({ hub, agentId }, a) => cancelRequest(hub, agentId, a.request_id),
  },
} satisfies ToolHandlers<'request_human' | 'get_request' | 'cancel_request', RequestsHub>;
