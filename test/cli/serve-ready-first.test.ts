// `perch serve` prints its ready line before the hub is built (cli/serve-front.ts): the database open, the main
// listener bound, the login token stored, runtime.json written; the hub (dist/serve-hub.js) loads after it and takes
// over the requests that came meanwhile. A preload (NODE_OPTIONS --require) records what node has loaded at the ready
// line, and holds the hub's bundle back (a bounded wait, as a loaded machine would) until the test has sent its
// requests: they must wait and be answered as by a hub that was up, never refused. Nothing here is timed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { ROOT, addAgent, ensureBuilt, removeDataDir, runtimeInfo, sleep, startServe, tempDataDir, tempDir } from '../support/serve-harness';

const PRELOAD = `
const fs = require('node:fs');
const out = process.env.PERCH_TEST_AT_READY;
const write = process.stdout.write.bind(process.stdout);
let seen = false;
process.stdout.write = (...args) => {
  if (!seen) {
    seen = true;
    fs.writeFileSync(out, JSON.stringify({ files: Object.keys(require.cache) }));
  }
  return write(...args);
};
// The hub's bundle is read (bin/perch.js loadCli) only once the test says its requests are on their way.
const readFileSync = fs.readFileSync;
fs.readFileSync = function (file, ...rest) {
  if (typeof file === 'string' && file.endsWith('serve-hub.js') && !fs.existsSync(out + '.held')) {
    fs.writeFileSync(out + '.held', '');
    const pause = new Int32Array(new SharedArrayBuffer(4));
    for (let i = 0; i < 300 && !fs.existsSync(out + '.sent'); i++) Atomics.wait(pause, 0, 0, 100);
  }
  return readFileSync.call(this, file, ...rest);
};
`;

/** Until the preload holds the hub's bundle back (it does so right after the ready line; bounded, not a timing). */
async function heldBack(atReady: string): Promise<void> {
  for (let i = 0; i < 200 && !fs.existsSync(`${atReady}.held`); i++) await sleep(50);
}

/** One request on a new connection; resolves once its bytes are handed to the kernel (sent), and with its answer. */
function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  let sent!: () => void;
  const written = new Promise<void>((r) => (sent = r));
  const answer = new Promise<{ status: number; json: any }>((resolve, reject) => {
    const req = http.request(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body), () => sent());
  });
  answer.catch(() => undefined); // awaited by the test; a hub stopped after a failed assertion resets it
  return { written, answer };
}

