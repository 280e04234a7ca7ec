// Bundles the Node side: dist/cli.js (perch command and headless hub), dist/electron/{main,preload}.js, and
// beside each hub bundle the store's worker thread (background-worker.js, loaded by path: store/background.ts).
import { build } from 'esbuild';
import fs from 'node:fs';

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  // Every package stays external except zod: bundled, esbuild keeps only what Perch uses, and the hub does
  // not resolve and compile zod's ~100 files at every start (about two thirds of a cold start).
  external: ['better-sqlite3', 'sharp', 'electron'],
  logLevel: 'warning',
};

const worker = 'src/main/store/background-worker.ts';
await build({ ...common, entryPoints: ['src/main/cli/index.ts'], outfile: 'dist/cli.js' });
await build({ ...common, entryPoints: [worker], outfile: 'dist/background-worker.js' });
if (fs.existsSync('src/main/electron/main.ts')) {
  await build({ ...common, entryPoints: ['src/main/electron/main.ts'], outfile: 'dist/electron/main.js' });
  await build({ ...common, entryPoints: [worker], outfile: 'dist/electron/background-worker.js' });
  await build({ ...common, entryPoints: ['src/main/electron/preload.ts'], outfile: 'dist/electron/preload.js' });
}
