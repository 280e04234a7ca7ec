// Review mode in the Approvals inbox: what agents under review want to send. Send posts it as the agent,
// Edit & send posts the owner's text instead, Discard drops it. The inbox's one keyboard focus (ApprovalsInbox)
// moves over these too: s send, e edit, x discard.
import { useShallow } from 'zustand/react/shallow';
import type { HeldItem } from '../../model';
import { useHeld } from '../../stores/held';
import { useConversations } from '../../stores/conversations';
import { discardHeld, openView, selectHeld, sendHeld, setHeldDraft, setReview } from '../../sync';
import { bytes, dateTimeOf } from '../../format';
import { HELD_WHAT } from '../../../shared/features/review';
import { AgentBadge, ItemBoundary, JsonView, Markdown } from '../common';

/** What the words under review are, for the edit box's label. */
const WORDS: Partial<Record<HeldItem['kind'], string>> = {
  edit: 'the new text',
  request: 'the request title',
  task: 'the task title',
  group: 'the group title',
  task_update: 'the note',
  handoff: 'the note',
};

/** What a held item does besides its words, in one line (who it brings in, what it edits, where it moves a task). */
function HeldDetails({ h }: { h: HeldItem }) {
  return (
    <>
      {h.edit_of && (
        <div className="held-edit-of">
          <span className="muted small">Now reads:</span>
          <Markdown className="held-text muted" text={h.edit_of.text} />
          <span className="muted small">Would read:</span>
        </div>
      )}
      {h.request && (
        <p className="held-detail">
          A {h.request.kind} request{h.request.options?.length ? <> · options: {h.request.options.join(', ')}</> : null}
          {h.request.assignees?.length ? <> · for {h.request.assignees.join(', ')}</> : <> · for you</>}
        </p>
      )}
      {(h.members?.length || h.assignee || h.state_to || h.handoff_to) && (
        <p className="held-detail">
          {h.members?.length ? <>With {h.members.join(', ')}</> : null}
          {h.state_to ? (
            <>
              Moves it to <strong>{h.state_to}</strong>
            </>
          ) : null}
          {h.assignee ? <> · assigned to {h.assignee}</> : null}
          {h.handoff_to ? (
            <>
              To {h.handoff_to}; {h.agent.name} goes silent there until it is handed back
            </>
          ) : null}
        </p>
      )}
      {h.request?.context !== undefined && <JsonView value={h.request.context} label="Context" />}
    </>
  );
}

export function HeldItems({ hidden = [] }: { hidden?: string[] }) {
  const all = useHeld(useShallow((s) => s.items));
  const items = all.filter((i) => !hidden.includes(i.held_id)); // decided, in the undo window
  const selected = useHeld((s) => s.selected);

  if (items.length === 0) return null;
  return (
    <section className="held-list request-list" aria-label="Held for review">
      <h2>Held for review</h2>
      <p className="shortcuts" aria-label="Review shortcuts">
        <kbd>s</kbd> send · <kbd>e</kbd> edit · <kbd>x</kbd> discard · <kbd>j</kbd>/<kbd>k</kbd> next / previous item
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
  // The conversation as the sidebar names it (a direct one has no stored title: the hub's conv_title is empty).
  const convTitle = useConversations((s) => (h.conv_id ? s.byId[h.conv_id]?.title : undefined)) || h.conv_title || 'the conversation';
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
        <span className="muted small" title={dateTimeOf(h.created_at)}>
          {dateTimeOf(h.created_at)}
        </span>
      </header>
      <h3 id={headingId} className="request-title">
        {h.agent.name} wants to {HELD_WHAT[h.kind]}
      </h3>
      <p className="request-meta">
        <strong>{h.agent.name}</strong> <AgentBadge />
        {h.conv_id ? (
          <>
            {' '}
            in{' '}
            <button type="button" className="link" onClick={() => openView({ name: 'conversation', convId: h.conv_id! })}>
              {convTitle}
            </button>
          </>
        ) : (
          <> · a new conversation</>
        )}
        {h.to?.length ? <> · to {h.to.join(', ')}</> : null}
      </p>
      <HeldDetails h={h} />
      {h.file && (
        <p className="held-file">
          {h.file.is_image ? 'Image' : 'File'} <strong>{h.file.name}</strong>{' '}
          <span className="muted">
            ({h.file.mime}, {bytes(h.file.size)})
          </span>
        </p>
      )}
      {editing ? (
        <textarea
          className="held-edit"
          aria-label={WORDS[h.kind] ? `Edit ${WORDS[h.kind]}` : `Edit what ${h.agent.name} sends`}
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
              <button
                type="button"
                className="btn btn-primary"
                disabled={h.kind !== 'file' && !draft.trim()}
                onClick={() => sendHeld(h.held_id)}
              >
                Send edited
              </button>
              <button type="button" className="btn" onClick={() => setHeldDraft(h.held_id, null)}>
                Cancel edit
              </button>
            </>
          ) : (
            <>
              <button type="button" className="btn btn-primary" onClick={() => sendHeld(h.held_id)}>
                Send
              </button>
              <button type="button" className="btn" onClick={() => setHeldDraft(h.held_id, h.text)}>
                Edit &amp; send
              </button>
            </>
          )}
          <button type="button" className="btn btn-danger" onClick={() => discardHeld(h.held_id)}>
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
