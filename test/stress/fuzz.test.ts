// Fuzz: one real `perch serve` gets a few thousand raw requests over node:net — junk methods, paths
// (percent junk, NUL, dot-dot, unicode, very long), headers (Host, Origin, Cookie, Authorization,
// Content-Length lies, Mcp-*), and bodies (random JSON-RPC, wrong types for real tools, deep nesting,
// truncation) across /mcp, the owner API and its event stream, the UI files and /files/ links, the device door,
// with and without real credentials; a quarter of them to the container listener (`--listen 127.0.0.2`, serving /mcp
// only, with the Host names containers use), where nothing but /mcp (and a genuine container file link, which junk never forges) may ever answer 200. It proves docs/design.md, "What always holds" 8: the hub never dies, never hangs on a
// request, never answers 5xx to input, and afterwards still serves a real tools/call and the UI; and the device
// audit was not flooded by the unauthenticated junk (tallied, a paired device's entries all kept).
//
// Deterministic: a fixed seed, then one random seed printed in the output (PERCH_FUZZ_SEED=<n> replays it;
// PERCH_FUZZ_VERBOSE=<kind> prints each answer to one kind of request).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { addAgent, cli, connect, ownerOk, ROOT, runtimeInfo, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { pairDeviceOnFile } from '../support/push-endpoint';
import { rawExchange, type RawAnswer } from '../support/raw-http';
import { Rng } from '../support/rng';
import { type World, type Planned, verbatim, plan, BRIDGE } from '../support/fuzz-requests';

const FIXED_SEED = 20260728;
const RANDOM_SEED = process.env.PERCH_FUZZ_SEED ? Number(process.env.PERCH_FUZZ_SEED) >>> 0 : crypto.randomInt(2 ** 31);
const REQUESTS_PER_SEED = 1500;
const CONCURRENCY = 16;
/** A request with no answer and no close within this long is a hang. */
const PER_REQUEST_TIMEOUT_MS = 12_000;
/** The hub under fuzz cuts off requests it is still reading after these (short, so lies resolve fast). */
const HUB_ENV = { PERCH_HEADERS_TIMEOUT_MS: '1500', PERCH_REQUEST_TIMEOUT_MS: '2500' };

// ---- the run -----------------------------------------------------------------------------------

