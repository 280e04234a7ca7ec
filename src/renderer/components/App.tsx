// The app: sign-in when the owner session is missing, else sidebar + the current view.
import { useEffect } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useSession } from '../stores/session';
import { useUi, uiStore } from '../stores/ui';
import { useConversations } from '../stores/conversations';
import { boot, closeThread, openView, undoDecision } from '../sync';
import { typingInField, useNow } from '../hooks';
import { Sidebar, sortedConversationIds } from './Sidebar';
import { ConversationView } from './conversation/ConversationView';
import { ApprovalsInbox } from './approvals/ApprovalsInbox';
import { FleetView } from './fleet/FleetView';
import { LedgerPage } from './ledger/LedgerPage';
import { AgentsPage } from './agents/AgentsPage';
import { PhonePage } from './settings/PhonePage';
import { SettingsPage } from './settings/SettingsPage';
import { Home } from './Home';
import { ImageViewer } from './ImageViewer';
import { NewConversationDialog } from './conversation/NewConversation';
import { BottomBar, ForgottenDevice, PairPage, PairedDeviceMenu, RequestPage } from './device/PairedDevice';
import { usePairedDevice } from '../stores/paired-device';
import { ItemBoundary } from './common';

export function App() {
  const status = useSession((s) => s.status);
  useEffect(() => {
    void boot();
  }, []);

  if (status === 'loading') {
    return (
      <div className="splash" role="status">
        <img src="./favicon.svg" alt="" width={56} height={56} />
        <p>Opening Perch…</p>
      </div>
    );
  }
  if (status === 'pairing') return <PairPage />;
  if (status === 'signed-out') return <SignIn />;
  if (status === 'error') return <Unavailable />;
  return <Shell />;
}

function SignIn() {
  const refused = useSession((s) => s.error);
  const revoked = usePairedDevice((s) => s.revoked);
  const forgotten = usePairedDevice((s) => s.forgotten);
  if (forgotten) return <ForgottenDevice />;
  // Through the HTTPS front (not this computer), login links are refused: a device pairs instead.
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(location.hostname) && !window.perch) return <ForgottenDevice forgot={false} />;
  if (revoked) {
    return (
      <main className="signin" aria-labelledby="signin-title">
        <div className="signin-card">
          <img src="./favicon.svg" alt="" width={64} height={64} />
          <h1 id="signin-title">This phone is no longer paired</h1>
          <p role="alert">This phone&apos;s pairing was revoked — pair it again from the laptop (Settings → Phone).</p>
        </div>
      </main>
    );
  }
  return (
    <main className="signin" aria-labelledby="signin-title">
      <div className="signin-card">
        <img src="./favicon.svg" alt="" width={64} height={64} />
        <h1 id="signin-title">Sign in to Perch</h1>
        {refused && <p role="alert">{refused}</p>}
        <p>This browser has no owner session yet, or it expired.</p>
        <p>
          <strong>
            Open the login link printed by <code>perch serve</code>
          </strong>{' '}
          in this browser. Each link works once.
        </p>
        <p className="muted">
          Lost it? Run <code>perch owner login-link</code> for a fresh one.
        </p>
        <p className="muted">On a phone: pair it from the laptop (Settings → Phone) and scan the QR code.</p>
        <button type="button" className="btn btn-primary" onClick={() => location.reload()}>
          I have opened the link — retry
        </button>
      </div>
    </main>
  );
}

function Unavailable() {
  const error = useSession((s) => s.error);
  return (
    <main className="signin">
      <div className="signin-card">
        <h1>Perch is not answering</h1>
        <p>{error}</p>
        <button type="button" className="btn btn-primary" onClick={() => void boot()}>
          Retry
        </button>
      </div>
    </main>
  );
}

