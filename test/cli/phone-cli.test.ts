// `perch device list|revoke|pair` and `perch serve --public-url` as a user runs them: the real
// bin/perch.js against a real `perch serve`; the phone's side of the pairing is done by this test over HTTP with
// the headers `tailscale serve` adds (test/support/raw-http.ts, so Host and the front's headers are exactly as sent).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BIN, ROOT, cli, cliAsync, ensureBuilt, removeDataDir, tempDataDir, useSharedServe } from '../support/serve-harness';
import { buildRequest, rawExchange } from '../support/raw-http';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type R = any;

const PUBLIC = 'https://laptop.tail1234.ts.net';
const PUBLIC_HOST = 'laptop.tail1234.ts.net';

/** One request to the hub as it arrives from the front (public Host, forwarding and Tailscale headers). */
async function viaFront(
  port: number,
  method: string,
  target: string,
  body?: unknown,
  bearer?: string,
): Promise<{ status: number | null; body: R }> {
  const text = body === undefined ? '' : JSON.stringify(body);
  const h: Array<[string, string]> = [
    ['Host', PUBLIC_HOST],
    ['X-Forwarded-For', '100.101.102.103'],
    ['X-Forwarded-Proto', 'https'],
    ['Tailscale-User-Login', 'me@example.com'],
    ['Connection', 'close'],
  ];
  if (bearer) h.push(['Authorization', `Bearer ${bearer}`]);
  if (body !== undefined) h.push(['Content-Type', 'application/json']);
  const a = await rawExchange(port, buildRequest(method, target, h, text), { timeoutMs: 40_000 });
  let parsed: R;
  try {
    parsed = JSON.parse(a.body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  return { status: a.status, body: parsed };
}

/** `perch device pair …` started in the background: its stdout lines as they come, and its end. */
function startPair(args: string[]): {
  lines: string[];
  nextLine(ms: number): Promise<string>;
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
} {
  ensureBuilt();
  const p = spawn(process.execPath, [BIN, 'device', 'pair', ...args], { cwd: ROOT, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  p.stdout!.setEncoding('utf8').on('data', (c: string) => {
    stdout += c;
    const parts = stdout.split('\n');
    while (lines.length < parts.length - 1) lines.push(parts[lines.length]!);
    waiters.splice(0).forEach((w) => w());
  });
  p.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const timer = setTimeout(() => p.kill('SIGKILL'), 60_000);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    p.on('close', (code) => {
      clearTimeout(timer);
      waiters.splice(0).forEach((w) => w());
      resolve({ code, stdout, stderr });
    }),
  );
  let read = 0;
  async function nextLine(ms: number): Promise<string> {
    const end = Date.now() + ms;
    while (lines.length <= read) {
      if (p.exitCode !== null || p.signalCode !== null)
        throw new Error(`perch device pair ended (${p.exitCode}) without another line; stderr: ${stderr}`);
      if (Date.now() > end) throw new Error(`perch device pair printed no line within ${ms} ms; stdout: ${stdout}; stderr: ${stderr}`);
      await new Promise<void>((r) => {
        waiters.push(r);
        setTimeout(r, 200);
      });
    }
    return lines[read++]!;
  }
  return { lines, nextLine, done };
}

describe('perch serve --public-url', () => {
  test('a URL that is not http(s) (ftp://x) is refused before the hub starts: clear message, exit code 2, nothing made', () => {
    const dir = tempDataDir();
    try {
      const r = cli(['serve', '--data-dir', dir, '--port', '0', '--json', '--public-url', 'ftp://x']);
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /^perch: --public-url: /);
      assert.match(r.stderr, /https/, 'the message says what is expected');
      assert.equal(r.stdout, '', 'no ready line');
      assert.equal(fs.existsSync(path.join(dir, 'runtime.json')), false, 'no hub ran');
      const l = cli(['device', 'list', '--data-dir', dir, '--json']);
      assert.equal(l.code, 0, l.stderr);
      assert.deepEqual(JSON.parse(l.stdout).devices, []);
    } finally {
      removeDataDir(dir);
    }
  });
});

describe('perch device against a hub without a public URL', () => {
  const hub = useSharedServe();

  test('device list --json on an empty hub: no devices; the text form says how to pair', () => {
    const r = cli(['device', 'list', '--data-dir', hub.dataDir, '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout), { devices: [] });
    const t = cli(['device', 'list', '--data-dir', hub.dataDir]);
    assert.equal(t.code, 0, t.stderr);
    assert.match(t.stdout, /No paired devices\. Pair a phone with `perch device pair`/);
  });

  test('device pair with no public URL: a clear message naming tailscale serve, exit code ≠ 0, no pairing left behind', async () => {
    const r = await cliAsync(['device', 'pair', '--yes', '--json', '--data-dir', hub.dataDir], { timeoutMs: 30_000 });
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /public URL/i);
    assert.match(r.stderr, /tailscale serve/);
    assert.equal(r.stdout, '');
    assert.deepEqual(JSON.parse(cli(['device', 'list', '--data-dir', hub.dataDir, '--json']).stdout).devices, []);
  });
});

describe('perch device pair | list | revoke against perch serve --public-url', () => {
  const hub = useSharedServe({ args: ['--public-url', `${PUBLIC}/`] });

  test("serve --public-url saves the front's URL (normalized) and the hub still answers only on 127.0.0.1", () => {
    const rt = JSON.parse(fs.readFileSync(path.join(hub.dataDir, 'runtime.json'), 'utf8'));
    assert.match(rt.base_url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const r = cli(['owner', 'phone.get', '--data-dir', hub.dataDir]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).phone.public_url, PUBLIC);
  });

  test('pair --yes --json: the link line, a phone claims it through the front, the CLI confirms; list shows it; revoke kills the credential (401)', async () => {
    const pairing = startPair(['--yes', '--json', '--name', 'Test phone', '--data-dir', hub.dataDir]);
    const first = JSON.parse(await pairing.nextLine(20_000));
    assert.match(first.url, /^https:\/\/laptop\.tail1234\.ts\.net\/pair#[A-Za-z0-9_-]{22}$/);
    assert.equal(first.pairing.state, 'waiting');
    assert.equal(first.pairing.scope, 'approvals', 'the default scope');
    // The phone opens the link: it claims the code through the front, then waits for its credential.
    const code = first.url.split('#')[1];
    const claim = await viaFront(hub.port, 'POST', '/api/device/pair/claim', { code, device_name: 'Android phone' });
    assert.equal(claim.status, 200, JSON.stringify(claim.body));
    const got = await viaFront(hub.port, 'POST', '/api/device/pair/wait', {
      pairing_id: claim.body.value.pairing_id,
      claim_secret: claim.body.value.claim_secret,
      wait_secs: 25,
    });
    assert.equal(got.status, 200, JSON.stringify(got.body));
    const token: string = got.body.value.device_token;
    assert.match(token, /^pd_[A-Za-z0-9_-]{43}$/);
    const end = await pairing.done;
    assert.equal(end.code, 0, end.stderr);
    const lines = end.stdout.trim().split('\n');
    assert.equal(lines.length, 2, `two JSON lines: ${end.stdout}`);
    const last = JSON.parse(lines[1]!);
    assert.equal(last.pairing.state, 'confirmed');
    assert.equal(last.pairing.phrase, claim.body.value.phrase, 'the CLI confirmed the phrase the phone shows');
    assert.equal(last.device.name, 'Test phone');
    assert.equal(last.device.scope, 'approvals');
    assert.ok(!end.stdout.includes(token), 'the CLI never prints the credential');
    const id: string = last.device.id;

    // The credential works through the front.
    const me = await viaFront(hub.port, 'GET', '/api/device/me', undefined, token);
    assert.equal(me.status, 200, JSON.stringify(me.body));
    assert.equal(me.body.value.device.id, id);

    const list = cli(['device', 'list', '--data-dir', hub.dataDir, '--json']);
    assert.equal(list.code, 0, list.stderr);
    const listed = JSON.parse(list.stdout).devices as R[];
    assert.equal(listed.length, 1);
    assert.equal(listed[0].id, id);
    assert.equal(listed[0].revoked, false);
    assert.equal(listed[0].token_hint, `…${token.slice(-4)}`);
    assert.ok(!list.stdout.includes(token));
    const text = cli(['device', 'list', '--data-dir', hub.dataDir]);
    assert.match(text.stdout, new RegExp(`${id}\\s+Test phone\\s+approvals\\s+active`));

    const rev = cli(['device', 'revoke', id, '--data-dir', hub.dataDir, '--json']);
    assert.equal(rev.code, 0, rev.stderr);
    assert.equal(JSON.parse(rev.stdout).device.revoked, true);
    // The running hub refuses the credential at once (the CLI wrote the same database).
    const after = await viaFront(hub.port, 'GET', '/api/device/me', undefined, token);
    assert.equal(after.status, 401);
    const call = await viaFront(hub.port, 'POST', '/api/owner/requests.list', {}, token);
    assert.equal(call.status, 401);
    const again = JSON.parse(cli(['device', 'list', '--data-dir', hub.dataDir, '--json']).stdout).devices as R[];
    assert.equal(again.length, 1);
    assert.equal(again[0].revoked, true);
  });

  test('bad input is refused with a clear message and exit code ≠ 0, and changes nothing', async () => {
    const before = cli(['device', 'list', '--data-dir', hub.dataDir, '--json']).stdout;
    const cases: Array<[string[], RegExp]> = [
      [['device', 'revoke', 'dev_0123456789abcdef'], /No device|not found|dev_0123456789abcdef/i],
      [['device', 'revoke'], /needs ID/],
      [['device', 'pair', '--scope', 'admin', '--yes'], /--scope must be approvals or full/],
      [['device', 'pair', '--name', 'x'.repeat(61), '--yes', '--json'], /name/i],
      [['device', 'frobnicate'], /unknown device command/],
      [['device', 'list', '--colour'], /--colour/],
    ];
    for (const [args, message] of cases) {
      const r = await cliAsync([...args, '--data-dir', hub.dataDir], { timeoutMs: 30_000 });
      assert.notEqual(r.code, 0, `${args.join(' ')}: ${r.stdout}`);
      assert.match(r.stderr, message, args.join(' '));
      assert.match(r.stderr, /^perch: /);
    }
    assert.equal(cli(['device', 'list', '--data-dir', hub.dataDir, '--json']).stdout, before, 'the device list did not change');
    const pairings = cli(['owner', 'devices.list', '--data-dir', hub.dataDir]);
    assert.equal(pairings.code, 0, pairings.stderr);
  });

  test('pair without a running hub: a clear message (start perch serve), exit code ≠ 0', () => {
    const empty = tempDataDir();
    try {
      const r = cli(['device', 'pair', '--yes', '--data-dir', empty]);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /no running hub found.*perch serve/);
    } finally {
      removeDataDir(empty);
    }
  });
});
