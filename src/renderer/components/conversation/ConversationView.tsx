// One conversation: header (task, floor, pins), handoff banner, the timeline, the composer, and beside it
// either the open thread or the conversation's live progress feed.
import { useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useConversations } from '../../stores/conversations';
import { useSession } from '../../stores/session';
import { useUi } from '../../stores/ui';
import { useTimeline } from '../../stores/timeline';
import { useAgents } from '../../stores/agents';
import {
  addMember,
  focusMessage,
  openView,
  handBack,
  hideActivity,
  resumeConversation,
  setArchived,
  setFloor,
  setTask,
  toggleActivity,
} from '../../sync';
import { TASK_STATES, type TaskState } from '../../../shared/types';
import { TASK_STATE_LABEL, countdown, dateTimeOf, timeOf } from '../../format';
import { useNow } from '../../hooks';
import { Timeline } from './Timeline';
import { Composer } from './Composer';
import { ThreadPanel } from './ThreadPanel';
import { ProgressFeed } from './ProgressFeed';
import { Avatar, BusyButton, Dialog, laptopButton, Markdown } from '../common';
import { useLaptopOnly } from '../../stores/paired-device';
import { MessageBody } from './MessageItem';
import { ConvPauseControls, PausedBadge } from '../fleet/Control';
import { ExportDialog } from '../settings/ExportDialog';
import { Icon } from '../Icon';

export function ConversationView({ convId }: { convId: string }) {
  const conv = useConversations((s) => s.byId[convId]);
  const { threadRoot, showActivity } = useUi(useShallow((s) => ({ threadRoot: s.threadRoot, showActivity: s.showActivity })));
  if (!conv) {
    return (
      <div className="empty-state">
        <p>This conversation is not in your list (yet).</p>
      </div>
    );
  }
  const side = threadRoot ? 'thread' : showActivity ? 'activity' : null;
  return (
    <div className={`conversation ${side ? 'with-side' : ''}`}>
      <section className="conv-main" aria-label={`Conversation ${conv.title}`}>
        <ConversationHeader convId={convId} />
        {conv.kind === 'task' && <TaskBar convId={convId} />}
        <HandoffBanners convId={convId} />
        <PausedBanner convId={convId} />
        <ArchivedBanner convId={convId} />
        <Timeline convId={convId} />
        <Composer convId={convId} />
      </section>
      {side === 'thread' && threadRoot && <ThreadPanel convId={convId} rootId={threadRoot} />}
      {side === 'activity' && (
        <aside className="side-panel" aria-label="Live activity">
          <div className="side-head">
            <h2>Live activity</h2>
            <button type="button" className="btn btn-ghost btn-icon" aria-label="Hide live activity" onClick={() => hideActivity()}>
              <Icon name="close" />
            </button>
          </div>
          <ProgressFeed convId={convId} harnessOf={conv.members.filter((m) => m.kind === 'agent').map((m) => m.id)} />
        </aside>
      )}
    </div>
  );
}

