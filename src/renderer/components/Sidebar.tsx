// The left sidebar: navigation, the filter box, and conversations grouped by kind with their badges.
import { memo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { ConversationView, Message } from '../model';
import { useConversations } from '../stores/conversations';
import { useRequests } from '../stores/requests';
import { useAgents } from '../stores/agents';
import { useSession } from '../stores/session';
import { useUi, type View } from '../stores/ui';
import { hrefOf, openMessage, searchMessages, setFilter, showNewConversation, signOut } from '../sync';
import { transport } from '../transport';
import { TASK_STATE_LABEL, timeOf } from '../format';
import { Avatar } from './common';
import { PauseAllControl } from './fleet/Control';
import { AgentStatePill, useAgentStates } from './fleet/AgentState';
import { STATE_ORDER, fleetOrder, type AgentState, type AgentStateName, type FleetSortKey } from '../../shared/agents/agent-state';
import { Icon } from './Icon';
import { usePairedDevice } from '../stores/paired-device';

/**
 * Direct messages in the Fleet's order (shared/agents/agent-state.ts fleetOrder): by the state of the agent in it (who needs
 * you first; with two agents, the more urgent), then the most recent conversation first.
 */
function directInFleetOrder(byId: Record<string, ConversationView>, ids: string[], states: Map<string, AgentState>): string[] {
  const key = (id: string): FleetSortKey => {
    const c = byId[id]!;
    const agentStates = c.members.map((m) => states.get(m.id)?.state).filter((st): st is AgentStateName => !!st);
    const state = STATE_ORDER.find((st) => agentStates.includes(st)) ?? 'offline';
    return { state, last: c.last_event_at, name: c.title };
  };
  const keys = new Map(ids.map((id) => [id, key(id)]));
  return [...ids].sort((a, b) => fleetOrder(keys.get(a)!, keys.get(b)!));
}

export function sortedConversationIds(byId: Record<string, ConversationView>, filter: string): string[] {
  const f = filter.trim().toLowerCase();
  return Object.values(byId)
    .filter((c) => !f || c.title.toLowerCase().includes(f) || c.members.some((m) => m.name.toLowerCase().includes(f)))
    .sort((a, b) => b.last_event_at - a.last_event_at)
    .map((c) => c.conv_id);
}

const SECTIONS: Array<{ kind: ConversationView['kind']; label: string }> = [
  { kind: 'direct', label: 'Direct messages' },
  { kind: 'group', label: 'Groups' },
  { kind: 'task', label: 'Tasks' },
  { kind: 'inbox', label: 'Private notes' },
];

export function Sidebar() {
  const filter = useUi((s) => s.filter);
  const view = useUi((s) => s.view);
  const info = useSession((s) => s.info);
  const link = useSession((s) => s.link);
  const pendingCount = useUi((s) => s.waitingCount); // requests, held items, handoffs; not what is in the undo window (sync/waiting.ts)
  const groups = useConversations(
    useShallow((s) => {
      const ids = sortedConversationIds(s.byId, filter).filter((id) => !s.byId[id]!.archived); // archived: their own section
      return SECTIONS.map((sec) => ids.filter((id) => s.byId[id]!.kind === sec.kind).join(' '));
    }),
  );
  const archivedIds = useConversations(useShallow((s) => sortedConversationIds(s.byId, filter).filter((id) => s.byId[id]!.archived)));
  const states = useAgentStates();
  const directIds = useConversations(useShallow((s) => directInFleetOrder(s.byId, groups[0] ? groups[0].split(' ') : [], states)));
  const [showArchived, setShowArchived] = useState(false);
  const [results, setResults] = useState<Message[] | null>(null);
  const convTitles = useConversations(useShallow((s) => Object.fromEntries(Object.values(s.byId).map((c) => [c.conv_id, c.title]))));
  const deviceMode = usePairedDevice((s) => !!s.me); // a paired phone has no owner session to sign out of: it has "Forget this phone" (PairedDevice.tsx)

  return (
    <nav className="sidebar" aria-label="Perch">
      <div className="brand">
        <img src="./favicon.svg" alt="" width={28} height={28} />
        <span className="brand-name">Perch</span>
        <span
          className={`dot dot-${link}`}
          role="img"
          aria-label={link === 'live' ? 'Live' : 'Not connected'}
          title={link === 'live' ? 'Live' : 'Not connected'}
        />
        <span className="brand-owner" title="You, the owner">
          {info?.owner.name}
        </span>
        {transport.kind === 'http' && !deviceMode && (
          <button type="button" className="link brand-signout" onClick={() => void signOut()}>
            Sign out
          </button>
        )}
      </div>
      <div className="nav-links">
        <NavLink
          view={{ name: 'approvals' }}
          active={view.name === 'approvals'}
          label="Approvals"
          icon={<Icon name="approvals" />}
          count={pendingCount}
          countLabel={`${pendingCount} pending`}
        />
        <NavLink view={{ name: 'fleet' }} active={view.name === 'fleet'} label="Fleet" icon={<Icon name="fleet" />} />
        <NavLink view={{ name: 'ledger' }} active={view.name === 'ledger'} label="Ledger" icon={<Icon name="ledger" />} />
        <NavLink view={{ name: 'agents' }} active={view.name === 'agents'} label="Agents" icon={<Icon name="bot" />} />
        <NavLink
          view={{ name: 'settings' }}
          active={view.name === 'settings' || view.name === 'phone'}
          label="Settings"
          icon={<Icon name="settings" />}
        />{' '}
        {/* Settings → Phone */}
      </div>
      <PauseAllControl /> {/* owner control: the kill switch on every screen (Control.tsx) */}
      <form
        className="filter"
        role="search"
        onSubmit={async (e) => {
          e.preventDefault();
          if (!filter.trim()) return setResults(null);
          const r = await searchMessages(filter.trim());
          setResults(r?.messages ?? []);
        }}
      >
        <input
          id="conv-filter"
          type="search"
          placeholder="Filter or search messages"
          title="Type to filter conversations; Enter searches their messages (Ctrl K comes here)"
          aria-label="Filter conversations"
          value={filter}
          onChange={(e) => {
            setFilter(e.target.value);
            if (!e.target.value) setResults(null);
          }}
        />
      </form>
      <div className="conv-scroll">
        {results && (
          <section className="conv-section" aria-label="Search results">
            <h3 className="section-title">
              Messages matching “{filter}”{' '}
              <button type="button" className="link" onClick={() => setResults(null)}>
                clear
              </button>
            </h3>
            {results.length === 0 && <p className="muted pad">No messages found.</p>}
            <ul className="search-results">
              {results.map((m) => (
                <li key={m.msg_id}>
                  <button
                    type="button"
                    className="search-hit"
                    onClick={() => {
                      openMessage(m.conv_id, m.msg_id);
                    }}
                  >
                    <strong>{m.sender.name}</strong>{' '}
                    <span className="muted">
                      in {convTitles[m.conv_id] ?? 'a conversation'} · {timeOf(m.created_at)}
                    </span>
                    <span className="hit-text">{(m.text ?? '').slice(0, 120)}</span>
                  </button>
                </li>
              ))}
            </ul>
          </section>
        )}
        {SECTIONS.map((sec, i) => {
          const ids = sec.kind === 'direct' ? directIds : groups[i] ? groups[i]!.split(' ') : [];
          if (ids.length === 0 && (sec.kind === 'inbox' || filter)) return null;
          return (
            <section key={sec.kind} className="conv-section" aria-label={sec.label}>
              <h3 className="section-title">
                {sec.label}
                {sec.kind !== 'inbox' && (
                  <button
                    type="button"
                    className="btn btn-ghost btn-icon btn-small"
                    aria-label={`New ${sec.label.toLowerCase()}`}
                    onClick={() => showNewConversation(true)}
                  >
                    <Icon name="plus" size={14} />
                  </button>
                )}
              </h3>
              {ids.length === 0 ? (
                <p className="muted pad small">None yet.</p>
              ) : (
                <ul className="conv-list">
                  {ids.map((id) => (
                    <ConversationItem key={id} convId={id} active={view.name === 'conversation' && view.convId === id} />
                  ))}
                </ul>
              )}
            </section>
          );
        })}
        {archivedIds.length > 0 && (
          <section className="conv-section" aria-label="Archived">
            <h3 className="section-title">
              <button
                type="button"
                className="link section-toggle"
                aria-expanded={showArchived || !!filter}
                onClick={() => setShowArchived(!showArchived)}
              >
                Archived ({archivedIds.length})
              </button>
            </h3>
            {(showArchived || !!filter) && (
              <ul className="conv-list conv-list-archived">
                {archivedIds.map((id) => (
                  <ConversationItem key={id} convId={id} active={view.name === 'conversation' && view.convId === id} />
                ))}
              </ul>
            )}
          </section>
        )}
      </div>
    </nav>
  );
}

/** A navigation item: a link to the view's address (so a new tab, Back and Forward work); the URL drives the view. */
function NavLink(props: { view: View; active: boolean; label: string; icon: React.ReactNode; count?: number; countLabel?: string }) {
  return (
    <a href={hrefOf(props.view)} className={`nav-link ${props.active ? 'active' : ''}`} aria-current={props.active ? 'page' : undefined}>
      <span className="nav-icon" aria-hidden="true">
        {props.icon}
      </span>
      <span className="nav-label">{props.label}</span>
      {props.count ? (
        <span className="count count-strong" aria-label={props.countLabel}>
          {props.count}
        </span>
      ) : null}
    </a>
  );
}

const ConversationItem = memo(function ConversationItem({ convId, active }: { convId: string; active: boolean }) {
  const c = useConversations((s) => s.byId[convId]);
  const ownerId = useSession((s) => s.info?.owner.id);
  const deciding = useUi(useShallow((s) => s.pendingDecisions.map((d) => d.key)));
  const pendingHere = useRequests(
    (s) => Object.values(s.byId).filter((r) => r.conv_id === convId && r.state === 'pending' && !deciding.includes(r.request_id)).length,
  );
  const waiting = useAgents(
    useShallow((s) => (c ? s.list.filter((a) => a.waiting && c.members.some((m) => m.id === a.id)).map((a) => a.name) : [])),
  );
  if (!c) return null;
  const other = c.kind === 'direct' ? c.members.find((m) => m.id !== ownerId) : undefined;
  const handedToMe = (c.handoffs ?? []).filter((h) => h.to.id === ownerId);
  return (
    <li>
      <a
        href={hrefOf({ name: 'conversation', convId })}
        className={`conv-item ${active ? 'active' : ''} ${c.unread ? 'has-unread' : ''}`}
        aria-current={active ? 'page' : undefined}
      >
        {other ? (
          <Avatar user={other} size={24} />
        ) : (
          <span className="conv-glyph" aria-hidden="true">
            <Icon name={c.kind === 'task' ? 'task' : c.kind === 'inbox' ? 'note' : 'hash'} size={15} />
          </span>
        )}
        {/* The name keeps a readable minimum beside its chips, but a short one no more than its own width (ch per character, one spare). */}
        <span className="conv-title" style={{ minWidth: `min(96px, 45%, ${Array.from(c.title).length + 1}ch)` }}>
          {c.title}
        </span>
        <span className="conv-badges">
          {c.task && <span className={`chip chip-${c.task.state}`}>{TASK_STATE_LABEL[c.task.state]}</span>}
          {handedToMe.length > 0 && (
            <span className="chip chip-handoff" title={`Handed to you by ${handedToMe.map((h) => h.agent.name).join(', ')}`}>
              handed to you
            </span>
          )}
          {c.floor && (
            <span className="chip chip-floor" title={`${c.floor.holder.name} holds the floor`}>
              <Icon name="mic" size={10} /> {c.floor.holder.name}
            </span>
          )}
          {pendingHere > 0 && (
            <span className="chip chip-pending" title={`${pendingHere} decision${pendingHere === 1 ? '' : 's'} waiting for you`}>
              {pendingHere} to decide
            </span>
          )}
          {other?.kind === 'agent' ? (
            <AgentStatePill agentId={other.id} name={other.name} compact /> // the agent's one state (AgentState.tsx)
          ) : (
            waiting.length > 0 && (
              <span
                className="waiting-dot"
                title={`Waiting for news: ${waiting.join(', ')}`}
                aria-label={`${waiting.join(', ')} waiting`}
              />
            )
          )}
          {c.unread > 0 && (
            <span className="count" aria-label={`${c.unread} unread`}>
              {c.unread > 999 ? '999+' : c.unread}
            </span>
          )}
        </span>
      </a>
    </li>
  );
});
