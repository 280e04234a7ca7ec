// Settings → Phone, pairing: the form (name, scope), the QR code and link while it waits for the phone, the phrase
// both screens show, and the outcome.
import { useEffect, useState } from 'react';
import type { DeviceScope, PairingView } from '../../../../shared/features/devices';
import { usePhoneSettings, type PairingRun } from '../../../stores/phone-settings';
import { cancelPairing, clearPairing, confirmPairing, markPairingExpired, startPairing } from '../../../sync';
import { useNow } from '../../../hooks';
import { countdown } from '../../../format';
import { BusyButton, CopyButton } from '../../common';

export function PairSection({ publicUrl }: { publicUrl: string | null }) {
  const run = usePhoneSettings((s) => s.pairing);
  return (
    <section className="ph-section" aria-labelledby="ph-pair-title">
      <h2 id="ph-pair-title">Pair a phone</h2>
      {run ? (
        <PairingPanel run={run} />
      ) : publicUrl ? (
        <PairForm />
      ) : (
        <p className="muted">Set the public URL first: the QR code carries it to the phone.</p>
      )}
    </section>
  );
}

/** The name the phone will be paired as: the owner's, if they named it here, else the one the phone sent (the hub's rule: hub/phone/pairing.ts). */
function pairingName(p: PairingView): string {
  return p.name || p.device_name || 'Phone';
}

function PairForm() {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<DeviceScope>('approvals');
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="ph-pair-form"
      aria-label="Pair a phone"
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        await startPairing(name, scope);
        setBusy(false);
      }}
    >
      <div className="field">
        <label htmlFor="ph-device-name">Name of the phone</label>
        <input
          id="ph-device-name"
          maxLength={60}
          placeholder="e.g. My phone (the phone suggests one if empty)"
          value={name}
          onChange={(e) => setName(e.target.value)}
        />
      </div>
      <fieldset className="field ph-scope">
        <legend>What it may do</legend>
        <label className="field-check">
          <input type="radio" name="ph-scope" checked={scope === 'approvals'} onChange={() => setScope('approvals')} />
          <span>
            Approvals only <span className="muted">(recommended) — see and decide requests, hand-backs and cards addressed to you</span>
          </span>
        </label>
        <label className="field-check">
          <input type="radio" name="ph-scope" checked={scope === 'full'} onChange={() => setScope('full')} />
          <span>Full owner access</span>
        </label>
        {scope === 'full' && (
          <p className="ph-warn small" role="note">
            Whoever holds this phone can read every conversation and act as you (everything but what stays on the laptop: agent keys, wake
            commands and secrets, pairing and devices).
          </p>
        )}
      </fieldset>
      <button type="submit" className="btn btn-primary" disabled={busy}>
        Show the QR code
      </button>
    </form>
  );
}

function PairingPanel({ run }: { run: PairingRun }) {
  const p = run.pairing;
  const now = useNow(1000);
  const live = p.state === 'waiting' || p.state === 'claimed';
  useEffect(() => {
    if (live && now >= p.expires_at) markPairingExpired(p.pairing_id);
  }, [live, now, p.expires_at, p.pairing_id]);

  if (p.state === 'confirmed') {
    return (
      <div className="ph-pair-result ph-ok" role="status">
        <p>
          <strong>Paired {p.device?.name ?? pairingName(p)}.</strong> It is in the list below; on the phone, turn on notifications to get
          pushes.
        </p>
        <button type="button" className="btn btn-ghost" onClick={clearPairing}>
          Pair another phone
        </button>
      </div>
    );
  }
  if (p.state === 'expired' || p.state === 'cancelled') {
    return (
      <div className="ph-pair-result" role="status">
        <p>
          <strong>{p.state === 'expired' ? 'The code expired — start again.' : 'Pairing cancelled.'}</strong>{' '}
          {p.state === 'expired' && 'A code works once, for 5 minutes.'}
        </p>
        <button type="button" className="btn btn-primary" onClick={clearPairing}>
          Start again
        </button>
      </div>
    );
  }
  return (
    <div className="ph-pairing" aria-label="Pairing">
      {p.state === 'waiting' ? (
        <WaitingForPhone run={run} left={countdown(p.expires_at, now)} />
      ) : (
        <ComparePhrase pairing={p} left={countdown(p.expires_at, now)} />
      )}
      {run.error && (
        <p className="error small" role="alert">
          Lost track of this pairing: {run.error}
        </p>
      )}
    </div>
  );
}

function TimeLeft({ left }: { left: string }) {
  return (
    <p className="ph-countdown small" aria-label="Time left">
      {left}
    </p>
  );
}

function WaitingForPhone({ run, left }: { run: PairingRun; left: string }) {
  return (
    <div className="ph-waiting">
      <img
        className="ph-qr"
        src={`data:image/svg+xml;utf8,${encodeURIComponent(run.qr_svg)}`}
        alt="QR code to pair a phone"
        width={280}
        height={280}
      />
      <div className="ph-waiting-text">
        <p>
          <strong>Scan this code with the phone&apos;s camera</strong>, or open the link on the phone:
        </p>
        <div className="ph-command">
          <code aria-label="Pairing link">{run.url}</code>
          <CopyButton text={run.url} label="Copy the pairing link" small />
        </div>
        <p className="muted small">The link works once. Send it only to yourself.</p>
        <p className="ph-wait" role="status">
          Waiting for the phone…
        </p>
        <TimeLeft left={left} />
        <button type="button" className="btn btn-ghost" onClick={() => void cancelPairing()}>
          Cancel
        </button>
      </div>
    </div>
  );
}

function ComparePhrase({ pairing, left }: { pairing: PairingView; left: string }) {
  return (
    <div className="ph-compare" role="group" aria-label="Compare the words">
      <p className="ph-phrase" aria-label="Pairing phrase">
        {pairing.phrase}
      </p>
      <p>
        <strong>The phone shows the same words — pair it.</strong>{' '}
        <span aria-label="Paired as">It will be paired as “{pairingName(pairing)}”, the name the phone shows.</span>{' '}
        {pairing.scope === 'full' ? 'It will have full owner access.' : 'It will see and decide approvals only.'}
      </p>
      <p className="muted small">If the words differ, cancel: someone else scanned the code.</p>
      <TimeLeft left={left} />
      <div className="row">
        <BusyButton className="btn btn-primary" onClick={confirmPairing}>
          It matches — pair
        </BusyButton>
        <button type="button" className="btn btn-ghost" onClick={() => void cancelPairing()}>
          Cancel
        </button>
      </div>
    </div>
  );
}
