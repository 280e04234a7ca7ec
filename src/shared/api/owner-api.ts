// The owner API contract: every action the owner (the one human) can take, with its input schema.
// Served over loopback HTTP (POST /api/owner/<action>) and Electron IPC; the UI sees only this.
import { z } from 'zod';
import { LIMITS } from '../limits';
import { PROGRESS_KINDS } from '../types';
import type { DeviceScope } from '../features/devices';
import type { ActionDefs, DeviceReach } from './owner-actions/define';
import { conversationActions } from './owner-actions/conversations';
import { coordinationActions } from './owner-actions/coordination';
import { agentActions } from './owner-actions/agents';
import { progressFileActions } from './owner-actions/progress-files';
import { reviewActions } from './owner-actions/review';
import { wakeActions } from './owner-actions/wake';
import { archiveRetentionActions } from './owner-actions/archive-retention';
import { containerActions } from './owner-actions/containers';
import { phoneDeviceActions } from './owner-actions/phone-devices';
import { brakeRuleActions } from './owner-actions/brakes-rules';
import { ledgerActions } from './owner-actions/ledger';
import type { OwnerResults } from './owner-results';

export { DEVICE_REACH, type DeviceReach } from './owner-actions/define';
export type {
  HubInfo,
  Reaction,
  Message,
  HistoryPage,
  ThreadPage,
  SearchResult,
  RequestItem,
  AgentKeyResult,
  ActivityRow,
  Activity,
  HandoffItem,
  PauseResult,
  OwnerResults,
} from './owner-results';

type Actions<T extends ActionDefs> = {
  readonly [K in keyof T]: {
    readonly device: T[K]['device'];
    readonly laptopFields: readonly string[];
    readonly description: T[K]['description'];
    readonly input: ReturnType<T[K]['input']>;
  };
};

/**
 * The actions with each input schema made on first use (the action's first call): building all of them
 * at module load was a noticeable part of a hub's cold start. Same keys, same order, same schemas.
 */
function lazyInputs<T extends ActionDefs>(defs: T): Actions<T> {
  const actions: Record<string, { device: DeviceReach; laptopFields: readonly string[]; description: string; input: z.ZodType }> = {};
  for (const [name, def] of Object.entries(defs)) {
    let made: z.ZodType | undefined;
    actions[name] = {
      device: def.device,
      laptopFields: def.laptopFields ?? [],
      description: def.description,
      get input() {
        return (made ??= def.input());
      },
    };
  }
  return actions as Actions<T>;
}

/** Every action, in contract order (the order of the docs, the CLI and deviceActions): each area's declarations in turn. */
export const OWNER_ACTIONS = lazyInputs({
  ...conversationActions,
  ...coordinationActions,
  ...agentActions,
  ...progressFileActions,
  ...reviewActions,
  ...wakeActions,
  ...archiveRetentionActions,
  ...containerActions,
  ...phoneDeviceActions,
  ...brakeRuleActions,
  ...ledgerActions,
});

export type OwnerAction = keyof typeof OWNER_ACTIONS;

export function isOwnerAction(action: string): action is OwnerAction {
  return Object.hasOwn(OWNER_ACTIONS, action);
}

/** Which devices may call this action (DEVICE_REACH); an unknown action is laptop-only. */
export function deviceReachOf(action: string): DeviceReach {
  return isOwnerAction(action) ? OWNER_ACTIONS[action].device : 'laptop';
}

/** The input fields of an action that only the laptop may send (a device sending one is refused); none for most. */
export function deviceLaptopFields(action: string): readonly string[] {
  return isOwnerAction(action) ? OWNER_ACTIONS[action].laptopFields : [];
}

/** The owner actions a device of this scope may call, in contract order. */
export function deviceActions(scope: DeviceScope): OwnerAction[] {
  return (Object.keys(OWNER_ACTIONS) as OwnerAction[]).filter((a) => {
    const reach = OWNER_ACTIONS[a].device;
    return reach === 'approvals' || (reach === 'full' && scope === 'full');
  });
}

/** The largest HTTP body an action takes (bytes): LIMITS.maxBodyBytes, but a file's base64 for files.send (as send_file's). */
export function ownerBodyLimit(action: string): number {
  return action === 'files.send' ? LIMITS.maxFileBodyBytes : LIMITS.maxBodyBytes;
}
/** What a caller sends for an action. */
export type OwnerInput<A extends OwnerAction> = z.input<(typeof OWNER_ACTIONS)[A]['input']>;
/** What the action's handler receives: the input after its schema parsed it. */
export type OwnerArgs<A extends OwnerAction> = z.output<(typeof OWNER_ACTIONS)[A]['input']>;
/** What an action answers with (the value of {ok: true, value}); the server's handlers and the UI share it. */
export type OwnerResult<A extends OwnerAction> = OwnerResults[A];

/** The answer over HTTP and IPC: the action's result, or an error the owner can act on. */
export type OwnerReply<T = unknown> = { ok: true; value: T } | { ok: false; error: { code: string; message: string; next_step: string } };

export {
  OWNER_API_PREFIX,
  OWNER_EVENTS_PATH,
  OWNER_LOGIN_PATH,
  OWNER_SESSION_PATH,
  OWNER_LOGOUT_PATH,
  OWNER_SESSION_STORAGE_KEY,
} from './owner-paths';

export { PROGRESS_KINDS };
