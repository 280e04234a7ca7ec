// The entry of dist/serve-hub.js: what dist/serve.js (cli/serve-main.ts) loads after its ready line (the hub,
// continueServe), or at once for a start that goes the whole way first (main: `perch serve` as cli/serve.ts runs it,
// without trying the ready-line-first start again).
import { runCli } from './dispatch';
import { serveCommand } from './serve';

export { continueServe } from './serve-hub';

export function main(argv: string[]): Promise<void> {
  return runCli([serveCommand(false)], argv);
}
