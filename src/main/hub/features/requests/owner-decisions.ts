// The owner's side of requests: decideRequest (the owner or another assigned person), getRequestForOwner and
// listRequests (the Approvals inbox).
import { HubError } from '../../../../shared/errors';
import { LIMITS } from '../../../../shared/limits';
import { matchVisible } from '../../../../shared/text/text';
import { REQUEST_STATES, type RequestKind, type RequestState } from '../../../../shared/types';
import { conversationById } from '../../../store/tables/talk/conversations';
import { finishRequest, listRequestRows, requestById, type RequestRow } from '../../../store/tables/talk/requests';
import type { Decision, RequestOutcome, OwnerRequestView } from '../../../../shared/features/requests';
import { requestView } from '../../core/views';
import { expireDueRequests, requesterWake, type RequestsHub } from './request-expiry';
import { DECIDED_STATE, requireRequest, requireStillPending } from './request-states';
import { outcomeToStore, refuseUnwaited } from './abandoned-prompts';
import type { DecidedOn } from '../../../../shared/ledger/harness-events';

export interface DecideInput {
  request_id: string;
  decision: Decision;
  /** kind answer: the answer text. */
  answer?: string;
  /** kind choose: one of the request's options. */
  choice?: string;
  comment?: string;
}

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
  const delivery = r.state === 'approved' || r.state === 'rejected' ? parseJson<{ delivery?: unknown }>(r.outcome)?.delivery : undefined;
  if (delivery === 'awaiting' || delivery === 'delivered' || delivery === 'undelivered') v.delivery = delivery;
  return v;
}

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
 * request.decided (data: request_id, state, outcome) waking the requester. `on`: where the owner decided (the laptop,
 * or a paired device), kept beside the outcome for the ledger (hub/features/ledger/decisions.ts).
 */
export function decideRequest(
  hub: RequestsHub,
  deciderId: string,
  input: DecideInput,
  on: DecidedOn = { via: 'laptop' },
): OwnerRequestView {
  expireDueRequests(hub);
  // A hook's prompt nobody waits for any more is withdrawn, not decided (abandoned-prompts.ts).
  const before = requestById(hub.db, input.request_id);
  if (before && hub.user(deciderId).kind === 'human') refuseUnwaited(hub, before);
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
    refuseUnwaited(hub, r);
    const outcome = validateDecision(r, input);
    const state = DECIDED_STATE[input.decision];
    const at = hub.now();
    // Where it was decided is kept beside the decision (the ledger's record of the call says it), not shown to the agent.
    const stored = outcomeToStore(hub, r, { ...outcome, decided_on: on });
    if (!finishRequest(hub.db, r.id, { state, outcome: stored, at, by: deciderId })) {
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
