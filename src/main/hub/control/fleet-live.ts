// The fleet on the owner's live stream: every change the hub learns of that touches what the owner sees of the
// agents — their list, pause, caps, review mode, today's usage, whether they wait and when they last called — is
// pushed as one hub item, { fleet: FleetLive }, within FLEET_TICK_MS, through the same stream as messages. What
// changes it: this hub's own commits (owner actions from any window or the phone, brakes, caps, the agents' calls),
// usage counted in memory, an agent starting or ending a wait, and writes by another process to the same file (the
// `perch` CLI: agent add / pause / resume / caps / review / revoke …), seen by PRAGMA data_version
// (hub/core/outside-writes.ts). Each tick builds the fleet only when something may have changed and an owner view is open
// (Bus.hasViewers), and publishes it only when it differs from the last one published (or came from outside: then the
// UI also reloads its other lists).
import type { ControlHub } from './services';
import { onCommit } from '../../store/db/db';
import { listAgents } from './agents';
import { liveControls } from './control';
import type { FleetLive } from '../../../shared/agents/agents';
import type { WakeLimits } from '../../../shared/agents/wake';

export const FLEET_TICK_MS = 200;

/**
 * The wake runs' part of the fleet (hub/wake-runs/wake-limits.ts fleetWake), given by the composition root: wake runs
 * sit above control, so the fleet asks them through this. undefined: no wake runs run in this hub.
 */
export type FleetWake = () => WakeLimits | undefined;

/** What the owner's UI shows of the agents, as one snapshot. */
export function fleetLive(hub: ControlHub, wake: FleetWake): FleetLive {
  const agents = listAgents(hub);
  const { agents: controls, today } = liveControls(hub, agents);
  const w = wake();
  return { agents, controls, today, ...(w ? { wake: w } : {}) };
}

/** Started by the running hub (app.ts, with the wake runs' part); stops when it closes. */
export function startFleetLive(hub: ControlHub, wake: FleetWake): void {
  let fromOutsideSeen = false;
  let version = hub.outside.version();
  let last = '';
  const offCommit = onCommit(hub.db, () => hub.fleetChanged());
  const unsubscribe = hub.bus.subscribe((item) => {
    if (item.kind === 'hub' && ('waiting' in item.value || 'wake_run' in item.value)) hub.fleetChanged();
  });
  const timer = setInterval(() => {
    try {
      if (!hub.db.open) return;
      const v = hub.outside.version();
      const outside = v !== version;
      version = v;
      if (outside) fromOutsideSeen = true;
      if (!hub.fleetDirty && !fromOutsideSeen) return;
      if (!hub.bus.hasViewers()) return; // nobody watches: built when someone does (it stays dirty)
      const fromOutside = fromOutsideSeen;
      hub.fleetSeen();
      fromOutsideSeen = false;
      const fleet = fleetLive(hub, wake);
      const json = JSON.stringify(fleet);
      if (!fromOutside && json === last) return;
      last = json;
      hub.bus.publish({ kind: 'hub', value: { fleet: fromOutside ? { ...fleet, outside: true } : fleet } });
    } catch {
      /* the next tick tries again */
    }
  }, FLEET_TICK_MS);
  timer.unref();
  hub.onClose(() => {
    clearInterval(timer);
    offCommit();
    unsubscribe();
  });
}
