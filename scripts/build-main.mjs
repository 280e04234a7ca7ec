// Bundles the Node side: dist/cli.js (perch command and headless hub), dist/electron/{main,preload}.js, and
// beside each hub bundle the store's worker thread (background-worker.js, loaded by path: store/worker/background.ts).
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

// zod's namespace re-exports every locale (z.locales, ~400 KB of the bundle, parsed and initialized at each
// start); Perch uses only English messages (zod's default), so the bundle's locales index keeps only `en`.
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: 'export { default as en } from "./en.js";\n',
      resolveDir: path.dirname(args.path),
      loader: 'js',
    }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: true,
  // Every package stays external except zod: bundled, esbuild keeps only what Perch uses, and the hub does
  // not resolve and compile zod's ~100 files at every start (about two thirds of a cold start).
  // web-tree-sitter loads its WebAssembly beside its own files: it stays in node_modules (hub/features/rules/shell-parser.ts).
  // web-push and qrcode (with their dependencies about 370 KB, a fifth of the hub's bundle) are imported only when a
  // push is sent or a pairing QR code drawn: left in node_modules, a start does not read them.
  external: ['better-sqlite3', 'sharp', 'electron', 'web-tree-sitter', 'web-push', 'qrcode'],
  logLevel: 'warning',
  plugins: [zodEnglishOnly],
};

// The tool catalog's JSON schemas and fingerprint, computed now from the sources (src/shared/api/catalog.ts
// catalogJson()) and defined into the hub bundles: tools/list then needs no zod-to-JSON-schema work at start.
async function catalogJson() {
  const out = await build({ ...common, entryPoints: ['src/shared/api/catalog.ts'], external: [], sourcemap: false, write: false });
  const mod = { exports: {} };
  new Function('module', 'exports', 'require', out.outputFiles[0].text)(mod, mod.exports, createRequire(import.meta.url));
  return JSON.stringify(mod.exports.catalogJson());
}
common.define = { __PERCH_CATALOG_JSON__: JSON.stringify(await catalogJson()) };

const worker = 'src/main/store/worker/background-worker.ts';
// No import() left in dist/cli.js (esbuild makes them require()): bin/perch.js runs it as a vm.Script (to use
// V8's code cache), where a real import() would have no module loader.
await build({ ...common, entryPoints: ['src/main/cli/index.ts'], outfile: 'dist/cli.js', supported: { 'dynamic-import': false } });
// `perch serve` alone (bin/perch.js loads it instead of dist/cli.js), in two bundles: dist/serve.js, read and
// compiled by every start of a hub before its ready line (the database, the port, the ready line; no hub), and
// dist/serve-hub.js, the hub and its doors, loaded after it (cli/serve-main.ts).
// better-sqlite3's JavaScript is bundled into dist/serve.js (its compiled addon stays in node_modules, loaded by path:
// store/db/db.ts): resolving and reading its dozen files one by one was a noticeable part of the time to the ready line.
await build({
  ...common,
  entryPoints: ['src/main/cli/serve-main.ts'],
  outfile: 'dist/serve.js',
  external: common.external.filter((m) => m !== 'better-sqlite3'),
  supported: { 'dynamic-import': false },
});
await build({
  ...common,
  entryPoints: ['src/main/cli/serve-hub-main.ts'],
  outfile: 'dist/serve-hub.js',
  supported: { 'dynamic-import': false },
});
// `perch hook ...` alone (bin/perch.js loads it instead of dist/cli.js): a harness waits for it at every prompt.
await build({ ...common, entryPoints: ['src/main/cli/hook/hook.ts'], outfile: 'dist/hook.js', supported: { 'dynamic-import': false } });
// `perch channel` alone: Claude Code starts it with every session.
await build({
  ...common,
  entryPoints: ['src/main/cli/channel/channel.ts'],
  outfile: 'dist/channel.js',
  supported: { 'dynamic-import': false },
});
await build({ ...common, entryPoints: [worker], outfile: 'dist/background-worker.js' });
if (fs.existsSync('src/main/electron/main.ts')) {
  await build({ ...common, entryPoints: ['src/main/electron/main.ts'], outfile: 'dist/electron/main.js' });
  await build({ ...common, entryPoints: [worker], outfile: 'dist/electron/background-worker.js' });
  await build({ ...common, entryPoints: ['src/main/electron/preload.ts'], outfile: 'dist/electron/preload.js' });
}
