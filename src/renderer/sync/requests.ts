// The Approvals inbox's requests: every write to the requests store. How a request's state is reconciled
// from what the hub sends (the requests.list rows, the decide answer, and live/history events carrying the
// request message) lives here and only here.
import type { EventView, RequestItem, RequestMessagePayload } from '../model';
import { conversationsStore } from '../stores/conversations';
import { requestsStore } from '../stores/requests';
import { heldStore } from '../stores/held';

/** The inbox rows of requests.list, merged over what is known. */
export function mergeRequestList(requests: RequestItem[]): void {
  const byId: Record<string, RequestItem> = {};
  for (const q of requests) byId[q.request_id] = q;
  requestsStore.setState((s) => ({ byId: { ...s.byId, ...byId }, loaded: true }));
}

/** The request as requests.decide answered it. */
export function mergeDecidedRequest(request: RequestItem): void {
  requestsStore.setState((s) => ({ byId: { ...s.byId, [request.request_id]: { ...s.byId[request.request_id], ...request } } }));
}

/**
 * A request's state comes from the request only: the view its request.* events (and its message.created)
 * carry. The message payload keeps only what never changes (its context is read from there). An older read
 * never moves a decided request back to pending.
 */
export function reconcileRequestFromEvent(ev: EventView): void {
  const view = ev.request;
  if (!view) return;
  const p = ev.message?.payload as unknown as RequestMessagePayload | undefined;
  requestsStore.setState((s) => {
    const old = s.byId[view.request_id];
    if (old && old.state !== 'pending' && view.state === 'pending') return s;
    const item: RequestItem = {
      ...old,
      ...view,
      conv_title: conversationsStore.getState().byId[view.conv_id]?.title ?? old?.conv_title ?? '',
    };
    const context = old?.context ?? p?.context;
    if (context !== undefined && context !== null) item.context = context;
    return { byId: { ...s.byId, [view.request_id]: item } };
  });
}

export function setRequestDraft(requestId: string, patch: { comment?: string; answer?: string }): void {
  requestsStore.setState((s) => ({ drafts: { ...s.drafts, [requestId]: { ...s.drafts[requestId], ...patch } } }));
}

export function clearRequestDraft(requestId: string): void {
  requestsStore.setState((s) => ({ drafts: { ...s.drafts, [requestId]: {} } }));
}

/** Focuses a request in the inbox (one focused item at a time: no held item stays selected beside it). */
export function selectRequest(requestId: string | null): void {
  requestsStore.setState({ selected: requestId });
  if (requestId) heldStore.setState({ selected: null });
}
