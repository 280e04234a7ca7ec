// The Approvals inbox: every request waiting for the owner across conversations, soonest to expire first,
// then what was decided lately. One item has the keyboard's focus at a time: j / k move, a approves (or sends
// the answer), r rejects, 1–9 choose; on a held item s / e / x. Decisions wait out an undo window (sync/undo.ts).
import { useEffect, useMemo, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { requestsStore, sortRequests, useRequests } from '../../stores/requests';
import { useConversations } from '../../stores/conversations';
import { useSession } from '../../stores/session';
import { useHeld } from '../../stores/held';
import { heldStore } from '../../stores/held';
import { useUi } from '../../stores/ui';
import { decideWithDraft, discardHeld, openView, selectHeld, selectRequest, sendHeld, setHeldDraft, undoLastDecision } from '../../sync';
import { typingInField } from '../../hooks';
import { RequestCard } from '../conversation/RequestCard';
import { HeldItems } from './HeldItems';
import { NotificationsControl, PairedDeviceHandoffs } from '../device/PairedDevice';
import { DesktopNotifyControl } from './DesktopNotify';
import { ItemBoundary } from '../common';
import { usePairedDevice } from '../../stores/paired-device';

export function ApprovalsInbox() {
  const all = useRequests(useShallow((s) => Object.values(s.byId)));
  const loaded = useRequests((s) => s.loaded);
  const selectedRequest = useRequests((s) => s.selected);
  const selectedHeld = useHeld((s) => s.selected);
  const deciding = useUi(useShallow((s) => s.pendingDecisions.map((d) => d.key)));
  const sorted = useMemo(() => sortRequests(all), [all]);
  // A request decided in the undo window has left the inbox (it comes back on Undo).
  const pending = sorted.filter((r) => r.state === 'pending' && !deciding.includes(r.request_id));
  const decided = sorted.filter((r) => r.state !== 'pending').slice(0, 100);
  const heldIds = useHeld(useShallow((s) => s.items.map((i) => i.held_id))).filter((id) => !deciding.includes(id));
  const heldCount = heldIds.length; // review mode (HeldItems.tsx)
  const phoneHandoffs = usePairedDevice((s) => (s.me?.scope === 'approvals' ? s.handoffs.length : 0)); // an approvals-only phone lists handoffs itself
  const handedCount = useHandedToYou().length + phoneHandoffs;
  // One focus across the inbox, in the order shown: held items first, then the requests.
  const order = [...heldIds.map((id) => `h:${id}`), ...pending.map((r) => `r:${r.request_id}`)].join(' ');
  const focused = selectedHeld ? `h:${selectedHeld}` : selectedRequest ? `r:${selectedRequest}` : null;

  // Keep one item focused; after a decision, the next one at the same place.
  const lastIndex = useRef(0);
  useEffect(() => {
    const ids = order ? order.split(' ') : [];
    if (focused && ids.includes(focused)) {
      lastIndex.current = ids.indexOf(focused);
      return;
    }
    focusItem(ids[Math.min(lastIndex.current, ids.length - 1)] ?? null);
  }, [order, focused]);

  // The keyboard: j/k (n/p) next/previous item; on a request a approve, r reject, 1-9 choose, c comment;
  // on a held item s send, e edit, x discard; u undoes the last decision while its window is open.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typingInField(e.target)) return;
      const ids = order ? order.split(' ') : [];
      const held = heldStore.getState().selected;
      const cur = held ? `h:${held}` : requestsStore.getState().selected ? `r:${requestsStore.getState().selected}` : null;
      const i = cur ? ids.indexOf(cur) : -1;
      const reqId = cur?.startsWith('r:') ? cur.slice(2) : null;
      const r = reqId ? requestsStore.getState().byId[reqId] : undefined;
      const focusIn = (sel: string) => document.querySelector<HTMLElement>(`[data-request-id="${reqId}"] ${sel}`)?.focus();
      switch (e.key) {
        case 'j':
        case 'n':
        case 'ArrowDown':
          if (ids.length) focusItem(ids[Math.min(ids.length - 1, i + 1)]!);
          break;
        case 'k':
        case 'p':
        case 'ArrowUp':
          if (ids.length) focusItem(ids[Math.max(0, i - 1)]!);
          break;
        case 'u':
          if (!undoLastDecision()) return;
          break;
        case 'a':
          if (!r) return;
          if (r.kind === 'approve') decideWithDraft(r.request_id, 'approve');
          else if (r.kind === 'answer') {
            if (requestsStore.getState().drafts[r.request_id]?.answer?.trim()) decideWithDraft(r.request_id, 'answer');
            else focusIn('.request-answer');
          } else return;
          break;
        case 'r':
          if (!r) return;
          decideWithDraft(r.request_id, 'reject');
          break;
        case 'c':
          if (!r) return;
          focusIn('.request-comment');
          break;
        case 's':
          if (!held) return;
          sendHeld(held);
          break;
        case 'e': {
          if (!held) return;
          const item = heldStore.getState().items.find((h) => h.held_id === held);
          if (item && heldStore.getState().drafts[held] === undefined) setHeldDraft(held, item.text);
          setTimeout(() => document.querySelector<HTMLTextAreaElement>(`[data-held-id="${held}"] .held-edit`)?.focus(), 0);
          break;
        }
        case 'x':
          if (!held) return;
          discardHeld(held);
          break;
        default:
          if (r?.kind === 'choose' && /^[1-9]$/.test(e.key)) {
            const choice = r.options?.[Number(e.key) - 1];
            if (choice) decideWithDraft(r.request_id, 'choose', choice);
            break;
          }
          return;
      }
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [order]);

  useEffect(() => {
    if (selectedRequest) document.querySelector(`[data-request-id="${selectedRequest}"]`)?.scrollIntoView({ block: 'nearest' });
    else if (selectedHeld) document.querySelector(`[data-held-id="${selectedHeld}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [selectedRequest, selectedHeld]);

  const summary = [
    pending.length ? `${pending.length} decision${pending.length === 1 ? '' : 's'} waiting for you.` : '',
    heldCount ? `${heldCount} item${heldCount === 1 ? '' : 's'} held for your review.` : '',
    handedCount ? `${handedCount} conversation${handedCount === 1 ? '' : 's'} handed to you.` : '',
  ].filter(Boolean);
  return (
    <div className="page approvals">
      <header className="page-head">
        <h1>Approvals</h1>
        <p className="muted">{summary.length ? summary.join(' ') : 'Nothing is waiting for you.'}</p>
        <p className="shortcuts" aria-label="Keyboard shortcuts">
          <kbd>j</kbd>/<kbd>k</kbd> next / previous · <kbd>a</kbd> approve (or send the answer) · <kbd>r</kbd> reject · <kbd>1</kbd>–
          <kbd>9</kbd> choose · <kbd>c</kbd> comment · <kbd>u</kbd> undo
        </p>
        <NotificationsControl /> {/* a paired phone: Web Push (PairedDevice.tsx) */}
        <DesktopNotifyControl where="inbox" /> {/* a browser on the laptop: desktop notifications (sync/waiting.ts) */}
      </header>
      <HandedToYou />
      <HeldItems hidden={deciding} /> {/* review mode: what agents under review want to send */}
      {!loaded && <p className="muted">Loading…</p>}
      <section aria-label="Pending requests" className="request-list">
        {pending.map((r) => (
          <ItemBoundary key={r.request_id} what="request" raw={r.title}>
            <RequestCard
              requestId={r.request_id}
              inInbox
              selected={r.request_id === selectedRequest}
              onSelect={() => selectRequest(r.request_id)}
            />
          </ItemBoundary>
        ))}
      </section>
      {decided.length > 0 && (
        <section aria-label="Decided requests" className="request-list decided">
          <h2>Recently decided</h2>
          {decided.map((r) => (
            <ItemBoundary key={r.request_id} what="request" raw={r.title}>
              <RequestCard requestId={r.request_id} inInbox compact />
            </ItemBoundary>
          ))}
        </section>
      )}
    </div>
  );
}

/** Focuses one inbox item ("h:<held_id>" or "r:<request_id>"); null: none. */
function focusItem(item: string | null): void {
  if (item?.startsWith('h:')) selectHeld(item.slice(2));
  else if (item?.startsWith('r:')) selectRequest(item.slice(2));
  else {
    selectRequest(null);
    selectHeld(null);
  }
}

/** Conversations agents handed to the owner: they wait for a hand-back. */
function HandedToYou() {
  const approvalsOnly = usePairedDevice((s) => s.me?.scope === 'approvals');
  return approvalsOnly ? <PairedDeviceHandoffs /> : <HandedToYouList />;
}

/** The conversations handed to the owner, each as "conv_id NUL title NUL agent NUL note". */
function useHandedToYou(): string[] {
  const ownerId = useSession((s) => s.info?.owner.id);
  return useConversations(
    useShallow((s) =>
      Object.values(s.byId).flatMap((c) =>
        (c.handoffs ?? [])
          .filter((h) => h.to.id === ownerId)
          .map((h) => `${c.conv_id}\u0000${c.title}\u0000${h.agent.name}\u0000${h.note}`),
      ),
    ),
  );
}

function HandedToYouList() {
  const list = useHandedToYou();
  if (list.length === 0) return null;
  return (
    <section className="handed-list" aria-label="Handed to you">
      <h2>Handed to you</h2>
      <ul>
        {list.map((s) => {
          const [convId, title, agent, note] = s.split('\u0000') as [string, string, string, string];
          return (
            <li key={s}>
              <button type="button" className="link" onClick={() => openView({ name: 'conversation', convId })}>
                {title}
              </button>
              {agent === title ? ':' : <> — {agent}:</>} <span className="muted">{note.slice(0, 140)}</span>
              {/* a direct conversation is named after its agent: "coder — coder:" said it twice */}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
