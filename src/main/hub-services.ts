// Making a hub: the Hub (hub/core/hub.ts) and its services, built here once, each with what it uses. Every hub is made
// by createHub: the running hub (app.ts, with its wake launcher and push senders), the `perch` CLI, tests, the
// benchmark. hub/ keeps no table of hubs: what an area keeps for a hub is a typed field of hub.services (HubServices,
// src/main/hub/services.ts, joining each area's services.ts), so what a service depends on shows here.
// A service's constructor does no work that needs closing (hub.onClose): what runs in the background starts later
// (app.ts BACKGROUND_JOBS, start()), so that it stops before the database closes.
import { Hub, type HubOptions } from './hub/core/hub';
import type { HubServices, PerchHub } from './hub/services';
import { ownKeyCache } from './hub/identity/identities';
import { scopedKeyCache } from './hub/identity/agent-keys';
import { RunKeys } from './hub/identity/run-keys';
import { KeyWaits } from './hub/identity/key-waits';
import { Controls } from './hub/control/control';
import { Brakes } from './hub/control/brakes';
import { Presence } from './hub/control/presence';
import { reviewSwitchCache } from './hub/control/review-switch';
import { archivedCountCache } from './hub/talk/archive';
import { HarnessSessions } from './hub/control/harness';
import { userIdCache } from './hub/talk/access';
import { Delivery } from './hub/talk/delivery';
import { RequestExpiry } from './hub/features/requests/request-expiry';
import { PromptWaits } from './hub/features/requests/prompt-waits';
import { ToolUseIds } from './hub/features/ledger/tool-use-ids';
import { CursorCalls } from './hub/features/ledger/cursor-calls';
import { FloorExpiry } from './hub/features/coordination/floor';
import { progressLimiter } from './hub/features/progress/progress';
import { Retention, type RetentionOptions } from './hub/features/retention/retention-job';
import { pushTargetsCache } from './hub/phone/devices';
import { pairingWaiters } from './hub/phone/pairing';
import { ActionSecret } from './hub/phone/action-tokens';
import { Notifier, type NotifyOptions, type NotifySenders } from './hub/phone/notify';
import { WakeRuns, type WakeOptions } from './hub/wake-runs/wake-runs';
import type { WakeLauncher } from './hub/wake-runs/launcher';

/** What a hub's services use from outside hub/: given by the running hub (app.ts); the CLI and tests give none. */
export interface ServiceDeps {
  /** Wake runs' launcher (src/main/launcher/runner.ts) and timings; without it, no run ever starts. */
  wake?: { launcher: WakeLauncher; options?: WakeOptions };
  /** Push senders (src/main/push/*); without them, no notice is sent. */
  notify?: { senders: NotifySenders; options?: NotifyOptions };
  /** The retention job's step sizes and timings (tests); it runs only once app.ts starts it. */
  retention?: RetentionOptions;
}

/** The hub's services, built once, in the order of the areas (core › identity › control › talk › features › phone, wake-runs). */
export function hubServices(hub: PerchHub, deps: ServiceDeps = {}): HubServices {
  return {
    // identity
    ownKeys: ownKeyCache(hub.outside),
    scopedKeys: scopedKeyCache(hub.outside),
    runKeys: new RunKeys(),
    keyWaits: new KeyWaits(),
    placeRefusals: new Set(),
    // control
    controls: new Controls(hub),
    brakes: new Brakes(hub),
    presence: new Presence(),
    underReview: reviewSwitchCache(hub.outside),
    archivedCount: archivedCountCache(hub.outside),
    harness: new HarnessSessions(),
    // talk
    userIds: userIdCache(hub.outside),
    delivery: new Delivery(),
    // features
    requestExpiry: new RequestExpiry(hub),
    promptWaits: new PromptWaits(),
    toolUseIds: new ToolUseIds(),
    cursorCalls: new CursorCalls(),
    floorExpiry: new FloorExpiry(hub),
    progressLimiter: progressLimiter(),
    retention: new Retention(hub, deps.retention),
    // phone
    pushTargets: pushTargetsCache(hub.outside),
    actionSecret: new ActionSecret(hub),
    pairingWaits: pairingWaiters(),
    notify: deps.notify ? new Notifier(hub, deps.notify.senders, deps.notify.options) : null,
    // wake-runs
    wakeRuns: new WakeRuns(hub, deps.wake?.launcher ?? null, deps.wake?.options),
  };
}

/** A hub on an open database, with its services. */
export function createHub(opts: Omit<HubOptions<HubServices>, 'services'> & ServiceDeps): PerchHub {
  return new Hub<HubServices>({ ...opts, services: (hub) => hubServices(hub, opts) });
}
