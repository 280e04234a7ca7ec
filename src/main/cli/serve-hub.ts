// The hub's part of a `perch serve` that printed its ready line first (cli/serve-front.ts): the hub built on the
// database and listener the front opened (app.ts startHub with StartOptions.front), taking over the requests that
// have waited since the ready line. In its own bundle (dist/serve-hub.js, with cli/serve-hub-main.ts) for bin/perch.js.
import type { RunningHub, ServeFront } from '../app';
import type { ServeOptions } from './serve-options';

export async function continueServe(o: ServeOptions, front: ServeFront): Promise<RunningHub> {
  const { startHub } = await import('../app');
  return startHub({
    dataDir: o.dataDir,
    port: front.runtime.port,
    ratePerSecond: o.rate,
    durability: o.durability,
    dailyBackups: o.dailyBackups,
    front,
  });
}
