// Settings → Phone: how a phone reaches this hub (the public URL of an HTTPS front such as
// tailscale serve), pairing a phone by QR code with a phrase both screens show, the paired devices (revoke,
// test push), what pushes carry, the optional ntfy channel, and the audit list of what devices did. Each section is a
// component in phone/; this page composes them.
import { useEffect } from 'react';
import { usePhoneSettings } from '../../stores/phone-settings';
import { useLaptopOnly } from '../../stores/paired-device';
import { OnTheLaptop } from '../common';
import { loadDeviceAudit, loadDevices, loadPhonePage } from '../../sync';
import { SettingsNav } from './SettingsPage'; // Settings → Phone
import { PublicUrlSection } from './phone/PublicUrlSection';
import { PairSection } from './phone/PairSection';
import { DevicesSection } from './phone/DevicesSection';
import { PushSection } from './phone/PushSection';
import { NtfySection } from './phone/NtfySection';
import { AuditSection } from './phone/AuditSection';

export function PhonePage() {
  // Phone settings, pairing and the devices are the laptop's (owner actions phone.* and devices.*): a paired phone
  // loads none of them and says where they are.
  const onLaptopOnly = useLaptopOnly('phone.get');
  return onLaptopOnly ? <PhonePageOnDevice /> : <PhonePageOnLaptop />;
}

function PhonePageHead() {
  return (
    <header className="page-head">
      <h1>Phone</h1>
      <SettingsNav current="phone" />
      <p className="muted">
        Approve, reject and answer your agents from your phone. The hub keeps listening on this computer only; your phone reaches it through
        an HTTPS front you run (tailscale serve), and holds its own credential that you can revoke at any time.
      </p>
    </header>
  );
}

function PhonePageOnDevice() {
  return (
    <div className="page phone-page">
      <PhonePageHead />
      <OnTheLaptop>Pairing, devices and push settings are managed on the laptop.</OnTheLaptop>
    </div>
  );
}

function PhonePageOnLaptop() {
  const settings = usePhoneSettings((s) => s.settings);
  const loadError = usePhoneSettings((s) => s.loadError);
  useEffect(() => {
    void loadPhonePage();
    // Last use and the audit list change while the page is open: re-read them now and then (bounded by the page's life).
    const t = setInterval(() => void Promise.all([loadDevices(), loadDeviceAudit()]).catch(() => {}), 30_000);
    return () => clearInterval(t);
  }, []);
  return (
    <div className="page phone-page">
      <PhonePageHead />
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
