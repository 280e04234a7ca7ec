// What the phone area keeps for one hub, as typed fields, on top of the features' (src/main/hub/services.ts joins
// every area's), and the hub its modules take when they reach them. The modules that define these services (devices,
// action-tokens, pairing, notify) are imported here, so they type the hub by the fields they reach themselves.
import type { Hub } from '../core/hub';
import type { OutsideMemo } from '../core/outside-writes';
import type { Waiters } from '../core/bus';
import type { FeatureServices } from '../features/services';
import type { ActionSecret } from './action-tokens';
import type { Notifier } from './notify';

export interface PhoneServices extends FeatureServices {
  /**
   * Whether pushes go anywhere (a push subscription or the ntfy channel), asked for every message the hub publishes
   * (hub/phone/notify.ts): kept here, dropped when this hub adds a subscription or changes the phone settings, and
   * whenever another process wrote to the database (hub/core/outside-writes.ts). Removals leave at most a stale "yes"
   * (a push job that finds nobody to send to) (hub/phone/devices.ts).
   */
  pushTargets: OutsideMemo<boolean>;
  /** The HMAC key of action tokens, read once (hub/phone/action-tokens.ts). */
  actionSecret: ActionSecret;
  /** The calls waiting for a pairing to change, by pairing id (hub/phone/pairing.ts). */
  pairingWaits: Waiters;
  /** Push notices to paired phones and ntfy (hub/phone/notify.ts); null where no senders were given (the CLI, tests). */
  notify: Notifier | null;
}

/** A hub with the services of phone and the areas below it. */
export type PhoneHub = Hub<PhoneServices>;
