// The owner's review switch, as the gates read it: whether an agent is under review mode (its words are held for the
// owner, hub/features/review/review.ts). Kept here, with the other owner controls, so that the agent gates
// (hub/talk/gates.ts) can read it; what holding does lives with the feature.
import type { Hub } from '../core/hub';
import type { IdentityServices } from '../identity/services';
import { isUnderReview } from '../../store/tables/talk/held';
import { OutsideMemo, type OutsideWrites } from '../core/outside-writes';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type ReviewSwitchHub = Hub<IdentityServices & { underReview: OutsideMemo<boolean> }>;

/** The cache of review switches, as the composition root makes it. */
export function reviewSwitchCache(outside: OutsideWrites): OutsideMemo<boolean> {
  return new OutsideMemo(outside);
}

/** Whether the agent is under review mode now. */
export function reviewOn(hub: ReviewSwitchHub, agentId: string): boolean {
  return hub.services.underReview.get(agentId, () => isUnderReview(hub.db, agentId))!;
}
