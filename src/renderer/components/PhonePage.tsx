// Settings → Phone: how a phone reaches this hub (the public URL of an HTTPS front such as
// tailscale serve), pairing a phone by QR code with a phrase both screens show, the paired devices (revoke,
// test push), what pushes carry, the optional ntfy channel, and the audit list of what devices did.
import { useEffect, useState, type FormEvent } from 'react';
import type { DeviceAuditEntry, DeviceScope, DeviceView, PairingView, PushContent } from '../../shared/devices';
import { usePhone, type PairingRun, type TestPushResult } from '../stores/phone';
import { useSession } from '../stores/session';
import {
  cancelPairing, clearPairing, confirmPairing, loadDeviceAudit, loadDevices, loadPhonePage, markPairingExpired, revokeDevice, saveNtfy, savePublicUrl,
  sendTestPush, setPushContent, startPairing,
} from '../sync';
import { useNow } from '../hooks';
import { ago, countdown, dateTimeOf } from '../format';
import { BusyButton, ConfirmDialog, CopyButton } from './common';
import { SettingsNav } from './SettingsPage'; // Settings → Phone

export function PhonePage() {
  const settings = usePhone((s) => s.settings);
  const loadError = usePhone((s) => s.loadError);
  useEffect(() => {
    void loadPhonePage();
    // Last use and the audit list change while the page is open: re-read them now and then (bounded by the page's life).
    const t = setInterval(() => void Promise.all([loadDevices(), loadDeviceAudit()]).catch(() => {}), 30_000);
    return () => clearInterval(t);
  }, []);
  return (
    <div className="page phone-page">
      <header className="page-head">
        <h1>Phone</h1>
        <SettingsNav current="phone" />
        <p className="muted">
          Approve, reject and answer your agents from your phone. The hub keeps listening on this computer only; your phone reaches it through an HTTPS front you run
          (tailscale serve), and holds its own credential that you can revoke at any time.
        </p>
      </header>
      {loadError && (
        <p className="error" role="alert">
          Phone settings could not be read: {loadError}
        </p>
      )}
      <PublicUrlSection publicUrl={settings?.public_url ?? null} loaded={!!settings} />
      <PairSection publicUrl={settings?.public_url ?? null} />
      <DevicesSection />
      {settings && <PushSection content={settings.push_content} />}
      {settings && <NtfySection key={JSON.stringify(settings.ntfy)} ntfy={settings.ntfy} />}
      <AuditSection />
    </div>
  );
}

// ---- public URL ---------------------------------------------------------------------------------

function PublicUrlSection({ publicUrl, loaded }: { publicUrl: string | null; loaded: boolean }) {
  const info = useSession((s) => s.info);
  const port = /:(\d+)\/?$/.exec(info?.base_url ?? '')?.[1] ?? '<port>';
  const [draft, setDraft] = useState(publicUrl ?? '');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  useEffect(() => setDraft(publicUrl ?? ''), [publicUrl]);
  const serveCmd = `tailscale serve --bg --https=443 http://127.0.0.1:${port}`;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setError(await savePublicUrl(draft));
    setSaving(false);
  };
  return (
    <section className="ph-section" aria-labelledby="ph-url-title">
      <h2 id="ph-url-title">Remote access</h2>
      <form className="ph-url-form" onSubmit={submit} aria-label="Public URL" noValidate>
        <div className="field">
          <label htmlFor="ph-public-url">Public URL of the HTTPS front</label>
          <div className="row">
            <input
              id="ph-public-url"
              type="url"
              inputMode="url"
              spellCheck={false}
              placeholder="https://laptop.tail1234.ts.net"
              value={draft}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? 'ph-url-error' : undefined}
              onChange={(e) => setDraft(e.target.value)}
            />
            <button type="submit" className="btn btn-primary" disabled={saving || !loaded}>
              Save
            </button>
          </div>
          {error && (
            <p id="ph-url-error" className="error small" role="alert">
              {error}
            </p>
          )}
        </div>
      </form>
      {publicUrl ? (
        <p className="small">
          Phones reach this hub at <code>{publicUrl}</code>. Requests through it need a paired device; loopback gives them no trust, and Tailscale Funnel (the
          public internet) is refused. Empty the field and save to turn remote access off.
        </p>
      ) : (
        <div className="ph-howto" aria-label="How to set up remote access">
          <p>
            <strong>No phone can reach this hub yet.</strong> It listens on 127.0.0.1 only, and stays so. To reach it from your phone, put it behind{' '}
            <a href="https://tailscale.com/kb/1312/serve" target="_blank" rel="noreferrer">
              tailscale serve
            </a>{' '}
            (your phone and this computer in the same tailnet). On this computer run:
          </p>
          <CommandLine text={serveCmd} />
          <p>Then see the https address it serves:</p>
          <CommandLine text="tailscale serve status" />
          <p className="muted small">Paste that https://…ts.net address above and save. Use serve, not Funnel: Perch refuses requests from the public internet.</p>
        </div>
      )}
    </section>
  );
}

