// Which state a request is in, and why it can no longer be cancelled or decided (each refusal says why in one line).
import { HubError } from '../../../../shared/errors';
import type { DecidedRequestState } from '../../../../shared/types';
import type { Decision } from '../../../../shared/features/requests';
import { requestById, type RequestRow } from '../../../store/tables/talk/requests';
import type { RequestsHub } from './request-expiry';

export const DECIDED_STATE: Record<Decision, DecidedRequestState> = {
  approve: 'approved',
  reject: 'rejected',
  answer: 'answered',
  choose: 'chosen',
};

export function requireRequest(hub: RequestsHub, requestId: string): RequestRow {
  const r = requestById(hub.db, requestId);
  if (!r) throw new HubError('not_found', `No request ${requestId}.`, 'Use a request_id returned by request_human.');
  return r;
}

/** The requester's own request (others get not_found: a request is between its requester and its deciders). */
export function requireOwnRequest(hub: RequestsHub, agentId: string, requestId: string): RequestRow {
  const r = requestById(hub.db, requestId);
  if (!r || r.requester_id !== agentId) {
    throw new HubError('not_found', `No request ${requestId} of yours.`, 'Use a request_id that request_human returned to you.');
  }
  return r;
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

export function requireStillPending(hub: RequestsHub, r: RequestRow, what: 'cancel' | 'decide'): void {
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
