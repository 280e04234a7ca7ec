// `perch serve`'s entry: dist/serve.js, which bin/perch.js runs for `perch serve`. A small bundle (no hub in it): it
// opens the database, binds the port and prints the ready line (cli/serve-front.ts), then loads the hub's bundle
// dist/serve-hub.js (cli/serve-hub-main.ts), which serves the requests that came meanwhile. Anything else (--help,
// bad input, a listener for containers, a problem at start) is the hub bundle's `perch serve` from the start
// (docs/performance.md, "Cold start"; docs/architecture.md, "Start sequence").
import path from 'node:path';
import { readServeOptions } from './serve-options';
import { serveReadyFirst, type HubPart } from './serve-front';

interface HubBundle extends HubPart {
  main(argv: string[]): Promise<void>;
}

/** argv from `serve` on; load: how bin/perch.js loads a bundle (with its V8 code cache), or require. */
export async function main(argv: string[], load: (file: string) => unknown = require): Promise<void> {
  const hubBundle = () => load(path.join(__dirname, 'serve-hub.js')) as HubBundle;
  const options = argv[0] === 'serve' && !asksForHelp(argv) ? optionsOf(argv.slice(1)) : undefined;
  if (options && (await serveReadyFirst(options, async () => hubBundle()))) return;
  return hubBundle().main(argv);
}

/** The options when they are all well-formed; else undefined (the command itself reports what is wrong). */
function optionsOf(argv: string[]) {
  try {
    return readServeOptions(argv, (message) => new Error(message));
  } catch {
    return undefined;
  }
}

function asksForHelp(argv: string[]): boolean {
  for (const a of argv) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}
