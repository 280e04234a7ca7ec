// The container listener as a switch the owner turns in the app (Settings → Agents in containers; owner actions
// containers.get / containers.set): saved in the settings, and the listeners on this computer's container bridges
// (listeners.ts) started or stopped on the running hub, no restart. `perch serve --containers` turns it on for one
// run whatever the setting; addresses given with --listen are not the switch's (they run as long as the hub).
import type http from 'node:http';
import type { Db } from './store/db/db';
import type { PerchHub } from './hub/services';
import type { ContainerSwitch } from './hub/core/doors';
import type { McpHandler } from './mcp/endpoint';
import type { ContainersState } from '../shared/agents/places';
import { setSetting } from './store/tables/talk/settings';
import { CONTAINERS_SETTING, containersSettingOn } from './store/tables/talk/start-settings';
import { containerBridges, startExtraListeners, type ListenerInfo, type ServerLimits } from './listeners';

export { containersSettingOn };

/** The switch of a hub without a container listener door (a hub made for tests, the CLI): the setting only. */
export function containersStateOffline(db: Db): ContainersState {
  return { on: containersSettingOn(db), forced: false, listeners: [], container_mcp_url: null, bridges: containerBridges(), note: null };
}

/** Saves the setting on a hub without a container listener door (it takes effect when a hub with one starts). */
export function setContainersOffline(hub: PerchHub, on: boolean): ContainersState {
  hub.write(() => setSetting(hub.db, CONTAINERS_SETTING, on ? 'on' : 'off'));
  return containersStateOffline(hub.db);
}

export interface RunningSwitch extends ContainerSwitch {
  /** The listeners running now (for the ready line and runtime.json at start). */
  listeners(): ListenerInfo[];
  /** What the last start said (no bridge found, a bridge skipped). */
  notes(): string[];
  close(): Promise<void>;
}

function closeAll(servers: http.Server[]): Promise<void> {
  return Promise.all(
    servers.map(
      (srv) =>
        new Promise<void>((resolve) => {
          srv.close(() => resolve());
          srv.closeAllConnections();
        }),
    ),
  ).then(() => undefined);
}

/** The switch of a running hub; starts the listeners now when the setting (or `forced`) says so. */
export async function startContainerSwitch(o: {
  hub: PerchHub;
  mcp: McpHandler;
  hooks: McpHandler;
  port: number;
  limits: ServerLimits;
  forced: boolean;
  byHand: readonly string[];
}): Promise<RunningSwitch> {
  let servers: http.Server[] = [];
  let infos: ListenerInfo[] = [];
  let notes: string[] = [];
  let busy: Promise<unknown> = Promise.resolve();
  const start = async () => {
    if (servers.length) return;
    const r = await startExtraListeners({
      hub: o.hub,
      mcp: o.mcp,
      hooks: o.hooks,
      port: o.port,
      limits: o.limits,
      containers: true,
      listen: [],
      skip: o.byHand,
    });
    servers = r.servers;
    infos = r.listeners;
    notes = r.notes;
    o.hub.doors.containersListening(infos[0]?.container_mcp_url ?? null);
  };
  const stop = async () => {
    const old = servers;
    servers = [];
    infos = [];
    notes = [];
    o.hub.doors.containersListening(null);
    await closeAll(old);
  };
  const state = (): ContainersState => ({
    on: containersSettingOn(o.hub.db),
    forced: o.forced,
    listeners: infos.map((l) => ({ url: l.url, via: l.via ?? '' })),
    container_mcp_url: infos[0]?.container_mcp_url ?? null,
    bridges: containerBridges(),
    note: notes[0] ?? null,
  });
  let enabled = o.forced || containersSettingOn(o.hub.db);
  if (enabled) await start();
  return {
    state,
    set(on) {
      // One change at a time: a second waits for the first (listening and closing are asynchronous).
      const next = busy.then(async () => {
        o.hub.write(() => setSetting(o.hub.db, CONTAINERS_SETTING, on ? 'on' : 'off'));
        enabled = on || o.forced;
        if (on || o.forced) await start();
        else await stop();
        return state();
      });
      busy = next.catch(() => undefined);
      return next;
    },
    enabled: () => enabled,
    listeners: () => infos,
    notes: () => notes,
    close: stop,
  };
}
