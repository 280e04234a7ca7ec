// Hostile input at the newer doors of a real `perch serve`: POST /hook (mcp/hook-door.ts) and POST
// /api/owner/archive/export (owner/export-door.ts). Each bad request gets a clear 4xx, the hub keeps serving, and
// nothing changes: the agent shows no harness status, and every export leaves no temporary directory behind.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  addAgent,
  eventually,
  ownerOk,
  sleep,
  rawPost,
  removeDataDir,
  runtimeInfo,
  startServe,
  tempDataDir,
  uniqueName,
  type AgentKey,
  type Served,
} from '../support/serve-harness';
import net from 'node:net';
import { buildRequest, rawExchange } from '../support/raw-http';

let served: Served;
let tmp: string;
before(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-doors-tmp-'));
  // A private TMPDIR, so the export's temporary directories can be counted; short timeouts for the slow drip.
  served = await startServe(tempDataDir(), { env: { TMPDIR: tmp, PERCH_HEADERS_TIMEOUT_MS: '1000', PERCH_REQUEST_TIMEOUT_MS: '1500' } });
});
after(async () => {
  await served.stop();
  removeDataDir(served.dataDir);
  fs.rmSync(tmp, { recursive: true, force: true });
});

const hookUrl = () => served.mcpUrl.replace(/\/mcp$/, '/hook');

async function harnessOf(a: AgentKey): Promise<unknown> {
  const { agents } = await ownerOk(served, 'agents.list', {});
  return agents.find((x: any) => x.id === a.id).harness;
}

