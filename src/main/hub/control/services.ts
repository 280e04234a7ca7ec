// What the control area keeps for one hub, as typed fields, on top of identity's (src/main/hub/services.ts joins every
// area's), and the hub its modules take when they reach them. The modules that define these services (control,
// brakes, presence, review-switch, harness) are imported here, so they type the hub by the fields they reach themselves.
import type { Hub } from '../core/hub';
import type { OutsideMemo } from '../core/outside-writes';
import type { IdentityServices } from '../identity/services';
import type { Controls } from './control';
import type { Brakes } from './brakes';
import type { Presence } from './presence';
import type { HarnessSessions } from './harness';

export interface ControlServices extends IdentityServices {
  /** Every agent's pause and caps as last read, and today's usage counted in memory (hub/control/control.ts). */
  controls: Controls;
  /** The brakes' counts, paused conversations and budgets (hub/control/brakes.ts). */
  brakes: Brakes;
  /** When each agent last called and last worked, since the hub started (hub/control/presence.ts). */
  presence: Presence;
  /**
   * Whether each agent is under review, read once and kept (every send asks): dropped when the switch is set
   * (hub/features/review/review.ts setReview) and whenever another process wrote to the database (`perch agent review`
   * while the hub runs; hub/core/outside-writes.ts) (hub/control/review-switch.ts).
   */
  underReview: OutsideMemo<boolean>;
  /** Each agent's last harness status, since the hub started (hub/control/harness.ts). */
  harness: HarnessSessions;
}

/** A hub with the services of control and the areas below it. */
export type ControlHub = Hub<ControlServices>;
