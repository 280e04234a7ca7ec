// Settings → Phone, the audit list: what devices did, refusals marked; Refresh re-reads it with the devices.
import type { DeviceAuditEntry } from '../../../../shared/features/devices';
import { usePhoneSettings } from '../../../stores/phone-settings';
import { loadDeviceAudit, loadDevices } from '../../../sync';
import { dateTimeOf } from '../../../format';

export function AuditSection() {
  const entries = usePhoneSettings((s) => s.audit);
  return (
    <section className="ph-section" aria-labelledby="ph-audit-title">
      <div className="row-between">
        <h2 id="ph-audit-title">What devices did</h2>
        <button
          type="button"
          className="btn btn-ghost btn-small"
          onClick={() => void Promise.all([loadDevices(), loadDeviceAudit()]).catch(() => {})}
        >
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
        {e.count != null && (
          <span title="Refusals of callers without a device credential in these 10 minutes, counted in one line"> × {e.count}</span>
        )}
      </td>
    </tr>
  );
}
