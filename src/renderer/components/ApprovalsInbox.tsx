// The Approvals inbox: every request waiting for the owner across conversations, soonest to expire first,
// then what was decided lately. Keyboard: j / k move, a approves (or sends the answer), r rejects, 1–9 choose.
import { useEffect, useMemo, useRef } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { requestsStore, sortRequests, useRequests } from '../stores/requests';
import { useConversations } from '../stores/conversations';
import { useSession } from '../stores/session';
import { useHeld } from '../stores/held';
import { decideWithDraft, openView, selectRequest } from '../sync';
import { typingInField } from '../hooks';
import { RequestCard } from './RequestCard';
import { HeldItems } from './HeldItems';
import { NotificationsControl, PhoneHandoffs } from './Phone';
import { ItemBoundary } from './common';
import { useDevice } from '../stores/device';

export function ApprovalsInbox() {
  const all = useRequests(useShallow((s) => Object.values(s.byId)));
  const loaded = useRequests((s) => s.loaded);
  const selected = useRequests((s) => s.selected);
  const sorted = useMemo(() => sortRequests(all), [all]);
  const pending = sorted.filter((r) => r.state === 'pending');
  const decided = sorted.filter((r) => r.state !== 'pending').slice(0, 100);
  const pendingIds = pending.map((r) => r.request_id).join(' ');
  const heldCount = useHeld((s) => s.items.length); // review mode (HeldItems.tsx)
  const phoneHandoffs = useDevice((s) => (s.me?.scope === 'approvals' ? s.handoffs.length : 0)); // an approvals-only phone lists handoffs itself

  // Keep a pending request selected; after a decision, the next one at the same place.
  const lastIndex = useRef(0);
  useEffect(() => {
    const ids = pendingIds ? pendingIds.split(' ') : [];
    if (selected && ids.includes(selected)) {
      lastIndex.current = ids.indexOf(selected);
      return;
    }
    selectRequest(ids[Math.min(lastIndex.current, ids.length - 1)] ?? null);
  }, [pendingIds, selected]);

  // The keyboard: j/k next/previous, a approve, r reject, 1-9 choose, c comment.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typingInField(e.target)) return;
      const ids = pendingIds ? pendingIds.split(' ') : [];
      const cur = requestsStore.getState().selected;
      const i = cur ? ids.indexOf(cur) : -1;
      const r = cur ? requestsStore.getState().byId[cur] : undefined;
      const focusIn = (sel: string) => document.querySelector<HTMLElement>(`[data-request-id="${cur}"] ${sel}`)?.focus();
      switch (e.key) {
        case 'j':
        case 'ArrowDown':
          if (ids.length) selectRequest(ids[Math.min(ids.length - 1, i + 1)]!);
          break;
        case 'k':
        case 'ArrowUp':
          if (ids.length) selectRequest(ids[Math.max(0, i - 1)]!);
          break;
        case 'a':
          if (!r) return;
          if (r.kind === 'approve') void decideWithDraft(r.request_id, 'approve');
          else if (r.kind === 'answer') {
            if (requestsStore.getState().drafts[r.request_id]?.answer?.trim()) void decideWithDraft(r.request_id, 'answer');
            else focusIn('.request-answer');
          }
          break;
        case 'r':
          if (r) void decideWithDraft(r.request_id, 'reject');
          break;
        case 'c':
          if (r) focusIn('.request-comment');
          break;
        default:
          if (r?.kind === 'choose' && /^[1-9]$/.test(e.key)) {
            const choice = r.options?.[Number(e.key) - 1];
            if (choice) void decideWithDraft(r.request_id, 'choose', choice);
            break;
          }
          return;
      }
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [pendingIds]);

  useEffect(() => {
    if (selected) document.querySelector(`[data-request-id="${selected}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [selected]);

  return (
    <div className="page approvals">
      <header className="page-head">
        <h1>Approvals</h1>
        <p className="muted">
          {pending.length === 0 ? (heldCount === 0 && phoneHandoffs === 0 ? 'Nothing is waiting for you.' : '') : `${pending.length} decision${pending.length === 1 ? '' : 's'} waiting for you.`}
          {heldCount > 0 && `${pending.length ? ' ' : ''}${heldCount} send${heldCount === 1 ? '' : 's'} held for your review.`}
        </p>
        <p className="shortcuts" aria-label="Keyboard shortcuts">
          <kbd>j</kbd>/<kbd>k</kbd> next / previous · <kbd>a</kbd> approve (or send the answer) · <kbd>r</kbd> reject · <kbd>1</kbd>–<kbd>9</kbd> choose · <kbd>c</kbd> comment
        </p>
        <NotificationsControl /> {/* a paired phone: Web Push (Phone.tsx) */}
      </header>
      <HandedToYou />
      <HeldItems /> {/* review mode: what agents under review want to send */}
      {!loaded && <p className="muted">Loading…</p>}
      <section aria-label="Pending requests" className="request-list">
        {pending.map((r) => (
          <ItemBoundary key={r.request_id} what="request" raw={r.title}>
            <RequestCard requestId={r.request_id} inInbox selected={r.request_id === selected} onSelect={() => selectRequest(r.request_id)} />
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

/** Conversations agents handed to the owner: they wait for a hand-back. */
function HandedToYou() {
  const approvalsOnly = useDevice((s) => s.me?.scope === 'approvals');
  return approvalsOnly ? <PhoneHandoffs /> : <HandedToYouList />;
}

function HandedToYouList() {
  const ownerId = useSession((s) => s.info?.owner.id);
  const list = useConversations(
    useShallow((s) =>
      Object.values(s.byId).flatMap((c) => (c.handoffs ?? []).filter((h) => h.to.id === ownerId).map((h) => `${c.conv_id}\u0000${c.title}\u0000${h.agent.name}\u0000${h.note}`)),
    ),
  );
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
              </button>{' '}
              — {agent}: <span className="muted">{note.slice(0, 140)}</span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