function CommandLine({ text }: { text: string }) {
  return (
    <div className="ph-command">
      <code>{text}</code>
      <CopyButton text={text} label={`Copy: ${text}`} small />
    </div>
  );
}

// ---- pairing ------------------------------------------------------------------------------------

function PairSection({ publicUrl }: { publicUrl: string | null }) {
  const run = usePhone((s) => s.pairing);
  return (
    <section className="ph-section" aria-labelledby="ph-pair-title">
      <h2 id="ph-pair-title">Pair a phone</h2>
      {run ? <PairingPanel run={run} /> : publicUrl ? <PairForm /> : <p className="muted">Set the public URL first: the QR code carries it to the phone.</p>}
    </section>
  );
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
        <input id="ph-device-name" maxLength={60} placeholder="e.g. My phone (the phone suggests one if empty)" value={name} onChange={(e) => setName(e.target.value)} />
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
            Whoever holds this phone can read every conversation and act as you (everything but what stays on the laptop: agent keys, wake commands and secrets, pairing and devices).
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
          <strong>Paired {p.device?.name ?? p.device_name ?? p.name}.</strong> It is in the list below; on the phone, turn on notifications to get pushes.
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
          <strong>{p.state === 'expired' ? 'The code expired — start again.' : 'Pairing cancelled.'}</strong> {p.state === 'expired' && 'A code works once, for 5 minutes.'}
        </p>
        <button type="button" className="btn btn-primary" onClick={clearPairing}>
          Start again
        </button>
      </div>
    );
  }
  return (
    <div className="ph-pairing" aria-label="Pairing">
      {p.state === 'waiting' ? <WaitingForPhone run={run} left={countdown(p.expires_at, now)} /> : <ComparePhrase pairing={p} left={countdown(p.expires_at, now)} />}
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
      <img className="ph-qr" src={`data:image/svg+xml;utf8,${encodeURIComponent(run.qr_svg)}`} alt="QR code to pair a phone" width={280} height={280} />
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
        <strong>The phone shows the same words — pair it.</strong> {pairing.device_name && <>It calls itself “{pairing.device_name}”. </>}
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

// ---- devices ------------------------------------------------------------------------------------

function DevicesSection() {
  const devices = usePhone((s) => s.devices);
  const tests = usePhone((s) => s.tests);
  const now = useNow(30_000);
  const [asking, setAsking] = useState<DeviceView | null>(null);
  const live = devices.filter((d) => !d.revoked);
  const revoked = devices.filter((d) => d.revoked);
  return (
    <section className="ph-section" aria-labelledby="ph-devices-title">
      <h2 id="ph-devices-title">Paired devices</h2>
      {live.length === 0 && <p className="muted">No phone is paired.</p>}
      <ul className="ph-devices" aria-label="Paired devices">
        {[...live, ...revoked].map((d) => (
          <li key={d.id} className={`ph-device ${d.revoked ? 'revoked' : ''}`} aria-label={`Device ${d.name}`}>
            <div className="ph-device-info">
              <div className="row">
                <strong>{d.name}</strong>
                <span className={`chip ${d.scope === 'full' ? 'chip-handoff' : 'chip-working'}`}>{d.scope === 'full' ? 'full access' : 'approvals only'}</span>
                {d.revoked && <span className="chip chip-failed">revoked</span>}
              </div>
              <p className="muted small">
                {d.revoked
                  ? `Revoked ${d.revoked_at ? dateTimeOf(d.revoked_at) : ''}`
                  : `Last used ${d.last_used_at ? ago(d.last_used_at, now) : 'never'} · notifications ${d.push ? 'on' : 'off'}`}{' '}
                · key {d.token_hint.startsWith('…') ? '' : '…'}{d.token_hint} · paired {dateTimeOf(d.created_at)}
              </p>
              {tests[d.id] && <TestResult r={tests[d.id]!} />}
            </div>
            {!d.revoked && (
              <div className="ph-device-actions">
                <button type="button" className="btn btn-ghost btn-small" aria-label={`Send a test push to ${d.name}`} onClick={() => void sendTestPush(d.id)}>
                  Send a test push
                </button>
                <button type="button" className="btn btn-ghost btn-small ph-revoke" aria-label={`Revoke ${d.name}`} onClick={() => setAsking(d)}>
                  Revoke
                </button>
              </div>
            )}
          </li>
        ))}
      </ul>
      {asking && (
        <ConfirmDialog
          title={`Revoke ${asking.name}?`}
          confirm="Revoke"
          danger
          onCancel={() => setAsking(null)}
          onConfirm={() => {
            const id = asking.id;
            setAsking(null);
            void revokeDevice(id);
          }}
        >
          <p>Its credential stops working at once and it gets no more pushes. To use it again, pair it again.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

const WEB_PUSH_TEXT: Record<TestPushResult['web_push'], string> = {
  sent: 'Web Push: sent — check the phone.',
  no_subscription: 'Web Push: not on — on the phone, open Perch and turn on notifications.',
  gone: 'Web Push: the phone dropped its subscription (removed here); turn notifications on again on the phone.',
  failed: 'Web Push: failed.',
};
const NTFY_TEXT: Record<TestPushResult['ntfy'], string> = { sent: 'ntfy: sent.', off: '', failed: 'ntfy: failed.' };

function TestResult({ r }: { r: TestPushResult }) {
  const bad = r.web_push === 'failed' || r.ntfy === 'failed';
  return (
    <p className={`small ${bad ? 'error' : 'ph-test'}`} role="status" aria-label={`Test push result for ${r.device.name}`}>
      {WEB_PUSH_TEXT[r.web_push]} {NTFY_TEXT[r.ntfy]} {r.detail ?? ''}
    </p>
  );
}

// ---- push content and ntfy ----------------------------------------------------------------------

function PushSection({ content }: { content: PushContent }) {
  return (
    <section className="ph-section" aria-labelledby="ph-push-title">
      <h2 id="ph-push-title">What a push carries</h2>
      <p className="muted small">
        Web Push is end-to-end encrypted to the phone: the push service (Google, Apple, Mozilla) sees only its size, time and the phone&apos;s address, not the text.
      </p>
      <fieldset className="field ph-push-content">
        <legend className="sr-only">Push content</legend>
        <label className="field-check">
          <input type="radio" name="ph-push-content" checked={content === 'summary'} onChange={() => void setPushContent('summary')} />
          <span>A short summary (who asks what) — readable on the lock screen</span>
        </label>
        <label className="field-check">
          <input type="radio" name="ph-push-content" checked={content === 'ids'} onChange={() => void setPushContent('ids')} />
          <span>Only ids — the notification shows a generic line; the phone fetches the details when opened</span>
        </label>
      </fieldset>
    </section>
  );
}

function NtfySection({ ntfy }: { ntfy: { server: string; topic: string; opaque: boolean } | null }) {
  const [on, setOn] = useState(!!ntfy);
  const [server, setServer] = useState(ntfy?.server ?? 'https://ntfy.sh');
  const [topic, setTopic] = useState(ntfy?.topic ?? '');
  const [opaque, setOpaque] = useState(ntfy?.opaque ?? true);
  const [error, setError] = useState<string | null>(null);
  return (
    <section className="ph-section" aria-labelledby="ph-ntfy-title">
      <h2 id="ph-ntfy-title">ntfy (optional)</h2>
      <p className="muted small">
        If you run ntfy, Perch can also post each notice to a topic, with Approve / Reject buttons that call this hub&apos;s public URL. Unlike Web Push, the ntfy
        server reads what it carries: keep it opaque unless the server is your own.
      </p>
      <form
        className="ph-ntfy-form"
        aria-label="ntfy"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          setError(await saveNtfy(on ? { server: server.trim(), topic: topic.trim(), opaque } : null));
        }}
      >
        <label className="field-check">
          <input type="checkbox" checked={on} onChange={(e) => setOn(e.target.checked)} /> Send to ntfy
        </label>
        {on && (
          <>
            <div className="field">
              <label htmlFor="ph-ntfy-server">Server</label>
              <input id="ph-ntfy-server" type="url" spellCheck={false} value={server} onChange={(e) => setServer(e.target.value)} />
            </div>
            <div className="field">
              <label htmlFor="ph-ntfy-topic">Topic</label>
              <input id="ph-ntfy-topic" spellCheck={false} maxLength={64} placeholder="a long random name: anyone who knows it can read it" value={topic} onChange={(e) => setTopic(e.target.value)} />
            </div>
            <label className="field-check">
              <input type="checkbox" checked={opaque} onChange={(e) => setOpaque(e.target.checked)} /> Opaque: send “Perch needs you” instead of the summary, with no Approve / Reject buttons
            </label>
          </>
        )}
        {error && (
          <p className="error small" role="alert">
            {error}
          </p>
        )}
        <div>
          <button type="submit" className="btn btn-ghost">
            Save ntfy
          </button>
        </div>
      </form>
    </section>
  );
}

// ---- audit --------------------------------------------------------------------------------------

function AuditSection() {
  const entries = usePhone((s) => s.audit);
  return (
    <section className="ph-section" aria-labelledby="ph-audit-title">
      <div className="row-between">
        <h2 id="ph-audit-title">What devices did</h2>
        <button type="button" className="btn btn-ghost btn-small" onClick={() => void Promise.all([loadDevices(), loadDeviceAudit()]).catch(() => {})}>
          Refresh
        </button>
      </div>
      {entries.length === 0 ? (
        <p className="muted">No device has called this hub yet.</p>
      ) : (
        <table className="ph-audit" aria-label="Device audit">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Device</th>
              <th scope="col">Action</th>
              <th scope="col">On</th>
              <th scope="col">Outcome</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <AuditRow key={e.id} e={e} />
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function AuditRow({ e }: { e: DeviceAuditEntry }) {
  const ok = e.outcome === 'ok';
  return (
    <tr className={ok ? '' : 'ph-refused'}>
      <td>{dateTimeOf(e.at)}</td>
      <td>{e.device_name}</td>
      <td>
        <code>{e.action}</code>
      </td>
      <td className="ph-target">{e.target ?? '—'}</td>
      <td>
        {ok ? 'ok' : e.outcome.replace(/^refused:/, 'refused: ')}
        {e.count != null && <span title="Refusals of callers without a device credential in these 10 minutes, counted in one line"> × {e.count}</span>}
      </td>
    </tr>
  );
}
