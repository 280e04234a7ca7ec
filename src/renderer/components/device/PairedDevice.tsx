// The phone: the bottom bar of the phone layout (below 700 px), the /pair page, "Turn on notifications"
// for a paired phone, and the request page a notification opens (/r/<request_id>).
import { useState } from 'react';
import { usePairedDevice } from '../../stores/paired-device';
import { useRequests } from '../../stores/requests';
import { useUi } from '../../stores/ui';
import { useShallow } from 'zustand/react/shallow';
import { useSession } from '../../stores/session';
import {
  boot,
  defaultDeviceName,
  enableNotifications,
  forgetThisPhone,
  handBackFromPhone,
  hrefOf,
  openView,
  pairThisDevice,
  resetPairing,
} from '../../sync';
import { useNow } from '../../hooks';
import { ago, countdown } from '../../format';
import type { HandoffItem } from '../../../shared/api/owner-api';
import { RequestCard } from '../conversation/RequestCard';
import { Icon } from '../Icon';

/** The phone layout's bottom bar: Approvals / Conversations / Fleet (a device of scope approvals: Approvals only). */
export function BottomBar() {
  const view = useUi((s) => s.view);
  const scope = usePairedDevice((s) => s.me?.scope);
  const pending = useUi((s) => s.waitingCount); // what waits for the owner (sync/waiting.ts)
  const tabs: Array<{ name: 'approvals' | 'conversations' | 'fleet'; label: string; icon: string; active: boolean }> = [
    { name: 'approvals', label: 'Approvals', icon: 'approvals', active: view.name === 'approvals' || view.name === 'request' },
  ];
  if (scope !== 'approvals') {
    tabs.push({
      name: 'conversations',
      label: 'Conversations',
      icon: 'thread',
      active: view.name === 'conversations' || view.name === 'conversation',
    });
    tabs.push({ name: 'fleet', label: 'Fleet', icon: 'fleet', active: view.name === 'fleet' || view.name === 'agents' });
  }
  if (tabs.length < 2) return null; // one place only: no bar
  return (
    <nav className="bottombar" aria-label="Sections">
      {tabs.map((t) => (
        <a
          key={t.name}
          href={hrefOf({ name: t.name })}
          className={`bottombar-item ${t.active ? 'active' : ''}`}
          aria-current={t.active ? 'page' : undefined}
        >
          <span className="bottombar-icon" aria-hidden="true">
            <Icon name={t.icon} size={20} />
            {t.name === 'approvals' && pending > 0 && <span className="count count-strong bottombar-count">{pending}</span>}
          </span>
          <span className="bottombar-label">{t.label}</span>
          {t.name === 'approvals' && pending > 0 && <span className="sr-only">{pending} pending</span>}
        </a>
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
        <p className="muted">
          {loaded ? 'This request is not in your inbox: it may have been withdrawn, or it is not addressed to you.' : 'Loading…'}
        </p>
      )}
    </div>
  );
}

/** "Turn on notifications" for a paired phone, with what happened. */
export function NotificationsControl() {
  const me = usePairedDevice((s) => s.me);
  const push = usePairedDevice((s) => s.push);
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

/**
 * A paired phone's own small menu (device mode, either scope): which device this is, and "Forget this phone" with a
 * confirm step. It stands where the laptop's "Sign out" would (a phone has no owner session to sign out of).
 */
export function PairedDeviceMenu() {
  const me = usePairedDevice((s) => s.me);
  const [open, setOpen] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!me) return null;
  return (
    <div className="phone-menu">
      <button
        type="button"
        className="btn btn-ghost phone-menu-button"
        aria-expanded={open}
        aria-controls="phone-menu-panel"
        onClick={() => {
          setOpen(!open);
          setConfirming(false);
        }}
      >
        <Icon name="config" /> This phone
      </button>
      {open && (
        <div id="phone-menu-panel" className="phone-menu-panel" role="group" aria-label="This phone">
          <p className="small">
            Paired as <strong>{me.name}</strong> · {me.scope === 'approvals' ? 'approvals only' : 'full access'}
          </p>
          {!confirming ? (
            <button type="button" className="btn btn-danger-ghost" onClick={() => setConfirming(true)}>
              Forget this phone
            </button>
          ) : (
            <div className="phone-forget-confirm" role="alertdialog" aria-label="Forget this phone?">
              <p>
                <strong>Forget this phone?</strong> It stops showing requests and notifications here. To use it again, pair it from the
                laptop (Settings → Phone). The laptop lists it until you revoke it there.
              </p>
              <div className="row">
                <button
                  type="button"
                  className="btn btn-danger"
                  disabled={busy}
                  onClick={() => {
                    setBusy(true);
                    void forgetThisPhone();
                  }}
                >
                  Yes, forget this phone
                </button>
                <button type="button" className="btn" disabled={busy} onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </div>
            </div>
          )}
        </div>
      )}
    </div>
  );
}

/**
 * What a phone shows with no pairing: after "Forget this phone", or when it opens the hub through the HTTPS front
 * (where login links do not work) before it was paired: how to pair it.
 */
export function ForgottenDevice({ forgot = true }: { forgot?: boolean }) {
  return (
    <main className="signin" aria-labelledby="signin-title">
      <div className="signin-card">
        <img src="./favicon.svg" alt="" width={64} height={64} />
        <h1 id="signin-title">This phone is not paired</h1>
        <p role="status">
          {forgot
            ? 'This phone forgot its pairing. To approve from it again:'
            : 'To approve and answer your agents from this phone, pair it with the laptop:'}
        </p>
        <ol className="pair-steps">
          <li>On the laptop, open Perch → Settings → Phone → Pair a phone.</li>
          <li>Scan the QR code with this phone and tap Pair.</li>
          <li>Check both screens show the same words, then confirm on the laptop.</li>
        </ol>
      </div>
    </main>
  );
}

/**
 * Handoffs waiting for the owner, on a device of scope approvals (it cannot open conversations): who handed off,
 * the note, the conversation's title, and "Hand back" with a required note.
 */
export function PairedDeviceHandoffs() {
  const ownerId = useSession((s) => s.info?.owner.id);
  const items = usePairedDevice(useShallow((s) => s.handoffs.filter((h) => h.to.id === ownerId)));
  if (items.length === 0) return null;
  return (
    <section className="handed-list phone-handoffs" aria-label="Handed to you">
      <h2>Handed to you</h2>
      {items.map((h) => (
        <PhoneHandoff key={`${h.conv_id}:${h.agent.id}`} h={h} />
      ))}
    </section>
  );
}

function PhoneHandoff({ h }: { h: HandoffItem }) {
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const now = useNow(30_000);
  const fieldId = `handback-${h.conv_id}-${h.agent.id}`;
  return (
    <article className="phone-handoff" aria-label={`Handoff from ${h.agent.name}: ${h.title}`}>
      <p className="phone-handoff-head">
        <strong>{h.agent.name}</strong> handed you <strong className="phone-handoff-title">{h.title}</strong>{' '}
        <span className="muted small">· {ago(h.at, now)}</span>
      </p>
      <p className="phone-handoff-note">{h.note}</p>
      <form
        className="phone-handoff-form"
        onSubmit={async (e) => {
          e.preventDefault();
          if (!note.trim() || busy) return;
          setBusy(true);
          const r = await handBackFromPhone(h.conv_id, h.agent.id, note.trim());
          setBusy(false);
          if (r) setNote('');
        }}
      >
        <label htmlFor={fieldId}>Note for {h.agent.name}</label>
        <textarea
          id={fieldId}
          rows={2}
          placeholder={`What should ${h.agent.name} know?`}
          value={note}
          onChange={(e) => setNote(e.target.value)}
          required
        />
        <button type="submit" className="btn btn-primary" disabled={busy || !note.trim()}>
          {busy ? 'Handing back…' : 'Hand back'}
        </button>
      </form>
    </article>
  );
}

/** The /pair page: name this phone, claim the code, compare the phrase with the laptop, wait for the confirmation. */
export function PairPage() {
  const pair = usePairedDevice((s) => s.pair);
  const code = usePairedDevice((s) => s.code);
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
            <p aria-label="Paired as">This phone will be paired as “{pair.name}”, the name the laptop shows.</p>
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
