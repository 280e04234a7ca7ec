// Requests to a person (request_human) as their requester and the owner see them. Pure. The types live in
// shared/types.ts beside the event views that carry them (one direction of import, no circle).
export type { Decision, OwnerRequestView, RequestMessagePayload, RequestOutcome, RequestPayload, RequestView } from '../types';
