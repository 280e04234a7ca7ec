// What the features keep for one hub, as typed fields, on top of talk's (src/main/hub/services.ts joins every area's),
// and the hub the features' modules (and tools/) take. The modules that define these services (requests/request-expiry,
// coordination/floor, progress/progress, retention/retention-job) are imported here, so they type the hub by the
// fields they reach themselves.
import type { Hub } from '../core/hub';
import type { RateLimiter } from '../core/rate-limit';
import type { TalkServices } from '../talk/services';
import type { RequestExpiry } from './requests/request-expiry';
import type { PromptWaits } from './requests/prompt-waits';
import type { FloorExpiry } from './coordination/floor';
import type { Retention } from './retention/retention-job';
import type { ToolUseIds } from './ledger/tool-use-ids';
import type { CursorCalls } from './ledger/cursor-calls';

export interface FeatureServices extends TalkServices {
  /** The timer that expires requests on time (hub/features/requests/request-expiry.ts). */
  requestExpiry: RequestExpiry;
  /** Which harness prompts a hook of this hub waits for, and the writes about them a full disk refused (hub/features/requests/prompt-waits.ts). */
  promptWaits: PromptWaits;
  /** The timer that ends floors on time (hub/features/coordination/floor.ts). */
  floorExpiry: FloorExpiry;
  /** At most LIMITS.progressPerSecond reports a second per agent (hub/features/progress/progress.ts). */
  progressLimiter: RateLimiter;
  /** The retention job (hub/features/retention/retention-job.ts); started by app.ts, idle until a rule exists. */
  retention: Retention;
  /** The recent tool calls' ids by what they asked, so a permission prompt finds its call (hub/features/ledger/tool-use-ids.ts). */
  toolUseIds: ToolUseIds;
  /** Cursor's open tool calls, so its after hook's result joins its permission hook's call (hub/features/ledger/cursor-calls.ts). */
  cursorCalls: CursorCalls;
}

/** A hub with the services of the features and the areas below them. */
export type FeaturesHub = Hub<FeatureServices>;