function ConversationHeader({ convId }: { convId: string }) {
  const conv = useConversations((s) => s.byId[convId])!;
  const ownerId = useSession((s) => s.info?.owner.id);
  const showActivity = useUi((s) => s.showActivity);
  const pinCount = useTimeline((s) => s.convs[convId]?.pins.length ?? 0);
  const [showPins, setShowPins] = useState(false);
  const [showMembers, setShowMembers] = useState(false);
  const now = useNow(5000);
  const others = conv.members.filter((m) => m.id !== ownerId);
  return (
    <header className="conv-header">
      <button
        type="button"
        className="btn btn-ghost back-button mobile-only"
        aria-label="Back to conversations"
        onClick={() => openView({ name: 'conversations' })}
      >
        ‹
      </button>
      <div className="conv-heading">
        <h1>{conv.title}</h1>
        <p className="conv-sub">
          {conv.kind === 'direct'
            ? 'Direct conversation'
            : conv.kind === 'task'
              ? 'Task channel'
              : conv.kind === 'inbox'
                ? 'Private notes channel'
                : 'Group'}{' '}
          ·{' '}
          <button type="button" className="link" onClick={() => setShowMembers(true)}>
            {conv.members.length} member{conv.members.length === 1 ? '' : 's'}
          </button>
          {conv.floor && (
            <>
              {' '}
              ·{' '}
              <span className="chip chip-floor">
                <Icon name="mic" size={11} /> {conv.floor.holder.name} has the floor · {countdown(conv.floor.until, now)}
              </span>
            </>
          )}
        </p>
      </div>
      <div className="conv-tools">
        <div className="avatars" aria-hidden="true">
          {others.slice(0, 5).map((m) => (
            <Avatar key={m.id} user={m} size={26} />
          ))}
        </div>
        <FloorControl convId={convId} />
        <ConvPauseControls memberIds={others.filter((m) => m.kind === 'agent').map((m) => m.id)} />
        <button type="button" className="btn btn-ghost" aria-label={`Pinned messages (${pinCount})`} onClick={() => setShowPins(true)}>
          <Icon name="pin" /> {pinCount}
        </button>
        <button
          type="button"
          className={`btn btn-ghost ${showActivity ? 'active' : ''}`}
          aria-pressed={showActivity}
          onClick={() => toggleActivity()}
        >
          Activity
        </button>
        <ConversationMenu convId={convId} />
      </div>
      {showPins && <PinsDialog convId={convId} onClose={() => setShowPins(false)} />}
      {showMembers && <MembersDialog convId={convId} onClose={() => setShowMembers(false)} />}
    </header>
  );
}

function FloorControl({ convId }: { convId: string }) {
  const conv = useConversations((s) => s.byId[convId])!;
  const agents = conv.members.filter((m) => m.kind === 'agent');
  if (conv.kind === 'direct' || conv.kind === 'inbox' || agents.length === 0) return null;
  return (
    <label className="floor-control">
      <span className="sr-only">Floor</span>
      <select
        aria-label="Give the floor to"
        value={conv.floor?.holder.id ?? ''}
        onChange={(e) => {
          const v = e.target.value;
          void (v ? setFloor(convId, { agent: v }) : setFloor(convId, { release: true }));
        }}
      >
        <option value="">Floor: open to all</option>
        {agents.map((a) => (
          <option key={a.id} value={a.id}>
            Floor: {a.name} speaks
          </option>
        ))}
      </select>
    </label>
  );
}

function PinsDialog({ convId, onClose }: { convId: string; onClose: () => void }) {
  const pins = useTimeline(useShallow((s) => s.convs[convId]?.pins ?? []));
  const messages = useTimeline((s) => s.messages);
  return (
    <Dialog title="Pinned messages" onClose={onClose}>
      {pins.length === 0 && <p className="muted">Nothing pinned yet. Pin a message from its menu.</p>}
      <ul className="pin-list">
        {pins.map((id) => {
          const m = messages.get(id);
          if (!m) return null;
          return (
            <li key={id}>
              <button
                type="button"
                className="pin-item"
                onClick={() => {
                  focusMessage(id);
                  onClose();
                }}
              >
                <strong>{m.sender.name}</strong> <span className="muted">{dateTimeOf(m.created_at)}</span>
              </button>
              <MessageBody msg={m} compact />
            </li>
          );
        })}
      </ul>
    </Dialog>
  );
}

function MembersDialog({ convId, onClose }: { convId: string; onClose: () => void }) {
  const conv = useConversations((s) => s.byId[convId])!;
  const agents = useAgents((s) => s.list);
  const [pick, setPick] = useState('');
  const candidates = agents.filter((a) => !a.revoked && !conv.members.some((m) => m.id === a.id));
  return (
    <Dialog title={`Members of ${conv.title}`} onClose={onClose}>
      <ul className="member-list">
        {conv.members.map((m) => (
          <li key={m.id}>
            <Avatar user={m} size={24} /> <strong>{m.name}</strong>{' '}
            <span className="muted">
              {m.kind === 'agent' ? 'AI agent' : 'person'} · {m.role}
            </span>{' '}
            <PausedBadge paused={agents.find((a) => a.id === m.id)?.paused} />
          </li>
        ))}
      </ul>
      {(conv.kind === 'group' || conv.kind === 'task') && candidates.length > 0 && (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            if (pick) void addMember(convId, pick).then(() => setPick(''));
          }}
        >
          <select aria-label="Agent to add" value={pick} onChange={(e) => setPick(e.target.value)}>
            <option value="">Add an agent…</option>
            {candidates.map((a) => (
              <option key={a.id} value={a.name}>
                {a.name}
              </option>
            ))}
          </select>
          <button type="submit" className="btn" disabled={!pick}>
            Add
          </button>
        </form>
      )}
    </Dialog>
  );
}