function Shell() {
  const { view, viewer, newConversation } = useUi(
    useShallow((s) => ({ view: s.view, viewer: s.viewer, newConversation: s.newConversation })),
  );
  const link = useSession((s) => s.link);
  const storage = useSession((s) => s.storage);
  const convIds = useConversations(useShallow((s) => sortedConversationIds(s.byId, '')));
  const scope = usePairedDevice((s) => s.me?.scope);

  // App-wide keys: Ctrl/Cmd+K to find a conversation, Alt+Up/Down to move between conversations.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
        e.preventDefault();
        document.getElementById('conv-filter')?.focus();
        return;
      }
      if (e.altKey && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
        const v = uiStore.getState().view;
        const i = v.name === 'conversation' ? convIds.indexOf(v.convId) : -1;
        const next = convIds[e.key === 'ArrowDown' ? i + 1 : Math.max(0, i - 1)];
        if (next) {
          e.preventDefault();
          openView({ name: 'conversation', convId: next });
        }
        return;
      }
      if (e.key === 'Escape' && !typingInField(e.target)) {
        closeThread();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [convIds]);

  return (
    // view-* and scope-* classes drive the phone layout (styles.css, below 700 px): one column, a bottom bar.
    <div className={`app view-${view.name}${scope === 'approvals' ? ' scope-approvals' : ''}`}>
      {scope !== 'approvals' && <Sidebar />}
      <main className="main" aria-label="Main">
        {(view.name === 'approvals' || view.name === 'home') && <PairedDeviceMenu />}{' '}
        {/* device mode: "Forget this phone" (PairedDevice.tsx) */}
        {link !== 'live' && (
          <div className={`linkbar linkbar-${link}`} role="status">
            {link === 'connecting' ? 'Connecting to the hub…' : link === 'offline' ? 'The hub is not answering; retrying…' : 'Signed out.'}
          </div>
        )}
        {storage?.state === 'full' && (
          <div className="storagebar" role="alert">
            Perch cannot save: the disk is full. Agents&apos; messages and your actions are refused until you free some disk space; nothing
            saved before is lost, and Perch carries on by itself.
          </div>
        )}
        <ItemBoundary key={view.name === 'conversation' ? `c:${view.convId}` : view.name} what="page">
          {view.name === 'conversation' ? (
            <ConversationView key={view.convId} convId={view.convId} />
          ) : view.name === 'approvals' ? (
            <ApprovalsInbox />
          ) : view.name === 'fleet' ? (
            <FleetView />
          ) : view.name === 'ledger' ? (
            <LedgerPage key={view.call ?? `agent:${view.agent ?? ''}`} call={view.call} agent={view.agent} />
          ) : view.name === 'agents' ? (
            <AgentsPage selected={view.agent} tab={view.tab} />
          ) : view.name === 'request' ? (
            <RequestPage key={view.requestId} requestId={view.requestId} />
          ) : view.name === 'phone' ? (
            <PhonePage />
          ) : view.name === 'settings' ? (
            <SettingsPage tab={view.tab} />
          ) : (
            <Home />
          )}
        </ItemBoundary>
      </main>
      <BottomBar />
      {viewer && <ImageViewer fileId={viewer.fileId} name={viewer.name} />}
      {newConversation && <NewConversationDialog />}
      <Toasts />
    </div>
  );
}

function Toasts() {
  const toasts = useUi((s) => s.toasts);
  const decisions = useUi((s) => s.pendingDecisions);
  const now = useNow(500);
  return (
    <div className="toasts" aria-live="polite" role="status">
      {decisions
        .filter((d) => !d.atOnce)
        .map((d) => (
          <div key={`d${d.id}`} className="toast toast-undo">
            <span>
              {d.text} —{' '}
              <span className="nowrap">{d.sending ? 'sending…' : `sent in ${Math.max(0, Math.ceil((d.until - now) / 1000))} s`}</span>
            </span>
            {!d.sending && (
              <button type="button" className="toast-action" onClick={() => undoDecision(d.id)}>
                Undo
              </button>
            )}
          </div>
        ))}
      {toasts.map((t) => (
        <div key={t.id} className={`toast toast-${t.kind}`} role={t.kind === 'error' ? 'alert' : undefined}>
          {t.text}
        </div>
      ))}
    </div>
  );
}
