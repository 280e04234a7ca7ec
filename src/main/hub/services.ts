// The hub's services, declared once: every area's typed fields (each area's services.ts, lowest first: identity ›
// control › talk › features › phone, wake-runs), joined. The composition root builds them (src/main/hub-services.ts
// createHub, called by app.ts, the CLI, tests and the benchmark); the doors take the whole hub, `PerchHub`.
import type { Hub } from './core/hub';
import type { PhoneServices } from './phone/services';
import type { WakeServices } from './wake-runs/services';

export interface HubServices extends PhoneServices, WakeServices {}

/** The hub with all its services, as the composition root builds it and the doors use it. */
export type PerchHub = Hub<HubServices>;
