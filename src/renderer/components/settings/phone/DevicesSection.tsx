// Settings → Phone, the paired devices: last use, notifications, a test push and its result, revoke (confirmed).
import { useState } from 'react';
import type { DeviceView } from '../../../../shared/features/devices';
import { usePhoneSettings, type TestPushResult } from '../../../stores/phone-settings';
import { revokeDevice, sendTestPush } from '../../../sync';
import { useNow } from '../../../hooks';
import { ago, dateTimeOf } from '../../../format';
import { ConfirmDialog } from '../../common';

export function DevicesSection() {
  const devices = usePhoneSettings((s) => s.devices);
  const tests = usePhoneSettings((s) => s.tests);
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
                <span className={`chip ${d.scope === 'full' ? 'chip-handoff' : 'chip-working'}`}>
                  {d.scope === 'full' ? 'full access' : 'approvals only'}
                </span>
                {d.revoked && <span className="chip chip-failed">revoked</span>}
              </div>
              <p className="muted small">
                {d.revoked
                  ? `Revoked ${d.revoked_at ? dateTimeOf(d.revoked_at) : ''}`
                  : `Last used ${d.last_used_at ? ago(d.last_used_at, now) : 'never'} · notifications ${d.push ? 'on' : 'off'}`}{' '}
                · key {d.token_hint.startsWith('…') ? '' : '…'}
                {d.token_hint} · paired {dateTimeOf(d.created_at)}
              </p>
              {tests[d.id] && <TestResult r={tests[d.id]!} />}
            </div>
            {!d.revoked && (
              <div className="ph-device-actions">
                <button
                  type="button"
                  className="btn btn-ghost btn-small"
                  aria-label={`Send a test push to ${d.name}`}
                  onClick={() => void sendTestPush(d.id)}
                >
                  Send a test push
                </button>
                <button
                  type="button"
                  className="btn btn-ghost btn-small ph-revoke"
                  aria-label={`Revoke ${d.name}`}
                  onClick={() => setAsking(d)}
                >
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
