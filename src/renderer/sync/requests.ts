// The Approvals inbox's requests: every write to the requests store. How a request's state is reconciled
// from what the hub sends (the requests.list rows, the decide answer, and live/history events carrying the
// request message) lives here and only here.
import type { EventView, Message, RequestItem, RequestPayload } from '../model';
import { conversationsStore } from '../stores/conversations';
import { requestsStore } from '../stores/requests';

/** A request message as an inbox row (the payload's copy of the request). */
export function requestFromMessage(m: Message): RequestItem | null {
  const p = m.payload as unknown as RequestPayload | undefined;
  if (m.kind !== 'request' || !p || typeof p.request_id !== 'string') return null;
  const item: RequestItem = {
    request_id: p.request_id,
    conv_id: m.conv_id,
    msg_id: m.msg_id,
    kind: p.kind,
    title: p.title,
    requester: m.sender,
    assignees: p.assignees ?? [],
    state: p.state,
    outcome: p.outcome ?? null,
    created_at: m.created_at,
    expires_at: p.expires_at,
    conv_title: conversationsStore.getState().byId[m.conv_id]?.title ?? '',
  };
  if (p.options) item.options = p.options;
  if (p.context !== undefined && p.context !== null) item.context = p.context;
  if (p.decided_at) item.decided_at = p.decided_at;
  if (p.decided_by) item.decided_by = p.decided_by;
  return item;
}

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

const REQUEST_EVENTS = new Set(['message.created', 'request.created', 'request.decided', 'request.expired', 'request.cancelled']);

/**
 * Reconciles a request from an event that carries its message (live, or message.created in history):
 * the message payload's copy, overlaid with the event's state/outcome; a decided request never steps back to pending.
 */
export function reconcileRequestFromEvent(ev: EventView): void {
  if (!ev.message || ev.message.kind !== 'request') return;
  if (!REQUEST_EVENTS.has(ev.type)) return;
  const item = requestFromMessage(ev.message);
  if (!item) return;
  if (ev.type !== 'message.created' && ev.type !== 'request.created') {
    const data = ev.data as { state?: RequestItem['state']; outcome?: RequestItem['outcome'] } | undefined;
    if (data?.state) item.state = data.state;
    if (data?.outcome) item.outcome = data.outcome;
    if (ev.type === 'request.decided' && ev.actor) {
      item.decided_by ??= ev.actor;
      item.decided_at ??= ev.at;
    }
  }
  requestsStore.setState((s) => {
    const old = s.byId[item.request_id];
    if (old && old.state !== 'pending' && item.state === 'pending') return s; // never step back
    return { byId: { ...s.byId, [item.request_id]: { ...old, ...item, context: item.context ?? old?.context } } };
  });
}

export function setRequestDraft(requestId: string, patch: { comment?: string; answer?: string }): void {
  requestsStore.setState((s) => ({ drafts: { ...s.drafts, [requestId]: { ...s.drafts[requestId], ...patch } } }));
}

export function clearRequestDraft(requestId: string): void {
  requestsStore.setState((s) => ({ drafts: { ...s.drafts, [requestId]: {} } }));
}

export function selectRequest(requestId: string | null): void {
  requestsStore.setState({ selected: requestId });
}
