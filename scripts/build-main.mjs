// Bundles the Node side: dist/cli.js (perch command and headless hub), dist/electron/{main,preload}.js.
import { build } from 'esbuild';
import fs from 'node:fs';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  packages: 'external',
  logLevel: 'warning',
};

await build({ ...common, entryPoints: ['src/main/cli/index.ts'], outfile: 'dist/cli.js' });
if (fs.existsSync('src/main/electron/main.ts')) {
  await build({ ...common, entryPoints: ['src/main/electron/main.ts'], outfile: 'dist/electron/main.js', external: ['electron'] });
  await build({ ...common, entryPoints: ['src/main/electron/preload.ts'], outfile: 'dist/electron/preload.js', external: ['electron'] });
}