test('a request sent the moment the ready line appears, before the hub is loaded, waits and is answered correctly (owner API, login link, MCP)', async () => {
  ensureBuilt();
  const tmp = tempDir('perch-ready-first-');
  const preload = path.join(tmp, 'at-ready.cjs');
  fs.writeFileSync(preload, PRELOAD);
  const atReady = path.join(tmp, 'at-ready.json');
  const dir = tempDataDir();
  const agent = await addAgent(dir, 'early');
  const served = await startServe(dir, { env: { NODE_OPTIONS: `--require ${preload}`, PERCH_TEST_AT_READY: atReady } });
  try {
    const rt = runtimeInfo(served);
    assert.equal(rt.port, served.port, 'runtime.json is written by the ready line');
    const token = new URL(served.loginUrl).hash.replace(/^#token=/, '');
    const info = post(`${rt.base_url}/api/owner/hub.info`, {}, { Authorization: `Bearer ${rt.owner_token}` });
    const login = post(`${rt.base_url}/api/owner/session`, { token });
    const whoami = post(
      served.mcpUrl,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
      { Authorization: `Bearer ${agent.key}`, Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': '2025-11-25' },
    );
    await Promise.all([info.written, login.written, whoami.written]);
    await heldBack(atReady);
    assert.ok(fs.existsSync(`${atReady}.held`), 'the hub was not loaded yet when the requests were sent');
    fs.writeFileSync(`${atReady}.sent`, '');
    const [i, l, w] = await Promise.all([info.answer, login.answer, whoami.answer]);
    assert.equal(i.status, 200, JSON.stringify(i.json));
    assert.equal(i.json.value.mcp_url, served.mcpUrl);
    assert.equal(i.json.value.agents, 1);
    assert.equal(l.status, 200, `the login link printed in the ready line works: ${JSON.stringify(l.json)}`);
    assert.match(l.json.value?.session ?? l.json.session, /^[\w-]{20,}$/);
    assert.equal(w.status, 200, JSON.stringify(w.json));
    assert.equal(w.json.result?.isError ?? false, false, JSON.stringify(w.json));
    assert.match(JSON.stringify(w.json.result), /early/, "whoami answers the agent's own name");
  } finally {
    fs.writeFileSync(`${atReady}.sent`, '');
    assert.equal(await served.stop(), 0, served.stderr());
    removeDataDir(dir);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test("perch serve's ready line comes before any of the hub's modules is loaded", async () => {
  ensureBuilt();
  const tmp = tempDir('perch-ready-first-');
  const preload = path.join(tmp, 'at-ready.cjs');
  fs.writeFileSync(preload, PRELOAD);
  const atReady = path.join(tmp, 'at-ready.json');
  fs.writeFileSync(`${atReady}.sent`, ''); // the hub loads at once
  const dir = tempDataDir();
  const served = await startServe(dir, { env: { NODE_OPTIONS: `--require ${preload}`, PERCH_TEST_AT_READY: atReady } });
  try {
    const seen = JSON.parse(fs.readFileSync(atReady, 'utf8')) as { files: string[] };
    const rel = seen.files.map((f) => path.relative(ROOT, f));
    assert.ok(rel.includes(path.join('dist', 'serve.js')), `dist/serve.js loaded: ${rel.join(', ')}`);
    // esbuild names each module it bundles in a comment line: `// src/main/hub-services.ts`.
    const hubModules = seen.files
      .filter((f) => f.endsWith('.js') && fs.existsSync(f))
      .flatMap((f) => [...fs.readFileSync(f, 'utf8').matchAll(/^\/\/ (src\/main\/(?:hub-services|app|mcp\/endpoint|owner\/http)\.ts)$/gm)])
      .map((m) => m[1]);
    assert.deepEqual(hubModules, [], `no module of the hub in what was loaded at the ready line: ${rel.join(', ')}`);
    assert.ok(!rel.includes(path.join('dist', 'serve-hub.js')), 'the hub bundle is loaded after the ready line');
  } finally {
    assert.equal(await served.stop(), 0, served.stderr());
    removeDataDir(dir);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('SIGTERM at the ready line, before the hub is loaded, stops perch serve cleanly: exit 0, runtime.json removed', async () => {
  ensureBuilt();
  const tmp = tempDir('perch-ready-first-');
  const preload = path.join(tmp, 'at-ready.cjs');
  fs.writeFileSync(preload, PRELOAD);
  const atReady = path.join(tmp, 'at-ready.json');
  const dir = tempDataDir();
  const served = await startServe(dir, { env: { NODE_OPTIONS: `--require ${preload}`, PERCH_TEST_AT_READY: atReady } });
  try {
    assert.ok(fs.existsSync(path.join(dir, 'runtime.json')), 'runtime.json is written by the ready line');
    await heldBack(atReady);
    assert.ok(fs.existsSync(`${atReady}.held`), 'the hub was not loaded yet when the signal was sent');
    served.proc.kill('SIGTERM');
    fs.writeFileSync(`${atReady}.sent`, '');
    assert.equal(await served.stop(), 0, served.stderr());
    assert.ok(!fs.existsSync(path.join(dir, 'runtime.json')), 'runtime.json is removed');
  } finally {
    fs.writeFileSync(`${atReady}.sent`, '');
    await served.stop();
    removeDataDir(dir);
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
