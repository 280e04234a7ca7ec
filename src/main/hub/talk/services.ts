// What the talk area keeps for one hub, as typed fields, on top of control's (src/main/hub/services.ts joins every
// area's), and the hub its modules take when they reach them. The modules that define these services (access,
// archive, delivery) are imported here, so they type the hub by the fields they reach themselves.
import type { Hub } from '../core/hub';
import type { OutsideMemo } from '../core/outside-writes';
import type { ControlServices } from '../control/services';
import type { Delivery } from './delivery';

export interface TalkServices extends ControlServices {
  /**
   * User ids by the exact name or id a caller gave (send_message's `to` names members on every call): users are never
   * deleted and never renamed, so a known answer stays right; unknown names are asked again. Dropped anyway when
   * another process writes the file (hub/core/outside-writes.ts) (hub/talk/access.ts).
   */
  userIds: OutsideMemo<string>;
  /**
   * How many conversations are archived, read once and kept: while none is (the usual case), the archived gate asks
   * nothing of the database on an agent's write. Dropped when this hub archives or unarchives, and whenever another
   * process wrote to the database (`perch conv archive` on the file; hub/core/outside-writes.ts) (hub/talk/archive.ts).
   */
  archivedCount: OutsideMemo<number>;
  /** The last ack made per position (hub/talk/delivery.ts). */
  delivery: Delivery;
}

/** A hub with the services of talk and the areas below it. */
export type TalkHub = Hub<TalkServices>;
