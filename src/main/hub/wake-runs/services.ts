// What the wake-runs area keeps for one hub, as a typed field, on top of the features' (src/main/hub/services.ts
// joins every area's), and the hub its modules take when they reach it.
import type { Hub } from '../core/hub';
import type { FeatureServices } from '../features/services';
import type { WakeRuns } from './wake-runs';

export interface WakeServices extends FeatureServices {
  /** Wake runs (hub/wake-runs/wake-runs.ts): they run only in the hub that started them (app.ts), never in the CLI. */
  wakeRuns: WakeRuns;
}

/** A hub with the wake runs and the services of the areas below them. */
export type WakeHub = Hub<WakeServices>;
