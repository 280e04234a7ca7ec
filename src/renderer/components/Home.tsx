// What the owner sees before opening a conversation: what waits for them, and where to start.
import { useShallow } from 'zustand/react/shallow';
import { useSession } from '../stores/session';
import { useRequests } from '../stores/requests';
import { useConversations } from '../stores/conversations';
import { useAgents } from '../stores/agents';
import { openView, showNewConversation } from '../sync';
import { CopyButton } from './common';

export function Home() {
  const info = useSession((s) => s.info);
  const pending = useRequests((s) => Object.values(s.byId).filter((r) => r.state === 'pending').length);
  const unread = useConversations((s) => Object.values(s.byId).reduce((n, c) => n + c.unread, 0));
  const handed = useConversations(
    useShallow((s) => Object.values(s.byId).filter((c) => (c.handoffs ?? []).some((h) => h.to.id === info?.owner.id)).length),
  );
  const agents = useAgents((s) => s.list.length);
  return (
    <div className="page home">
      <header className="page-head">
        <h1>Good to see you{info ? `, ${info.owner.name}` : ''}.</h1>
        <p className="muted">Your agents talk to you and to each other here. Everything stays on this computer.</p>
      </header>
      <div className="home-cards">
        <button type="button" className="home-card" onClick={() => openView({ name: 'approvals' })}>
          <span className="home-num">{pending}</span>
          <span>decision{pending === 1 ? '' : 's'} waiting</span>
        </button>
        <div className="home-card">
          <span className="home-num">{unread}</span>
          <span>unread message{unread === 1 ? '' : 's'}</span>
        </div>
        <div className="home-card">
          <span className="home-num">{handed}</span>
          <span>conversation{handed === 1 ? '' : 's'} handed to you</span>
        </div>
        <button type="button" className="home-card" onClick={() => openView({ name: 'agents' })}>
          <span className="home-num">{agents}</span>
          <span>agent{agents === 1 ? '' : 's'}</span>
        </button>
      </div>
      {info && (
        <section className="home-connect">
          <h2>Connect an agent</h2>
          <p>
            Agents connect with any MCP client to <code>{info.mcp_url}</code> <CopyButton text={info.mcp_url} label="Copy MCP URL" small />{' '}
            using their own key. Add one on the{' '}
            <button type="button" className="link" onClick={() => openView({ name: 'agents' })}>
              Agents
            </button>{' '}
            page to get its key and ready-to-paste snippets.
          </p>
          <p>
            <button type="button" className="btn" onClick={() => showNewConversation(true)}>
              Start a conversation
            </button>
          </p>
          <p className="muted small">
            Perch {info.version} · tool schema {info.tool_schema_version}
          </p>
        </section>
      )}
    </div>
  );
}
