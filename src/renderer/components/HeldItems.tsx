// Review mode in the Approvals inbox: what agents under review want to send. Send posts it as the agent,
// Edit & send posts the owner's text instead, Discard drops it. Keyboard: s send, e edit, x discard,
// n / p next / previous held item (a, r, j, k stay with the requests).
import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { HeldItem } from '../model';
import { heldStore, useHeld } from '../stores/held';
import { discardHeld, openView, selectHeld, sendHeld, setHeldDraft, setReview } from '../sync';
import { typingInField } from '../hooks';
import { dateTimeOf } from '../format';
import { AgentBadge, ItemBoundary, JsonView, Markdown } from './common';

const WHAT: Record<HeldItem['kind'], string> = { message: 'a message', card: 'a card', file: 'a file' };

function sizeOf(n: number): string {
  return n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(1)} MB`;
}

export function HeldItems() {
  const items = useHeld(useShallow((s) => s.items));
  const selected = useHeld((s) => s.selected);
  const ids = items.map((i) => i.held_id).join(' ');

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.ctrlKey || e.metaKey || e.altKey || typingInField(e.target)) return;
      const list = ids ? ids.split(' ') : [];
      const cur = heldStore.getState().selected;
      if (!cur || !list.includes(cur)) return;
      const i = list.indexOf(cur);
      switch (e.key) {
        case 's':
          void sendHeld(cur);
          break;
        case 'e': {
          const item = heldStore.getState().items.find((h) => h.held_id === cur);
          if (item && heldStore.getState().drafts[cur] === undefined) setHeldDraft(cur, item.text);
          setTimeout(() => document.querySelector<HTMLTextAreaElement>(`[data-held-id="${cur}"] .held-edit`)?.focus(), 0);
          break;
        }
        case 'x':
          void discardHeld(cur);
          break;
        case 'n':
          selectHeld(list[Math.min(list.length - 1, i + 1)]!);
          break;
        case 'p':
          selectHeld(list[Math.max(0, i - 1)]!);
          break;
        default:
          return;
      }
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [ids]);

  if (items.length === 0) return null;
  return (
    <section className="held-list request-list" aria-label="Held for review">
      <h2>Held for review</h2>
      <p className="shortcuts" aria-label="Review shortcuts">
        <kbd>s</kbd> send · <kbd>e</kbd> edit · <kbd>x</kbd> discard · <kbd>n</kbd>/<kbd>p</kbd> next / previous held item
      </p>
      {items.map((h) => (
        <ItemBoundary
          key={h.held_id}
          what="held item"
          raw={h.text}
          actions={
            <button type="button" className="btn btn-small btn-danger" onClick={() => void discardHeld(h.held_id)}>
              Discard
            </button>
          }
        >
          <HeldCard item={h} selected={h.held_id === selected} />
        </ItemBoundary>
      ))}
    </section>
  );
}

function HeldCard({ item: h, selected }: { item: HeldItem; selected: boolean }) {
  const draft = useHeld((s) => s.drafts[h.held_id]);
  const editing = draft !== undefined;
  const headingId = `held-${h.held_id}-title`;
  return (
    <section
      className={`request request-pending held ${selected ? 'selected' : ''}`}
      aria-labelledby={headingId}
      data-held-id={h.held_id}
      onFocus={() => selectHeld(h.held_id)}
      onClick={() => selectHeld(h.held_id)}
    >
      <header className="request-head">
        <span className="chip chip-kind-held">Review</span>
        <span className="muted small" title={dateTimeOf(h.created_at)}>{dateTimeOf(h.created_at)}</span>
      </header>
      <h3 id={headingId} className="request-title">
        {h.agent.name} wants to send {WHAT[h.kind]}
      </h3>
      <p className="request-meta">
        <strong>{h.agent.name}</strong> <AgentBadge /> in{' '}
        <button type="button" className="link" onClick={() => openView({ name: 'conversation', convId: h.conv_id })}>
          {h.conv_title || h.conv_id}
        </button>
        {h.to?.length ? <> · to {h.to.join(', ')}</> : null}
      </p>
      {h.file && (
        <p className="held-file">
          {h.file.is_image ? 'Image' : 'File'} <strong>{h.file.name}</strong> <span className="muted">({h.file.mime}, {sizeOf(h.file.size)})</span>
        </p>
      )}
      {editing ? (
        <textarea
          className="held-edit"
          aria-label={`Edit what ${h.agent.name} sends`}
          value={draft}
          rows={Math.min(12, Math.max(3, draft.split('\n').length + 1))}
          onChange={(e) => setHeldDraft(h.held_id, e.target.value)}
        />
      ) : (
        h.text && <Markdown className="held-text" text={h.text} />
      )}
      {h.card !== undefined && <JsonView value={h.card} label="The card" />}
      <div className="request-actions">
        <div className="row">
        {editing ? (
          <>
            <button type="button" className="btn btn-primary" disabled={h.kind !== 'file' && !draft.trim()} onClick={() => void sendHeld(h.held_id)}>
              Send edited
            </button>
            <button type="button" className="btn" onClick={() => setHeldDraft(h.held_id, null)}>
              Cancel edit
            </button>
          </>
        ) : (
          <>
            <button type="button" className="btn btn-primary" onClick={() => void sendHeld(h.held_id)}>
              Send
            </button>
            <button type="button" className="btn" onClick={() => setHeldDraft(h.held_id, h.text)}>
              Edit &amp; send
            </button>
          </>
        )}
        <button type="button" className="btn btn-danger" onClick={() => void discardHeld(h.held_id)}>
          Discard
        </button>
        </div>
      </div>
    </section>
  );
}

/** The review-mode switch of one agent (Fleet card, Agents page). */
export function ReviewToggle({ name, on }: { name: string; on: boolean }) {
  return (
    <button
      type="button"
      className={`btn btn-small ${on ? 'btn-primary' : 'btn-ghost'} review-toggle`}
      aria-pressed={on}
      aria-label={`Review mode for ${name}`}
      title={on ? `${name}'s sends wait for you in Approvals. Click to turn review off.` : `Hold ${name}'s sends for your review.`}
      onClick={() => void setReview(name, !on)}
    >
      {on ? 'Review: on' : 'Review: off'}
    </button>
  );
}
