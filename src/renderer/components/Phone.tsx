// The phone (issue 13): the bottom bar of the phone layout (below 700 px), the /pair page, "Turn on notifications"
// for a paired phone, and the request page a notification opens (/r/<request_id>).
import { useState } from 'react';
import { useDevice } from '../stores/device';
import { useRequests } from '../stores/requests';
import { useHeld } from '../stores/held';
import { useUi } from '../stores/ui';
import { boot, defaultDeviceName, enableNotifications, openView, pairThisDevice, resetPairing } from '../sync';
import { useNow } from '../hooks';
import { countdown } from '../format';
import { RequestCard } from './RequestCard';
import { Icon } from './Icon';

/** The phone layout's bottom bar: Approvals / Conversations / Fleet (a device of scope approvals: Approvals only). */
export function BottomBar() {
  const view = useUi((s) => s.view);
  const scope = useDevice((s) => s.me?.scope);
  const pending = useRequests((s) => Object.values(s.byId).filter((r) => r.state === 'pending').length) + useHeld((s) => s.items.length);
  const tabs: Array<{ name: 'approvals' | 'conversations' | 'fleet'; label: string; icon: string; active: boolean }> = [
    { name: 'approvals', label: 'Approvals', icon: 'approvals', active: view.name === 'approvals' || view.name === 'request' },
  ];
  if (scope !== 'approvals') {
    tabs.push({ name: 'conversations', label: 'Conversations', icon: 'thread', active: view.name === 'conversations' || view.name === 'conversation' });
    tabs.push({ name: 'fleet', label: 'Fleet', icon: 'fleet', active: view.name === 'fleet' || view.name === 'agents' });
  }
  if (tabs.length < 2) return null; // one place only: no bar
  return (
    <nav className="bottombar" aria-label="Sections">
      {tabs.map((t) => (
        <button key={t.name} type="button" className={`bottombar-item ${t.active ? 'active' : ''}`} aria-current={t.active ? 'page' : undefined} onClick={() => openView({ name: t.name })}>
          <span className="bottombar-icon" aria-hidden="true">
            <Icon name={t.icon} size={20} />
            {t.name === 'approvals' && pending > 0 && <span className="count count-strong bottombar-count">{pending}</span>}
          </span>
          <span className="bottombar-label">{t.label}</span>
          {t.name === 'approvals' && pending > 0 && <span className="sr-only">{pending} pending</span>}
        </button>
      ))}
    </nav>
  );
}

/** One request at full width: what a notification's tap opens. */
export function RequestPage({ requestId }: { requestId: string }) {
  const known = useRequests((s) => !!s.byId[requestId]);
  const loaded = useRequests((s) => s.loaded);
  return (
    <div className="page request-page">
      <header className="page-head">
        <button type="button" className="btn btn-ghost back-button" onClick={() => openView({ name: 'approvals' })}>
          ‹ All approvals
        </button>
      </header>
      {known ? (
        <RequestCard requestId={requestId} inInbox />
      ) : (
        <p className="muted">{loaded ? 'This request is not in your inbox: it may have been withdrawn, or it is not addressed to you.' : 'Loading…'}</p>
      )}
    </div>
  );
}

/** "Turn on notifications" for a paired phone, with what happened. */
export function NotificationsControl() {
  const me = useDevice((s) => s.me);
  const push = useDevice((s) => s.push);
  if (!me) return null;
  return (
    <div className="notify-control" aria-live="polite">
      {push.state !== 'on' && (
        <button type="button" className="btn" disabled={push.state === 'working'} onClick={() => void enableNotifications()}>
          <Icon name="spark" /> {push.state === 'working' ? 'Turning on notifications…' : 'Turn on notifications'}
        </button>
      )}
      {push.state === 'on' && <p className="muted small">{push.message ?? 'Notifications are on for this phone.'}</p>}
      {push.state === 'error' && push.message && (
        <p className="error small" role="alert">
          {push.message}
        </p>
      )}
    </div>
  );
}

/** The /pair page: name this phone, claim the code, compare the phrase with the laptop, wait for the confirmation. */
export function PairPage() {
  const pair = useDevice((s) => s.pair);
  const code = useDevice((s) => s.code);
  const [name, setName] = useState(() => defaultDeviceName());
  const now = useNow(1000);
  const onPaired = () => {
    history.replaceState(null, '', '/#/approvals');
    void boot();
  };
  return (
    <main className="signin pair" aria-labelledby="pair-title">
      <div className="signin-card pair-card">
        <img src="/favicon.svg" alt="" width={56} height={56} />
        <h1 id="pair-title">Pair this phone with Perch</h1>
        {!code && pair.step === 'form' && (
          <p role="alert">This link has no pairing code. On the laptop, open Settings → Phone → Pair a phone, and scan the QR code.</p>
        )}
        {code && pair.step === 'form' && (
          <form
            className="pair-form"
            onSubmit={(e) => {
              e.preventDefault();
              void pairThisDevice(name, onPaired);
            }}
          >
            <label htmlFor="pair-name">Name of this device</label>
            <input id="pair-name" type="text" value={name} maxLength={60} onChange={(e) => setName(e.target.value)} autoComplete="off" />
            <button type="submit" className="btn btn-primary">
              Pair
            </button>
          </form>
        )}
        {pair.step === 'claiming' && <p role="status">Pairing…</p>}
        {pair.step === 'phrase' && (
          <>
            <p className="pair-phrase" aria-label="Pairing phrase">
              {pair.phrase}
            </p>
            <p>
              <strong>Check that your laptop shows the same words, then confirm there.</strong>
            </p>
            <p className="muted small" role="status">
              Waiting for the laptop… ({countdown(pair.expiresAt, now)})
            </p>
          </>
        )}
        {pair.step === 'done' && <p role="status">Paired. Opening your approvals…</p>}
        {pair.step === 'error' && (
          <>
            <p className="error" role="alert">
              {pair.message}
            </p>
            {code && (
              <button type="button" className="btn" onClick={() => resetPairing()}>
                Try again
              </button>
            )}
          </>
        )}
      </div>
    </main>
  );
}