/** Task channel: state (changeable, with a note), assignee, and the history of state changes. */
function TaskBar({ convId }: { convId: string }) {
  const conv = useConversations((s) => s.byId[convId])!;
  const history = useTimeline(useShallow((s) => s.convs[convId]?.taskHistory ?? []));
  const [note, setNote] = useState('');
  const [open, setOpen] = useState(false);
  const task = conv.task;
  if (!task) return null;
  return (
    <div className="taskbar" role="region" aria-label="Task">
      <label className="taskbar-field">
        <span>State</span>
        <select
          aria-label="Task state"
          className={`state-select chip-${task.state}`}
          value={task.state}
          onChange={(e) => {
            void setTask(
              convId,
              note.trim() ? { state: e.target.value as TaskState, note: note.trim() } : { state: e.target.value as TaskState },
            ).then((r) => {
              if (r) setNote('');
            });
          }}
        >
          {TASK_STATES.map((s) => (
            <option key={s} value={s}>
              {TASK_STATE_LABEL[s]}
            </option>
          ))}
        </select>
      </label>
      <label className="taskbar-field">
        <span>Assignee</span>
        <select
          aria-label="Task assignee"
          value={task.assignee?.id ?? ''}
          onChange={(e) => {
            if (e.target.value)
              void setTask(convId, note.trim() ? { assignee: e.target.value, note: note.trim() } : { assignee: e.target.value });
          }}
        >
          {!task.assignee && <option value="">Nobody</option>}
          {conv.members.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name}
            </option>
          ))}
        </select>
      </label>
      <input
        className="taskbar-note"
        aria-label="Note with the next state change"
        placeholder="Note with the change (optional)"
        value={note}
        onChange={(e) => setNote(e.target.value)}
      />
      <button type="button" className="btn btn-ghost" aria-expanded={open} onClick={() => setOpen(!open)}>
        History ({history.length})
      </button>
      {open && (
        <ol className="task-history" aria-label="Task history">
          {history.length === 0 && <li className="muted">No state changes loaded yet.</li>}
          {history.map((ev) => {
            const d = ev.data;
            return (
              <li key={ev.seq}>
                <span className="muted">{dateTimeOf(ev.at)}</span> <strong>{ev.actor?.name ?? 'hub'}</strong>:{' '}
                {d.previous_state !== d.state ? (
                  <>
                    {TASK_STATE_LABEL[d.previous_state] ?? d.previous_state} → <strong>{TASK_STATE_LABEL[d.state] ?? d.state}</strong>
                  </>
                ) : (
                  <>assigned to {d.assignee?.name ?? 'nobody'}</>
                )}
                {d.note ? <> — “{d.note}”</> : null}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}

/** "X handed this to you: note" with a Hand back action and a note. */
function HandoffBanners({ convId }: { convId: string }) {
  const handoffs = useConversations(useShallow((s) => s.byId[convId]?.handoffs ?? []));
  const ownerId = useSession((s) => s.info?.owner.id);
  if (handoffs.length === 0) return null;
  return (
    <>
      {handoffs.map((h) => (
        <HandoffBanner
          key={h.agent.id}
          convId={convId}
          agentId={h.agent.id}
          agentName={h.agent.name}
          toName={h.to.id === ownerId ? 'you' : h.to.name}
          note={h.note}
          at={h.at}
        />
      ))}
    </>
  );
}

function HandoffBanner(props: { convId: string; agentId: string; agentName: string; toName: string; note: string; at: number }) {
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <div className="handoff" role="region" aria-label={`Handoff from ${props.agentName}`}>
      <div className="handoff-text">
        <strong>
          {props.agentName} handed this to {props.toName}:
        </strong>{' '}
        <Markdown text={props.note} className="inline-md" />
        <span className="muted small">
          {' '}
          · {timeOf(props.at)} · {props.agentName} stays silent here until you hand it back.
        </span>
      </div>
      <form
        className="handoff-form"
        onSubmit={async (e) => {
          e.preventDefault();
          if (!note.trim()) return;
          setBusy(true);
          const r = await handBack(props.convId, props.agentId, note.trim());
          setBusy(false);
          if (r) setNote('');
        }}
      >
        <input
          aria-label={`Note for ${props.agentName}`}
          placeholder={`What should ${props.agentName} know?`}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          required
        />
        <button type="submit" className="btn btn-primary" disabled={busy || !note.trim()}>
          Hand back
        </button>
      </form>
    </div>
  );
}

/** The loop brake paused this conversation for agents (hub/control/brakes.ts): only a person lifts it. */
function PausedBanner({ convId }: { convId: string }) {
  const paused = useConversations((s) => s.byId[convId]?.paused);
  if (!paused) return null;
  return (
    <div className="handoff paused-banner" role="region" aria-label="Conversation paused">
      <div className="handoff-text">
        <strong>Paused for agents:</strong> {paused.reason}.
        <span className="muted small"> · {timeOf(paused.at)} · Their sends here are refused until you resume it or write here.</span>
      </div>
      <div className="handoff-form">
        <BusyButton className="btn btn-primary" onClick={() => resumeConversation(convId)}>
          Resume
        </BusyButton>
      </div>
    </div>
  );
}

/** The conversation's menu: Archive / Unarchive (hub/talk/archive.ts) and Export… (ExportDialog.tsx). Not for an agent's notes channel. */
function ConversationMenu({ convId }: { convId: string }) {
  const conv = useConversations((s) => s.byId[convId])!;
  const [open, setOpen] = useState(false);
  const [exporting, setExporting] = useState(false);
  const noExport = useLaptopOnly('archive.export');
  if (conv.kind === 'inbox') return null;
  return (
    <div className="conv-menu">
      <button
        type="button"
        className="btn btn-ghost"
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label="Conversation menu"
        onClick={() => setOpen(!open)}
      >
        ⋯
      </button>
      {open && (
        <div className="menu conv-menu-list" role="menu" aria-label="Conversation" onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            autoFocus
            onClick={() => {
              setOpen(false);
              void setArchived(convId, !conv.archived);
            }}
          >
            {conv.archived ? 'Unarchive' : 'Archive'}
          </button>
          <button
            type="button"
            role="menuitem"
            className="menu-item"
            onClick={() => {
              setOpen(false);
              setExporting(true);
            }}
            {...laptopButton(noExport)}
          >
            Export…
          </button>
        </div>
      )}
      {exporting && (
        <ExportDialog
          title="Export conversation"
          what={`“${conv.title || 'This conversation'}”, whole: every message, edit, decision, handoff and file in it, and who its members are.`}
          scope={{ conversations: [convId] }}
          onClose={() => setExporting(false)}
        />
      )}
    </div>
  );
}

function ArchivedBanner({ convId }: { convId: string }) {
  const archived = useConversations((s) => s.byId[convId]?.archived);
  if (!archived) return null;
  return (
    <div className="handoff archived-banner" role="region" aria-label="Conversation archived">
      <div className="handoff-text">
        <strong>Archived</strong>
        {archived.by === 'retention' ? ' for being idle (retention rule)' : ''}.
        <span className="muted small">
          {' '}
          · {dateTimeOf(archived.at)} · Agents can read it but not write here. Writing here brings it back.
        </span>
      </div>
      <div className="handoff-form">
        <BusyButton className="btn btn-primary" onClick={() => setArchived(convId, false)}>
          Unarchive
        </BusyButton>
      </div>
    </div>
  );
}
