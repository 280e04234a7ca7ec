// Makes sure better-sqlite3 is built for the runtime about to use it: `node` (tests, perch serve)
// or `electron` (npm start, npm run dist). Never run from postinstall.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const target = process.argv[2];
const require = createRequire(import.meta.url);
const stamp = path.resolve('node_modules/.perch-native-target');

function loadsInNode() {
  const r = spawnSync(process.execPath, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { encoding: 'utf8' });
  return r.status === 0;
}

if (target === 'node') {
  if (loadsInNode()) process.exit(0);
  console.log('perch: rebuilding better-sqlite3 for Node', process.versions.node);
  execFileSync('npm', ['rebuild', 'better-sqlite3'], { stdio: 'inherit' });
  if (!loadsInNode()) {
    console.error('perch: better-sqlite3 still does not load in Node; see the output above.');
    process.exit(1);
  }
  fs.writeFileSync(stamp, 'node');
} else if (target === 'electron') {
  const electronVersion = require('electron/package.json').version;
  const want = `electron-${electronVersion}`;
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) process.exit(0);
  console.log(`perch: rebuilding native modules for Electron ${electronVersion}`);
  execFileSync(
    process.platform === 'win32' ? 'npx.cmd' : 'npx',
    ['electron-rebuild', '-f', '-w', 'better-sqlite3', '-v', electronVersion],
    { stdio: 'inherit' },
  );
  fs.writeFileSync(stamp, want);
} else {
  console.error('usage: node scripts/native.mjs node|electron');
  process.exit(2);
}
