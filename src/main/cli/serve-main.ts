// `perch serve` alone: the entry of dist/serve.js, which bin/perch.js runs for `perch serve` instead of dist/cli.js, so
// a hub's start reads and compiles no other command (docs/performance.md, "Cold start").
import { runCli } from './dispatch';
import { serve } from './serve';

export function main(argv: string[]): Promise<void> {
  return runCli([serve], argv);
}