let world: World;
let checker: AgentKey;
const served = useSharedServe({ args: ['--rate', '0', '--listen', BRIDGE], env: HUB_ENV }, async () => {
  const [a, b, c] = await Promise.all(['fuzzer', 'buddy', 'checker'].map((n) => addAgent(served.dataDir, uniqueName(n))));
  checker = c!;
  const boxKey = cli(['agent', 'key', 'add', a!.name, '--name', 'in-box', '--from', 'containers', '--data-dir', served.dataDir, '--json']);
  assert.equal(boxKey.code, 0, boxKey.stderr);
  const ca = await connect('v1', served.mcpUrl, a!);
  served.closeAfter(ca);
  const g = await ca.ok('create_group', { title: 'fuzz', members: [b!.name] });
  const convId = g.conversation.conv_id as string;
  const msg = await ca.ok('send_message', { conv_id: convId, text: 'hello' });
  const fileIds: string[] = [];
  const fileLinks: string[] = [];
  for (const [name, data] of [
    ['报告.txt', Buffer.from('季度报告')],
    ['a b"c.bin', Buffer.from([0, 1, 2, 3])],
  ] as const) {
    const sent = await ca.ok('send_file', { conv_id: convId, data: data.toString('base64'), name });
    fileIds.push(sent.file_id);
    fileLinks.push((await ca.ok('file_url', { conv_id: convId, file_id: sent.file_id })).url);
  }
  const rt = runtimeInfo(served);
  const login = await fetch(`${rt.base_url}/api/owner/login-link`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${rt.owner_token}`, 'Content-Type': 'application/json' },
    body: '{}',
  });
  const loginUrl = ((await login.json()) as { value: { url: string } }).value.url;
  const session = await fetch(loginUrl, { redirect: 'manual' });
  const cookie = /perch_owner=([^;]+)/.exec(session.headers.get('set-cookie') ?? '')?.[1] ?? 'none';
  world = {
    port: served.port,
    agentKey: a!.key,
    containerKey: JSON.parse(boxKey.stdout).secret,
    ownerToken: rt.owner_token,
    sessionCookie: cookie,
    convId,
    fileIds,
    fileLinks,
    names: [b!.name, b!.id, 'nobody', 'owner'],
    msgIds: [msg.msg_id ?? msg.message?.msg_id ?? 'm_nope', 'm_nope'],
    device: pairDeviceOnFile(served.dataDir, 'Fuzz phone'),
  };
  // A few calls of a real paired device: its audit entries (one row each) must all survive the junk.
  for (let i = 0; i < 3; i++) {
    const r = await fetch(`${rt.base_url}/api/owner/requests.list`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${world.device.token}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    assert.equal(r.status, 200, await r.text());
  }
});

function hubAlive(): boolean {
  if (served.proc.exitCode !== null || served.proc.signalCode !== null) return false;
  try {
    process.kill(served.proc.pid!, 0);
    return true;
  } catch {
    return false;
  }
}

test(`fuzz: the hub never dies, hangs or answers 5xx (seeds ${FIXED_SEED} and ${RANDOM_SEED}; replay with PERCH_FUZZ_SEED=${RANDOM_SEED})`, async () => {
  process.stdout.write(`# fuzz seeds: fixed ${FIXED_SEED}, random ${RANDOM_SEED} (PERCH_FUZZ_SEED=${RANDOM_SEED} replays it)\n`);
  const requests: Planned[] = verbatim(world.port).map((bytes) => ({
    kind: 'verbatim',
    bytes,
    label: `verbatim ${bytes.toString('latin1').split('\r\n')[0]}`,
  }));
  for (const seed of [FIXED_SEED, RANDOM_SEED]) {
    const r = new Rng(seed);
    const where = new Rng((seed ^ 0x5eed) >>> 0); // which requests go to the container listener (apart: r's sequence stays)
    for (let i = 0; i < REQUESTS_PER_SEED; i++) {
      const p = plan(r, world, where);
      requests.push({ ...p, label: `seed ${seed} #${i}: ${p.label}` });
    }
  }

  const histogram = new Map<string, number>();
  const byKind = new Map<string, Map<string, number>>();
  const failures: string[] = [];
  let next = 0;
  let done = 0;
  const started = Date.now();
  const worker = async () => {
    while (next < requests.length && failures.length < 20) {
      const req = requests[next++]!;
      const a: RawAnswer = await rawExchange(world.port, req.bytes, {
        pieces: req.pieces,
        pieceDelayMs: req.pieceDelayMs,
        timeoutMs: PER_REQUEST_TIMEOUT_MS,
        host: req.bridge ? BRIDGE : undefined,
      });
      const key = a.hung ? 'hung' : a.status === null ? 'closed' : String(a.status);
      histogram.set(key, (histogram.get(key) ?? 0) + 1);
      const kindHistogram = byKind.get(req.kind) ?? new Map<string, number>();
      byKind.set(req.kind, kindHistogram.set(key, (kindHistogram.get(key) ?? 0) + 1));
      // PERCH_FUZZ_VERBOSE=<kind> prints every answer to that kind of request (mcp, owner, files, ...).
      if (process.env.PERCH_FUZZ_VERBOSE === req.kind)
        process.stdout.write(
          `# ${key}: ${req.label} ${a.body
            .toString('utf8')
            .slice(0, 150)
            .replace(/[^\x20-\x7e]/g, '?')}\n`,
        );
      if (a.hung) failures.push(`${req.label}: no answer and no close within ${PER_REQUEST_TIMEOUT_MS} ms`);
      else if (a.status !== null && a.status >= 500)
        failures.push(`${req.label}: HTTP ${a.status} ${a.body.toString('utf8').slice(0, 300)}`);
      else if (req.bridge && req.kind !== 'bridge:mcp' && a.status !== null && a.status < 300)
        failures.push(`${req.label}: HTTP ${a.status} on the container listener, which serves /mcp only`);
      done += 1;
      if (done % 200 === 0 && !hubAlive()) failures.push(`the hub died after ${req.label}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const counts = [...histogram.entries()]
    .sort()
    .map(([k, v]) => `${k}:${v}`)
    .join(' ');
  process.stdout.write(`# fuzz: ${done} requests in ${Date.now() - started} ms; statuses ${counts}\n`);
  for (const [kind, m] of [...byKind.entries()].sort()) {
    process.stdout.write(
      `#   ${kind}: ${[...m.entries()]
        .sort()
        .map(([k, v]) => `${k}:${v}`)
        .join(' ')}\n`,
    );
  }

  assert.ok(hubAlive(), `the hub process is alive; its stderr: ${served.stderr().slice(-2000)}`);
  assert.deepEqual(failures, [], `seed ${RANDOM_SEED}: ${failures.length} bad answers; hub stderr: ${served.stderr().slice(-2000)}`);
  assert.equal(done, requests.length, 'every planned request was sent');
  assert.ok(!/perch: .*failed/.test(served.stderr()), `no internal failure was logged: ${served.stderr().slice(-2000)}`);

  // The device audit was not flooded: refusals of callers without a device credential are tallies (one row per
  // window and kind, with a count), never a row each, and the paired device's own entries are all there.
  const audit = (await ownerOk(served, 'devices.audit', { limit: 500 })).entries as Array<{
    device_id: string | null;
    outcome: string;
    count: number | null;
    action: string;
  }>;
  const singles = audit.filter((e) => e.device_id === null && e.outcome.startsWith('refused') && e.count == null);
  const tallies = audit.filter((e) => e.count != null);
  const deviceDoorRequests = byKind.get('device') ? [...byKind.get('device')!.values()].reduce((a, b) => a + b, 0) : 0;
  process.stdout.write(
    `#   audit: ${tallies.length} tally rows counting ${tallies.reduce((n, e) => n + (e.count ?? 0), 0)} refusals (of ${deviceDoorRequests} device-door requests), ${singles.length} single rows of unauthenticated refusals\n`,
  );
  assert.deepEqual(
    singles.map((e) => `${e.action} ${e.outcome}`),
    [],
    'no refusal without a device credential is written as a row of its own',
  );
  assert.ok(tallies.length <= 40, `the junk is a handful of tally rows (${tallies.length})`);
  const mine = (await ownerOk(served, 'devices.audit', { device_id: world.device.id })).entries as Array<{
    action: string;
    outcome: string;
  }>;
  assert.equal(
    mine.filter((e) => e.action === 'requests.list' && e.outcome === 'ok').length,
    3,
    "the paired device's entries are all there",
  );

  // Afterwards it still serves normally: a real tools/call over the official client, and the UI.
  const c = await connect('v2', served.mcpUrl, checker);
  served.closeAfter(c);
  const me = await c.ok('whoami');
  assert.equal(me.name ?? me.agent?.name ?? me.user?.name, checker.name);
  const convs = await c.ok('list_conversations');
  assert.ok(Array.isArray(convs.conversations), 'list_conversations answers with its list');
  const ui = await fetch(`http://127.0.0.1:${world.port}/`, { signal: AbortSignal.timeout(10_000) });
  const html = await ui.text();
  if (fs.existsSync(path.join(ROOT, 'dist', 'renderer', 'index.html'))) {
    assert.equal(ui.status, 200);
    assert.match(html, /<html|<!doctype html/i, 'the UI index loads');
  } else {
    assert.equal(ui.status, 503, 'an unbuilt UI is a deliberate 503');
  }
});
