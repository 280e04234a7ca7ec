// What `perch serve` loads before its ready line (docs/performance.md, "Cold start"): its own bundle dist/serve.js, not
// dist/cli.js with every other command (nor the hub's dist/serve-hub.js: test/cli/serve-ready-first.test.ts); not web-push or qrcode (left in node_modules, imported when a push is sent or
// a QR code drawn); and the store's worker thread starts only after the ready line. A preload (NODE_OPTIONS --require)
// records, at the hub's first write to stdout (its ready line), the files node has loaded and the workers started.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, cli, ensureBuilt, removeDataDir, sleep, startServe, tempDataDir, tempDir } from '../support/serve-harness';

const PRELOAD = `
const fs = require('node:fs');
const out = process.env.PERCH_TEST_AT_READY;
const workers = require('node:worker_threads');
const Worker = workers.Worker;
let started = 0;
workers.Worker = class extends Worker {
  constructor(...args) {
    super(...args);
    started++;
    fs.writeFileSync(out + '.workers', String(started));
  }
};
const write = process.stdout.write.bind(process.stdout);
let seen = false;
process.stdout.write = (...args) => {
  if (!seen) {
    seen = true;
    fs.writeFileSync(out, JSON.stringify({ files: Object.keys(require.cache), workers: started }));
  }
  return write(...args);
};
`;

test('perch serve reaches its ready line from dist/serve.js alone: no other command, web-push or qrcode loaded, the store worker started after it', async () => {
  ensureBuilt();
  const tmp = tempDir('perch-serve-start-');
  const preload = path.join(tmp, 'at-ready.cjs');
  fs.writeFileSync(preload, PRELOAD);
  const atReady = path.join(tmp, 'at-ready.json');
  const dir = tempDataDir();
  const served = await startServe(dir, { env: { NODE_OPTIONS: `--require ${preload}`, PERCH_TEST_AT_READY: atReady } });
  try {
    const seen = JSON.parse(fs.readFileSync(atReady, 'utf8')) as { files: string[]; workers: number };
    const rel = seen.files.map((f) => path.relative(ROOT, f));
    assert.ok(rel.includes(path.join('dist', 'serve.js')), `dist/serve.js loaded: ${rel.join(', ')}`);
    assert.ok(!rel.includes(path.join('dist', 'cli.js')), `dist/cli.js (every command) not loaded: ${rel.join(', ')}`);
    const lazy = seen.files.filter((f) => /[\\/]node_modules[\\/](web-push|qrcode)[\\/]/.test(f));
    assert.deepEqual(lazy, [], 'web-push and qrcode are not loaded to start');
    assert.equal(seen.workers, 0, 'no worker thread started before the ready line');
    // The store's worker does start once the hub is ready (bounded wait for it, not a timing).
    for (let i = 0; i < 100 && !fs.existsSync(`${atReady}.workers`); i++) await sleep(100);
    assert.equal(fs.readFileSync(`${atReady}.workers`, 'utf8'), '1', 'the store worker started after the ready line');
  } finally {
    await served.stop();
    removeDataDir(dir);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("perch serve's bundles (dist/serve.js, dist/serve-hub.js) bundle no other command, nor web-push or qrcode", () => {
  ensureBuilt();
  const bundle = ['serve.js', 'serve-hub.js'].map((f) => fs.readFileSync(path.join(ROOT, 'dist', f), 'utf8')).join('\n');
  // esbuild names each module it bundles in a comment line: `// src/main/cli/agents/agents.ts`.
  const modules = [...bundle.matchAll(/^\/\/ (\S+\.[cm]?[jt]s)$/gm)].map((m) => m[1]!);
  assert.ok(
    modules.some((m) => m.endsWith('src/main/cli/serve.ts')) && modules.some((m) => m.endsWith('src/main/cli/serve-front.ts')),
    'the bundles name their modules',
  );
  const others = modules.filter((m) =>
    /src\/main\/cli\/(agents|data|owner|channel|hook)\/|src\/main\/cli\/index\.ts|node_modules\/(web-push|qrcode)\//.test(m),
  );
  assert.deepEqual(others, []);
});

test("perch serve's code cache and the other commands' live side by side: neither bundle prunes the other's", async () => {
  const cacheDir = path.join(tempDir('perch-serve-cache-'), 'code-cache');
  const caches = () => fs.readdirSync(cacheDir).map((f) => f.replace(/[0-9a-f]{32}/, 'KEY'));
  const help = cli(['--help'], { env: { PERCH_CODE_CACHE_DIR: cacheDir } });
  assert.equal(help.code, 0, help.stderr);
  assert.deepEqual(caches(), ['cli-KEY.bin']);
  const dir = tempDataDir();
  const served = await startServe(dir, { env: { PERCH_CODE_CACHE_DIR: cacheDir } });
  assert.equal(await served.stop(), 0, served.stderr());
  removeDataDir(dir);
  assert.deepEqual(
    caches().sort(),
    ['cli-KEY.bin', 'serve-KEY.bin', 'servehub-KEY.bin'],
    "serve wrote its own caches (its two bundles', at exit at the latest) and kept the CLI's",
  );
  const again = cli(['--help'], { env: { PERCH_CODE_CACHE_DIR: cacheDir } });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(caches().sort(), ['cli-KEY.bin', 'serve-KEY.bin', 'servehub-KEY.bin']);
});
