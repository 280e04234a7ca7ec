// Desktop notifications in a browser (sync/waiting.ts): one opt-in, kept in this browser. In the Approvals inbox a
// button offers them until they are on; Settings can turn them on and off. Not shown in the desktop app (it has OS
// notifications of its own) nor on a paired phone (Web Push: device/PairedDevice.tsx).
import { useUi } from '../../stores/ui';
import { usePairedDevice } from '../../stores/paired-device';
import { canNotifyDesktop, setDesktopNotifications } from '../../sync';
import { Icon } from '../Icon';

export function DesktopNotifyControl({ where }: { where: 'inbox' | 'settings' }) {
  const state = useUi((s) => s.desktopNotify);
  usePairedDevice((s) => s.me); // a paired phone: none
  if (!canNotifyDesktop()) return null;
  if (where === 'inbox' && state.on) return null;
  return (
    <div className="notify-control" aria-live="polite">
      {!state.on ? (
        <button type="button" className="btn" disabled={state.working} onClick={() => void setDesktopNotifications(true)}>
          <Icon name="spark" /> {state.working ? 'Turning on desktop notifications…' : 'Turn on desktop notifications'}
        </button>
      ) : (
        <p className="muted small">
          Desktop notifications are on in this browser: a new request, held item or handoff is shown while Perch is not in front.{' '}
          <button type="button" className="link" onClick={() => void setDesktopNotifications(false)}>
            Turn off
          </button>
        </p>
      )}
      {state.message && (
        <p className="error small" role="alert">
          {state.message}
        </p>
      )}
    </div>
  );
}
