// `perch hook permission-request` (src/main/cli/hook/hook.ts): a real `perch serve`, the real CLI process fed the
// harnesses' documented stdin (test/fixtures/permission-request.ts), the owner deciding through the owner API.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  ROOT,
  addAgent,
  ensureBuilt,
  eventually,
  untilWaiting,
  ownerFail,
  ownerOk,
  rawCall,
  removeDataDir,
  startServe,
  tempDataDir,
  type AgentKey,
} from '../support/serve-harness';
import { startHook } from '../support/hook-runner';
import { ALLOW_OUTPUT, claudeCodeBash, claudeCodeEdit, claudeCodePreToolUse, codexBash, denyOutput } from '../fixtures/permission-request';
import { codexPreToolUse } from '../fixtures/status-hooks';
import { CURSOR_ALLOW, cursorShell } from '../fixtures/cursor-hooks';
import { served, runHook, newAgent, pendingOf, envFor } from '../support/hook-kit';
describe('perch hook permission-request files the prompt as an owner request and prints the decision', () => {
  test('Claude Code Bash prompt: shown in requests.list with session, cwd, tool and the command as a code block; the owner approves and the hook prints the exact allow JSON', async () => {
    const a = await newAgent('hook-cc');
    const run = runHook(['permission-request'], JSON.stringify(claudeCodeBash), envFor(a));
    const req = await pendingOf(a);
    assert.equal(req.kind, 'approve');
    assert.equal(req.title, 'Allow Bash: rm -rf node_modules?');
    assert.equal(req.context.source, 'permission_prompt');
    assert.equal(req.context.harness, 'claude-code');
    assert.equal(req.context.session_id, 'abc123');
    assert.equal(req.context.cwd, '/home/user/my-project');
    assert.equal(req.context.tool_name, 'Bash');
    assert.equal(req.context.preview, 'Remove node_modules directory\n\n```sh\nrm -rf node_modules\n```');
    assert.deepEqual(req.context.tool_input, claudeCodeBash.tool_input);
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${ALLOW_OUTPUT}\n`);
    assert.equal(r.stderr, '');
  });

  test('Codex Bash prompt: the owner denies with a comment and the hook prints the deny JSON with it as the message', async () => {
    const a = await newAgent('hook-codex');
    const run = runHook(['permission-request'], JSON.stringify(codexBash), envFor(a));
    const req = await pendingOf(a);
    assert.equal(req.context.harness, 'codex');
    assert.equal(req.context.session_id, codexBash.session_id);
    assert.equal(req.title, 'Allow Bash: rm -f /tmp/example?');
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'reject', comment: 'keep that file' });
    const r = await run;
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${denyOutput('Denied by the owner in Perch: keep that file')}\n`);
  });

  test('an Edit prompt shows as a diff of old and new strings; a deny without a comment still says who denied', async () => {
    const a = await newAgent('hook-edit');
    const run = runHook(['permission-request'], JSON.stringify(claudeCodeEdit), envFor(a));
    const req = await pendingOf(a);
    assert.equal(req.title, 'Allow Edit /home/user/my-project/src/config.ts?');
    assert.equal(
      req.context.preview,
      '/home/user/my-project/src/config.ts\n\n```diff\n--- /home/user/my-project/src/config.ts\n+++ /home/user/my-project/src/config.ts\n-export const RETRIES = 3;\n+export const RETRIES = 5;\n+export const BACKOFF_MS = 200;\n```',
    );
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'reject' });
    const r = await run;
    assert.equal(r.stdout, `${denyOutput('Denied by the owner in Perch.')}\n`);
    assert.equal(r.code, 0);
  });

  test('--agent NAME takes the key from PERCH_KEY_<NAME>, not PERCH_KEY', async () => {
    const a = await newAgent('hook-named');
    const run = runHook(['permission-request', '--agent', 'build-bot'], JSON.stringify(claudeCodeBash), {
      PERCH_URL: served.mcpUrl,
      PERCH_KEY_BUILD_BOT: a.key,
      PERCH_KEY: 'perch_not_this_one',
    });
    const req = await pendingOf(a);
    await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
    const r = await run;
    assert.equal(r.stdout, `${ALLOW_OUTPUT}\n`);
  });
});

