#!/usr/bin/env node
'use strict';
// The perch command. The TypeScript sources are built into dist/ by `npm install` (prepare) or `npm run build`.
const path = require('node:path');
const fs = require('node:fs');
const entry = path.join(__dirname, '..', 'dist', 'cli.js');
// `perch hook ...` runs at every permission prompt of a coding agent's harness: its own small bundle (node
// built-ins only) starts faster than the whole CLI. It always exits 0: a hook that fails leaves the harness's dialog.
const hookEntry = path.join(__dirname, '..', 'dist', 'hook.js');
// `perch channel` (Claude Code starts it with each session) is a bundle of its own too; it exits 1 with one stderr
// line when it cannot start (no key, key refused, hub down).
const channelEntry = path.join(__dirname, '..', 'dist', 'channel.js');
// `perch serve` too: a small bundle that opens the database, binds the port and prints the ready line, then loads
// the hub and its doors (dist/serve-hub.js, with the same code cache as this file's bundles) through loadCli.
const serveEntry = path.join(__dirname, '..', 'dist', 'serve.js');
if (process.argv[2] === 'channel' && fs.existsSync(channelEntry)) {
  require(channelEntry)
    .main(process.argv.slice(3))
    .then(
      (code) => process.exit(code),
      (err) => {
        process.stderr.write('perch channel: ' + (err && err.message ? err.message : String(err)) + '\n');
        process.exit(1);
      },
    );
} else if (process.argv[2] === 'hook' && fs.existsSync(hookEntry)) {
  require(hookEntry)
    .main(process.argv.slice(3))
    .then(
      () => process.exit(0),
      (err) => {
        process.stderr.write('perch hook: ' + (err && err.message ? err.message : String(err)) + '\n');
        process.exit(0);
      },
    );
} else if (process.argv[2] === 'serve' && fs.existsSync(serveEntry)) {
  loadCli(serveEntry)
    .main(process.argv.slice(2), loadCli)
    .catch((err) => {
      process.stderr.write('perch: ' + (err && err.stack ? err.stack : String(err)) + '\n');
      process.exit(1);
    });
} else if (!fs.existsSync(entry)) {
  process.stderr.write('perch: not built yet. Run `npm install` (or `npm run build`) in ' + path.join(__dirname, '..') + '\n');
  process.exit(2);
} else {
  loadCli(entry)
    .main(process.argv.slice(2))
    .catch((err) => {
      process.stderr.write('perch: ' + (err && err.stack ? err.stack : String(err)) + '\n');
      process.exit(1);
    });
}

/**
 * Loads dist/cli.js (or dist/serve.js) like require() does, with V8's code cache: compiling the bundle is a large part of a
 * cold start, and node 20 has no module.enableCompileCache(). The cache is one file per bundle content and
 * node version, in a directory of this user's only (mode 0700, checked; $PERCH_CODE_CACHE_DIR or the temp directory's perch-code-cache-<uid>); a cache V8 rejects is rewritten,
 * and anything wrong with it (or PERCH_CODE_CACHE=0) means a plain require(). It is written once, 1 s after
 * loading or at exit, so it holds the functions a start compiled too.
 */
function loadCli(file) {
  if (process.env.PERCH_CODE_CACHE === '0') return require(file);
  let src, cacheFile;
  try {
    src = fs.readFileSync(file, 'utf8');
    // The bundle's identity without hashing its 2 MB at every start (that was a noticeable part of a cold start): a
    // build writes a new file (another mtime, inode or size). V8 checks the cache against the source it is given too.
    const st = fs.statSync(file);
    const key = hex128([st.dev, st.ino, st.size, st.mtimeMs, src.length, process.version, process.arch].join('\0'));
    const dir = cacheDir();
    cacheFile = dir && path.join(dir, bundleName(file) + '-' + key + '.bin');
  } catch {
    return require(file);
  }
  if (!cacheFile) return require(file);
  const vm = require('node:vm');
  const Module = require('node:module');
  let cached;
  try {
    cached = fs.readFileSync(cacheFile);
  } catch {
    cached = undefined;
  }
  const script = new vm.Script(Module.wrap(src), { filename: file, cachedData: cached });
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(path.dirname(file));
  require.cache[file] = mod;
  script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(file), mod, file, path.dirname(file));
  mod.loaded = true;
  if (!cached || script.cachedDataRejected) {
    let written = false;
    const write = () => {
      if (written) return;
      written = true;
      try {
        const tmp = cacheFile + '.' + process.pid + '.tmp';
        fs.writeFileSync(tmp, script.createCachedData(), { mode: 0o600 });
        fs.renameSync(tmp, cacheFile);
        // One cache per bundle: the caches of its earlier builds (or node versions) are of no use any more.
        const dir = path.dirname(cacheFile);
        const earlier = new RegExp('^' + bundleName(file) + '-[0-9a-f]{32}\\.bin$');
        for (const name of fs.readdirSync(dir)) {
          if (earlier.test(name) && path.join(dir, name) !== cacheFile) fs.rmSync(path.join(dir, name), { force: true });
        }
      } catch {
        // A cache that cannot be written only costs the next start its compile time.
      }
    };
    setTimeout(write, 1000).unref();
    process.once('exit', write);
  }
  return mod.exports;
}

/** The name of a bundle's code cache files: cli, serve or servehub. */
function bundleName(file) {
  return path.basename(file, '.js').replace(/[^a-z]/g, '');
}

/** 32 hex digits of a string: four FNV-1a 32-bit hashes with different seeds (a file name, not a secret). */
function hex128(text) {
  let out = '';
  for (const seed of [0x811c9dc5, 0x01000193, 0x9e3779b9, 0x85ebca6b]) {
    let h = seed >>> 0;
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
    out += h.toString(16).padStart(8, '0');
  }
  return out;
}

/** $PERCH_CODE_CACHE_DIR or perch-code-cache-<uid> in the temp directory, made 0700 and owned by this user, or undefined. */
function cacheDir() {
  const os = require('node:os');
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const dir = process.env.PERCH_CODE_CACHE_DIR || path.join(os.tmpdir(), 'perch-code-cache' + (uid === undefined ? '' : '-' + uid));
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if (!err || err.code !== 'EEXIST') return undefined;
  }
  const st = fs.lstatSync(dir);
  if (!st.isDirectory()) return undefined;
  if (uid !== undefined && (st.uid !== uid || (st.mode & 0o077) !== 0)) return undefined;
  return dir;
}