describe('POST /hook refuses hostile input and changes nothing', () => {
  test('a body that is JSON but no object (array, number, string, null) is 400', async () => {
    const a = await addAgent(served.dataDir, uniqueName('shape'));
    for (const body of ['[{"event":"stop","harness":"codex"}]', '42', '"stop"', 'null', '']) {
      const r = await rawPost(hookUrl(), a.key, body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.error.code, 'invalid_input');
    }
    assert.equal(await harnessOf(a), null);
  });

  test('a body over 16 KB is 413, whether its Content-Length says so or it is sent chunked without one', async () => {
    const a = await addAgent(served.dataDir, uniqueName('big'));
    const big = JSON.stringify({ event: 'stop', harness: 'codex', message: 'x'.repeat(20_000) });
    const declared = await rawPost(hookUrl(), a.key, big);
    assert.equal(declared.status, 413);
    assert.equal(declared.json.error.code, 'too_large');
    const head = `POST /hook HTTP/1.1\r\nHost: 127.0.0.1:${served.port}\r\nAuthorization: Bearer ${a.key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunk = 'y'.repeat(8192);
    const chunks = Array.from({ length: 200 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('');
    const r = await rawExchange(served.port, head + chunks + '0\r\n\r\n', { timeoutMs: 10_000 });
    assert.equal(r.status, 413, r.head);
    assert.equal(r.hung, false);
    assert.equal(await harnessOf(a), null);
  });

  test("a wrong key is 401; Host host.docker.internal, a foreign Origin and the HTTPS front's headers are 403", async () => {
    const a = await addAgent(served.dataDir, uniqueName('who'));
    const report = { event: 'stop', harness: 'codex' };
    assert.equal((await rawPost(hookUrl(), 'pk_not-a-key', report)).status, 401);
    const proxied = await rawExchange(
      served.port,
      buildRequest(
        'POST',
        '/hook',
        [
          ['Host', `host.docker.internal:${served.port}`],
          ['Authorization', `Bearer ${a.key}`],
        ],
        JSON.stringify(report),
      ),
    );
    assert.equal(proxied.status, 403, proxied.head);
    assert.equal((await rawPost(hookUrl(), a.key, report, { Origin: 'https://evil.example' })).status, 403);
    assert.equal((await rawPost(hookUrl(), a.key, report, { 'Tailscale-User-Login': 'someone@example.com' })).status, 403);
    assert.equal(await harnessOf(a), null);
  });

  test('a malformed permission-request filing is 400 with a one-line reason, one over 96 KB is 413, and nothing is filed', async () => {
    const a = await addAgent(served.dataDir, uniqueName('filing'));
    const ok = { event: 'permission-request', harness: 'claude-code', tool_name: 'Bash', tool_input: { command: 'ls' } };
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ ...ok, tool_name: undefined }, /^tool_name: the tool the prompt is for/],
      [{ ...ok, tool_name: 'x'.repeat(201) }, /^tool_name is over 200 characters$/],
      [{ ...ok, harness: 'vim' }, /^harness must be one of claude-code, codex, cursor, copilot, gemini, opencode$/],
      [{ ...ok, tool_input: undefined }, /^send tool_input, or input_cut/],
      [{ ...ok, input_cut: { head: 'ls', tail: '', chars: 2 } }, /^send tool_input, or input_cut/],
      [{ ...ok, tool_input: undefined, input_cut: { head: 'ls', tail: '', chars: -1 } }, /^input_cut.chars must be a whole number$/],
      [{ ...ok, cwd: 7 }, /^cwd must be a string$/],
      [{ ...ok, via: 'mail' }, /^via must be channel/],
      [{ ...ok, ttl_secs: 1.5 }, /^ttl_secs must be whole seconds$/],
    ];
    for (const [body, reason] of cases) {
      const r = await rawPost(hookUrl(), a.key, body);
      assert.equal(r.status, 400, JSON.stringify(body).slice(0, 200));
      assert.equal(r.json.error.code, 'invalid_input');
      assert.match(r.json.error.message, reason);
      assert.ok(!r.json.error.message.includes('\n'), 'one line');
    }
    const big = await rawPost(hookUrl(), a.key, { ...ok, tool_input: { command: 'x'.repeat(100_000) } });
    assert.equal(big.status, 413);
    const { requests } = await ownerOk(served, 'requests.list', {});
    assert.deepEqual(
      requests.filter((x: any) => x.requester?.id === a.id),
      [],
      'nothing was filed',
    );
    // Control: the well-formed filing is a pending request of the agent, in its direct conversation with the owner.
    const filed = await rawPost(hookUrl(), a.key, ok);
    assert.equal(filed.status, 200, JSON.stringify(filed.json));
    assert.equal(filed.json.request.state, 'pending');
    const mine = (await ownerOk(served, 'requests.list', {})).requests.filter((x: any) => x.requester?.id === a.id);
    assert.deepEqual(
      mine.map((x: any) => [x.request_id, x.title, x.door]),
      [[filed.json.request.request_id, 'Allow Bash: ls?', 'hook']],
    );
  });

  test('a body dripped slower than the request timeout is cut off (408 or closed), not held open', async () => {
    const a = await addAgent(served.dataDir, uniqueName('drip'));
    const head = `POST /hook HTTP/1.1\r\nHost: 127.0.0.1:${served.port}\r\nAuthorization: Bearer ${a.key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const r = await rawExchange(served.port, '', { pieces: [head, '{', '"', 'e'], pieceDelayMs: 1000, timeoutMs: 8000 });
    assert.equal(r.hung, false, 'the hub answered or closed');
    assert.ok(r.status === 408 || r.closed, `status ${r.status}`);
    assert.equal(await harnessOf(a), null);
    assert.equal((await rawPost(hookUrl(), a.key, { event: 'stop', harness: 'codex' })).status, 200, 'the hub still serves');
  });
});

describe('POST /api/owner/archive/export refuses hostile input and leaves no temporary files', () => {
  const exportUrl = () => `${runtimeInfo(served).base_url}/api/owner/archive/export`;
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(exportUrl(), {
      method: 'POST',
      headers: { Authorization: `Bearer ${runtimeInfo(served).owner_token}`, 'Content-Type': 'application/json', ...headers },
      body,
      signal: AbortSignal.timeout(30_000),
    });
  const tempDirs = () => fs.readdirSync(tmp).filter((n) => n.startsWith('perch-export-'));

  test('a scope of the wrong types, a JSON array or a non-JSON body is 400 invalid_argument; one over 64 KiB is 413 too_large', async () => {
    const bad = [
      JSON.stringify({ conversations: 7 }),
      JSON.stringify({ conversations: [7] }),
      JSON.stringify({ agent: { name: 'x' } }),
      JSON.stringify({ since: 'not a date' }),
      JSON.stringify({ since: 20250101 }),
      '[]',
      '"all"',
      '{',
    ];
    for (const body of bad) {
      const r = await post(body);
      assert.equal(r.status, 400, body.slice(0, 80));
      assert.equal(r.headers.get('content-type')?.startsWith('application/json'), true);
      assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'invalid_argument', body.slice(0, 80));
    }
    const big = await post(JSON.stringify({ conversations: Array.from({ length: 10_000 }, (_, i) => `c_${i}`) }));
    assert.equal(big.status, 413, 'a body over 64 KiB');
    assert.equal(((await big.json()) as { error: { code: string } }).error.code, 'too_large');
    assert.deepEqual(tempDirs(), []);
  });

  test('GET is 405; a bad owner token is 401', async () => {
    const get = await fetch(exportUrl(), { headers: { Authorization: `Bearer ${runtimeInfo(served).owner_token}` } });
    assert.equal(get.status, 405);
    assert.equal((await post('{}', { Authorization: 'Bearer nope' })).status, 401);
  });

  test('three exports at once all succeed, and afterwards no temporary directory is left', async () => {
    const rs = await Promise.all([post('{}'), post('{}'), post('null')]);
    for (const r of rs) {
      assert.equal(r.status, 200);
      assert.ok((await r.arrayBuffer()).byteLength > 0);
    }
    // The hub removes each one once its answer has gone out (just after the client has read it).
    await eventually(() => tempDirs().length === 0, 5000, 'the export temporary directories are removed');
  });

  test('a client that hangs up while the archive is being written leaves no temporary directory and no open file', async () => {
    const openExports = () =>
      fs.readdirSync(`/proc/${served.proc.pid}/fd`).filter((f) => {
        try {
          return fs.readlinkSync(`/proc/${served.proc.pid}/fd/${f}`).includes('perch-export-');
        } catch {
          return false;
        }
      });
    const rt = runtimeInfo(served);
    for (let i = 0; i < 3; i++) {
      const sock = net.connect(served.port, '127.0.0.1');
      await new Promise((r) => sock.on('connect', r));
      sock.write(
        buildRequest(
          'POST',
          '/api/owner/archive/export',
          [
            ['Host', `127.0.0.1:${served.port}`],
            ['Authorization', `Bearer ${rt.owner_token}`],
            ['Content-Type', 'application/json'],
          ],
          '{}',
        ),
      );
      await sleep(i);
      sock.destroy();
    }
    await eventually(
      () => tempDirs().length === 0 && openExports().length === 0,
      5000,
      "the aborted exports' temporary directories and files are gone",
    );
    assert.equal((await post('{}')).status, 200, 'the hub still exports');
  });
});