describe('perch hook permission-request steps aside (no decision on stdout, exit 0) when Perch cannot decide', () => {
  test("no decision within --timeout: exit 0, the prompt leaves the Approvals inbox; stdout holds no decision, for Claude Code only the door's line and window title (it runs hooks with no terminal of their own), for Codex nothing", async () => {
    const a = await newAgent('hook-timeout');
    const r = await runHook(['permission-request', '--timeout', '2'], JSON.stringify(claudeCodeBash), envFor(a));
    assert.equal(r.code, 0);
    const line = 'Perch: no decision on "Allow Bash: rm -rf node_modules?": no decision within 2 s; the terminal dialog decides';
    assert.deepEqual(JSON.parse(r.stdout), { systemMessage: line, terminalSequence: `\u001b]2;${line}\u0007` });
    assert.match(r.stderr, /^perch hook: no decision within 2 s; the terminal dialog decides\n$/);
    const { requests } = await ownerOk(served, 'requests.list', {});
    const mine = requests.filter((x: any) => x.requester?.name === a.name);
    assert.equal(mine.length, 1);
    assert.equal(mine[0].state, 'cancelled', 'the hook withdrew its request');
    const c = await runHook(['permission-request', '--timeout', '1'], JSON.stringify(codexBash), envFor(a));
    assert.deepEqual([c.code, c.stdout], [0, '']);
  });

  test('the harness stops the hook (SIGTERM: the prompt was answered in the terminal): exit 0, empty stdout, the prompt leaves the Approvals inbox', async () => {
    const a = await newAgent('hook-sigterm');
    const h = startHook(['permission-request'], JSON.stringify(claudeCodeBash), envFor(a));
    const req = await pendingOf(a);
    h.proc.kill('SIGTERM');
    const r = await h.done;
    assert.equal(r.code, 0);
    assert.equal(r.stdout, '');
    const { requests } = await ownerOk(served, 'requests.list', {});
    assert.equal(requests.find((x: any) => x.request_id === req.request_id)?.state, 'cancelled');
  });

  test('the hub is down: empty stdout, exit 0, one stderr line naming the URL', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const url = `http://127.0.0.1:${port}/mcp`;
    const r = await runHook(['permission-request'], JSON.stringify(claudeCodeBash), { PERCH_URL: url, PERCH_KEY: 'perch_whatever' });
    assert.equal(r.code, 0);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^perch hook: cannot reach the Perch hub at ${url.replace(/[.]/g, '\\.')}`));
  });

  test('a paused agent: the prompt is denied at once with the pause reason as the message, and nothing is filed', async () => {
    const a = await newAgent('hook-paused');
    await ownerOk(served, 'agents.pause', { agent: a.id, reason: 'lunch break' });
    const r = await runHook(['permission-request'], JSON.stringify(claudeCodeBash), envFor(a));
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${denyOutput('Paused in Perch by the owner: lunch break')}\n`);
    const { requests } = await ownerOk(served, 'requests.list', {});
    assert.equal(requests.filter((x: any) => x.requester?.name === a.name).length, 0);
  });

  test('bad or foreign stdin, or no key: one clear stderr line, nothing on stdout, exit 0, nothing filed', async () => {
    const a = await newAgent('hook-bad');
    const cases: Array<[string, string, Record<string, string>, RegExp]> = [
      ['not JSON', 'rm -rf /', envFor(a), /^perch hook: stdin is not JSON/],
      ['empty', '', envFor(a), /^perch hook: no input on stdin/],
      ['an array', '[1,2]', envFor(a), /^perch hook: stdin is not a JSON object/],
      ['over 4 MiB', `{"pad":"${' '.repeat(5 * 1024 * 1024)}"}`, envFor(a), /^perch hook: stdin is over 4194304 bytes, not a hook input/],
      [
        'another event',
        JSON.stringify(claudeCodePreToolUse),
        envFor(a),
        /^perch hook: stdin is a "PreToolUse" hook event, not PermissionRequest/,
      ],
      [
        'no tool_name',
        JSON.stringify({ ...claudeCodeBash, tool_name: undefined }),
        envFor(a),
        /^perch hook: the PermissionRequest input has no tool_name/,
      ],
      [
        'no key',
        JSON.stringify(claudeCodeBash),
        { PERCH_URL: served.mcpUrl },
        /^perch hook: no key was sent: set PERCH_KEY in the shell that starts Claude Code/,
      ],
      [
        'a bad key',
        JSON.stringify(claudeCodeBash),
        { PERCH_URL: served.mcpUrl, PERCH_KEY: 'perch_nope' },
        /^perch hook: the Perch hub at .* refused the agent key/,
      ],
    ];
    for (const [what, stdin, env, expected] of cases) {
      const r = await runHook(['permission-request'], stdin, env);
      assert.equal(r.code, 0, `${what}: exit 0`);
      assert.equal(r.stdout, '', `${what}: nothing on stdout`);
      assert.match(r.stderr, expected, what);
      assert.equal(r.stderr.split('\n').filter(Boolean).length, 1, `${what}: one stderr line: ${r.stderr}`);
    }
    const bad = await runHook(['permission-request', '--timeout', 'soon'], JSON.stringify(claudeCodeBash), envFor(a));
    assert.deepEqual([bad.code, bad.stdout], [0, '']);
    assert.match(bad.stderr, /^perch hook: --timeout must be whole seconds/);
    const { requests } = await ownerOk(served, 'requests.list', {});
    assert.equal(requests.filter((x: any) => x.requester?.name === a.name).length, 0, 'nothing was filed');
  });
});

