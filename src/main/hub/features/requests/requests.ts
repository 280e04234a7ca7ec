// Asking a person to decide, the agent's side: request_human, get_request, cancel_request. The owner's side is
// owner-decisions.ts, expiry request-expiry.ts, a hook prompt whose asker is gone abandoned-prompts.ts.
import { performance } from 'node:perf_hooks';
import { newId } from '../../core/hub';
import { HubError } from '../../../../shared/errors';
import { LIMITS } from '../../../../shared/limits';
import type { RequestKind } from '../../../../shared/types';
import { conversationById } from '../../../store/tables/talk/conversations';
import { finishRequest, insertRequest, requestById, type RequestRow } from '../../../store/tables/talk/requests';
import { requireMember, wakeable } from '../../talk/access';
import { passGates } from '../../talk/gates';
import { requireTitle } from '../../talk/conversations';
import { insertMessageWithEvent } from '../../talk/messages';
import type { ToolHandlers } from '../../identity/tool-handler';
import type { ToolResult } from '../../../../shared/api/catalog';
import type { RequestOutcome, RequestMessagePayload } from '../../../../shared/features/requests';
import { requestView } from '../../core/views';
import { waitUnderKey, type Caller } from '../../identity/key-waits';
import { standingDecision } from './permission-rules';
import type { PromptDoor } from '../../identity/key-waits';
import { requireAssignees, requireContext, requireOptions, requireTtl } from './request-input';
import { ensureExpiry, expireDueRequests, type RequestsHub } from './request-expiry';
import { DECIDED_STATE, requireOwnRequest, requireRequest, requireStillPending } from './request-states';
import { HOOK_GONE, isHookPrompt, isRelayedPrompt, withdrawPrompt } from './abandoned-prompts';

export interface RequestInput {
  conv_id: string;
  kind: RequestKind;
  title: string;
  options?: string[];
  context?: unknown;
  assignees?: string[];
  ttl_secs?: number;
}

// ---- creating (the input's checks: request-input.ts) ------------------------------------------

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
 * request_human: the request becomes a message of kind 'request' plus a request.created event waking the assignees.
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
      requestId: id,
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

// ---- reading, waiting, cancelling ---------------------------------------------------------------

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
    // A hook door's prompt may be decided only while somebody waits for it (prompt-waits.ts): this call does.
    const release = r.door === 'hook' ? hub.services.promptWaits.hold(r.id, caller.signal) : undefined;
    try {
      while (r.state === 'pending') {
        const remaining = deadline - performance.now();
        if (remaining <= 0) break;
        // Never sleep past the expiry: the request must come back expired on time.
        const ms = Math.max(1, Math.min(remaining, r.expires_at - hub.now() + 1));
        const why = await waitUnderKey(hub, agentId, ms, caller); // ends at once when the key stops working (hub/identity/key-waits.ts)
        expireDueRequests(hub);
        r = requireRequest(hub, r.id);
        if (why === 'aborted') {
          // The caller went away while it waited: a hook's prompt has nobody left to tell the decision to (unless
          // another hook for the same prompt joined it and still waits: prompt-joins.ts).
          if (r.state === 'pending' && isHookPrompt(r) && !hub.services.promptWaits.isWaited(r.id)) r = withdrawPrompt(hub, r, HOOK_GONE);
          break;
        }
        // Woken for another reason (a message, a card response) while still pending: keep waiting.
      }
    } finally {
      release?.();
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
