// The owner's review switch, as the gates read it: whether an agent is under review mode (its words are held for the
// owner, hub/features/review/review.ts). Kept here, with the other owner controls, so that the agent gates
// (hub/talk/gates.ts) can read it; what holding does lives with the feature.
import type { Hub } from '../core/hub';
import { isUnderReview } from '../../store/tables/talk/held';
import { OutsideMemo, type OutsideWrites } from '../core/outside-writes';

declare module '../core/hub' {
  interface HubServices {
    /**
     * Whether each agent is under review, read once and kept (every send asks): dropped when the switch is set
     * (hub/features/review/review.ts setReview) and whenever another process wrote to the database (`perch agent review`
     * while the hub runs; hub/core/outside-writes.ts).
     */
    underReview: OutsideMemo<boolean>;
  }
}

/** The cache of review switches, as the composition root makes it. */
export function reviewSwitchCache(outside: OutsideWrites): OutsideMemo<boolean> {
  return new OutsideMemo(outside);
}

/** Whether the agent is under review mode now. */
export function reviewOn(hub: Hub, agentId: string): boolean {
  return hub.services.underReview.get(agentId, () => isUnderReview(hub.db, agentId))!;
}