describe('a hook prompt whose asker is gone is withdrawn, and the card says so', () => {
  /** The hook is in its get_request wait (the agent shows waiting in agents.list). */
  function hookWaiting(s: Pick<typeof served, 'dataDir'>, agent: AgentKey): Promise<void> {
    return untilWaiting(s, agent.id, 15_000);
  }

  async function requestOf(s: Pick<typeof served, 'dataDir'>, id: string): Promise<any> {
    return (await ownerOk(s, 'requests.list', {})).requests.find((x: any) => x.request_id === id);
  }

  test('the hook killed while it waits (its connection closes): the prompt is withdrawn at once, saying the harness stopped waiting; approving it afterwards is refused', async () => {
    const a = await newAgent('hook-killed');
    const h = startHook(['permission-request'], JSON.stringify(claudeCodeBash), envFor(a));
    const req = await pendingOf(a);
    await hookWaiting(served, a);
    h.proc.kill('SIGKILL'); // no SIGTERM handler runs: the hook cannot cancel its own prompt
    await h.done;
    let r: any;
    await eventually(async () => (r = await requestOf(served, req.request_id))?.state !== 'pending', 10_000, 'the prompt to leave pending');
    assert.equal(r.state, 'cancelled');
    assert.match(r.withdrawn, /^the harness stopped waiting/);
    assert.equal(r.outcome, null);
    const refused = await ownerFail(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' }, 409);
    assert.match(refused.message, /was withdrawn: the harness stopped waiting/);
    assert.equal((await requestOf(served, req.request_id)).state, 'cancelled', 'not approved');
  });

  test('the hub killed (SIGKILL) or stopped (SIGTERM) while a hook waits: the hook steps aside, and the restarted hub withdraws the prompt at start; approving it is refused', async () => {
    const dir = tempDataDir();
    let hub = await startServe(dir);
    try {
      const a = await addAgent(dir, 'restarted');
      for (const how of ['SIGKILL', 'SIGTERM'] as const) {
        const h = startHook(['permission-request'], JSON.stringify(claudeCodeBash), { PERCH_URL: hub.mcpUrl, PERCH_KEY: a.key });
        let req: any;
        await eventually(
          async () =>
            !!(req = (await ownerOk(hub, 'requests.list', { state: 'pending' })).requests.find((x: any) => x.requester?.id === a.id)),
          15_000,
          'the prompt filed',
        );
        await hookWaiting(hub, a);
        if (how === 'SIGKILL') await hub.kill();
        else await hub.stop();
        const r = await h.done;
        assert.equal(r.code, 0, `${how}: ${r.stderr}`);
        assert.equal(r.stdout, '', `${how}: the harness's own dialog takes over`);
        hub = await startServe(dir);
        const after = await requestOf(hub, req.request_id);
        assert.equal(after.state, 'cancelled', `${how}: withdrawn at start`);
        assert.match(after.withdrawn, /^the harness stopped waiting/, how);
        const refused = await ownerFail(hub, 'requests.decide', { request_id: req.request_id, decision: 'approve' }, 409);
        assert.match(refused.message, /was withdrawn: the harness stopped waiting/, how);
      }
      // A request an agent waits for through another client is not a hook's prompt: kept across a restart.
      const call = async (name: string, args: Record<string, unknown> = {}): Promise<any> =>
        (await rawCall(hub.mcpUrl, a.key, name, args)).structuredContent;
      const d = await call('open_direct', { user: (await call('whoami')).owner.name });
      const plain = await call('request_human', { conv_id: d.conversation.conv_id, kind: 'approve', title: 'Ship it?' });
      await hub.kill();
      hub = await startServe(dir);
      assert.equal((await requestOf(hub, plain.request_id)).state, 'pending');
    } finally {
      await hub.stop();
      removeDataDir(dir);
    }
  });
});

describe('perch hook is a thin client of the harness hook doors', () => {
  interface Seen {
    line: string;
    authorization: string | undefined;
    body: string;
  }

  /** A loopback forwarder to the shared hub that records every request the hook makes (method, path, key, body). */
  async function recorder(): Promise<{ mcpUrl: string; seen: Seen[]; close(): Promise<void> }> {
    const seen: Seen[] = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        seen.push({ line: `${req.method} ${req.url}`, authorization: req.headers.authorization, body: body.toString('utf8') });
        const up = http.request({ host: '127.0.0.1', port: served.port, method: req.method, path: req.url, headers: req.headers }, (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        });
        up.on('error', () => res.destroy());
        res.on('close', () => up.destroy());
        up.end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    return {
      mcpUrl: `http://127.0.0.1:${port}/mcp`,
      seen,
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    };
  }

  test("one request per hook event: the harness's stdin posted unchanged to <base>/hook/<harness>/<event>?agent=NAME[&timeout=] with the key from PERCH_KEY_<NAME>; the door's answer printed", async () => {
    const a = await newAgent('hook-thin');
    const rec = await recorder();
    try {
      const env = { PERCH_URL: rec.mcpUrl, PERCH_KEY_THIN_BOT: a.key };
      const stdin = JSON.stringify(claudeCodeBash, null, 2);
      const run = runHook(['permission-request', '--agent', 'thin-bot', '--timeout', '30'], stdin, env);
      const req = await pendingOf(a);
      await ownerOk(served, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
      const r = await run;
      assert.equal(r.stdout, `${ALLOW_OUTPUT}\n`, r.stderr);
      assert.deepEqual(rec.seen, [
        { line: 'POST /hook/claude-code/permission-request?agent=thin-bot&timeout=30', authorization: `Bearer ${a.key}`, body: stdin },
      ]);

      rec.seen.length = 0;
      const cursorRun = runHook(['permission-request', '--agent', 'thin-bot'], JSON.stringify(cursorShell), env);
      const asked = await pendingOf(a);
      await ownerOk(served, 'requests.decide', { request_id: asked.request_id, decision: 'approve' });
      assert.equal((await cursorRun).stdout, `${CURSOR_ALLOW}\n`);
      assert.deepEqual(
        rec.seen.map((x) => x.line),
        ['POST /hook/cursor/permission-request?agent=thin-bot'],
        "Cursor's input is told by its hook_event_name",
      );

      rec.seen.length = 0;
      const pre = await runHook(['pre-tool-use', '--agent', 'thin-bot'], JSON.stringify(codexPreToolUse), env);
      assert.deepEqual([pre.code, pre.stdout, pre.stderr], [0, '', '']);
      assert.deepEqual(
        rec.seen.map((x) => [x.line, x.body]),
        [['POST /hook/codex/pre-tool-use?agent=thin-bot', JSON.stringify(codexPreToolUse)]],
        'Codex told by turn_id',
      );
    } finally {
      await rec.close();
    }
  });
});

describe('perch hook starts light', () => {
  test('bin/perch.js runs `perch hook` from its own bundle (dist/hook.js, node built-ins only), not the whole CLI', async () => {
    ensureBuilt();
    const bundle = fs.readFileSync(path.join(ROOT, 'dist', 'hook.js'), 'utf8');
    const required = [...bundle.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!);
    assert.ok(required.length > 0);
    assert.deepEqual(
      required.filter((m) => !m.startsWith('node:')),
      [],
      'dist/hook.js requires only node built-ins',
    );
    // The whole CLI (dist/cli.js) writes its V8 code cache at exit; the hook's bundle does not use one.
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-hook-cache-'));
    fs.chmodSync(cacheDir, 0o700);
    try {
      const r = await runHook(['permission-request'], 'not json', { PERCH_CODE_CACHE_DIR: cacheDir });
      assert.equal(r.code, 0);
      assert.deepEqual(fs.readdirSync(cacheDir), [], 'dist/cli.js was not loaded');
    } finally {
      fs.rmSync(cacheDir, { recursive: true, force: true });
    }
  });
});
