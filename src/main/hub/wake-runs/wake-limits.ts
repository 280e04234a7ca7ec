// Wake runs, the limits across the fleet: how many runs may live at once (a hub setting; by default from the
// machine's cores and memory) and the machine's memory floor below which no new run starts. The owner's input is
// checked and refused with a clear error when bad (nothing changes then); the policy (wake-runs.ts) reads the
// settings each time a run would start, so a change made from the CLI on the file counts at once too.
import type { WakeHub } from './services';
import { HubError } from '../../../shared/errors';
import { setSetting } from '../../store/tables/talk/settings';
import { sql } from '../../store/db/db';
import { WAKE_LIMIT_RANGE, type WakeLimits } from '../../../shared/agents/wake';
import { AT_ONCE_SETTING, FLOOR_SETTING } from './wake-runs';

export interface WakeLimitsInput {
  /** Runs alive at once, at most; null: back to the machine's default. */
  at_once?: number | null;
  /** No new run starts while the machine's available memory is below this (MB); 0: no floor. */
  min_free_mb?: number;
}

function bad(message: string, next: string): never {
  throw new HubError('invalid_argument', message, next);
}

export function wakeLimits(hub: WakeHub): WakeLimits {
  return hub.services.wakeRuns.limits();
}

/** The wake runs' part of the owner's live fleet (hub/control/fleet-live.ts): their limits in brief, while they run. */
export function fleetWake(hub: WakeHub): WakeLimits | undefined {
  const w = hub.services.wakeRuns;
  return w.running ? w.limits({ brief: true }) : undefined;
}

/** Sets the limits (what is left out keeps its value); a bad value is refused and nothing changes. */
export function setWakeLimits(hub: WakeHub, input: WakeLimitsInput): WakeLimits {
  const { atOnce, floorMb } = WAKE_LIMIT_RANGE;
  if (input.at_once === undefined && input.min_free_mb === undefined)
    bad('Give at_once (runs alive at once) or min_free_mb (the memory floor), or both.', 'e.g. perch wake limits --at-once 2');
  if (
    input.at_once !== undefined &&
    input.at_once !== null &&
    !(Number.isInteger(input.at_once) && input.at_once >= atOnce.min && input.at_once <= atOnce.max)
  ) {
    bad(
      `at_once must be a whole number of runs from ${atOnce.min} to ${atOnce.max}, not ${JSON.stringify(input.at_once)}.`,
      "To stop wake runs altogether, switch the agents' wake actions off.",
    );
  }
  const machineMb = Math.floor(hub.services.wakeRuns.machine().total_bytes / (1024 * 1024));
  if (
    input.min_free_mb !== undefined &&
    !(Number.isInteger(input.min_free_mb) && input.min_free_mb >= floorMb.min && input.min_free_mb < machineMb)
  ) {
    bad(
      `min_free_mb must be a whole number of MB from 0 (no floor) to less than this machine's ${machineMb} MB, not ${JSON.stringify(input.min_free_mb)}.`,
      'e.g. 2048 keeps 2 GB free for you.',
    );
  }
  hub.write(() => {
    if (input.at_once === null) sql(hub.db, 'DELETE FROM settings WHERE key = ?').run(AT_ONCE_SETTING);
    else if (input.at_once !== undefined) setSetting(hub.db, AT_ONCE_SETTING, String(input.at_once));
    if (input.min_free_mb !== undefined) setSetting(hub.db, FLOOR_SETTING, String(input.min_free_mb));
  });
  const w = hub.services.wakeRuns;
  w.pump(); // a higher limit or a lower floor: queued runs start now
  hub.fleetChanged();
  return w.limits();
}
