// Requests to a person (request_human) as their requester and the owner see them. Pure.
import type { RequestKind, RequestState, UserRef } from './types';

export type Decision = 'approve' | 'reject' | 'answer' | 'choose';

export interface RequestOutcome {
  decision: Decision;
  answer?: string;
  choice?: string;
  comment?: string;
}

/** A request as its requester (get_request) and the owner (listRequests) see it. */
export interface RequestView {
  request_id: string;
  conv_id: string;
  msg_id: string;
  kind: RequestKind;
  title: string;
  options?: string[];
  requester: UserRef;
  assignees: UserRef[];
  state: RequestState;
  outcome: RequestOutcome | null;
  created_at: number;
  expires_at: number;
  decided_at?: number;
  decided_by?: UserRef;
}

/** What the owner's Approvals inbox shows: the view plus the conversation and the context. */
export interface OwnerRequestView extends RequestView {
  conv_title: string;
  context?: unknown;
}

/**
 * What the payload of a message of kind 'request' stores: only what never changes. The request's state
 * has one home, the request (RequestView); readers get it added (RequestPayload) or from request.* events.
 */
export interface RequestMessagePayload {
  request_id: string;
  kind: RequestKind;
  title: string;
  options: string[] | null;
  context: unknown;
  assignees: UserRef[];
  expires_at: number;
}

/** payload of a message of kind 'request' as read: the stored part plus the request's current state, added at read time. */
export interface RequestPayload extends RequestMessagePayload {
  state: RequestState;
  outcome?: RequestOutcome;
  decided_by?: UserRef;
  decided_at?: number;
}
