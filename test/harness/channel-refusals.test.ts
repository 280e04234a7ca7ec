// `perch channel` refuses to start without a working key (one stderr line, exit 1), and answers bad input from the
// session (not JSON, not a request, a line over the limit) with JSON-RPC errors, serving the next line.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { BIN, ROOT, ensureBuilt, type AgentKey } from '../support/serve-harness';
import { served, cleanEnv, newAgent } from '../support/channel-kit';
describe('perch channel refuses to start without a working key', () => {
  function run(env: Record<string, string>): Promise<{ code: number | null; stderr: string; stdout: string }> {
    ensureBuilt();
    return new Promise((resolve, reject) => {
      const p = spawn(process.execPath, [BIN, 'channel'], { cwd: ROOT, env: cleanEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      let stdout = '';
      p.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
      p.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
      const timer = setTimeout(() => {
        p.kill('SIGKILL');
        reject(new Error(`perch channel did not exit; stderr: ${stderr}`));
      }, 20_000);
      p.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stderr, stdout });
      });
    });
  }

  test('no key in the environment: one stderr line naming the variable, exit 1', async () => {
    const r = await run({ PERCH_URL: served.mcpUrl });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^perch channel: no agent key: set PERCH_KEY in the environment .*\n$/);
  });

  test('no hub at PERCH_URL: one stderr line saying it cannot reach it, exit 1', async () => {
    const port = await new Promise<number>((resolve) => {
      const srv = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (srv.address() as net.AddressInfo).port;
        srv.close(() => resolve(p));
      });
    });
    const r = await run({ PERCH_URL: `http://127.0.0.1:${port}/mcp`, PERCH_KEY: 'perch_whatever' });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(
      r.stderr,
      /^perch channel: cannot reach the Perch hub at http:\/\/127\.0\.0\.1:\d+\/mcp \(ECONNREFUSED\); is `perch serve` \(or the app\) running\?\n$/,
    );
  });

  test('a key the hub refuses: one stderr line saying so, exit 1', async () => {
    const r = await run({ PERCH_URL: served.mcpUrl, PERCH_KEY: 'perch_not_a_real_key' });
    assert.equal(r.code, 1);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /^perch channel: the Perch hub at .* refused the agent key \(HTTP 401\).*\n$/);
  });
});

describe('perch channel on bad input from the session', () => {
  /** The channel spawned raw: lines written to its stdin, its stdout read line by line. */
  function rawChannel(agent: AgentKey): {
    write: (s: string) => void;
    nextLine: () => Promise<any>;
    stderr: () => string;
    end: () => Promise<number | null>;
  } {
    ensureBuilt();
    const p = spawn(process.execPath, [BIN, 'channel'], {
      cwd: ROOT,
      env: cleanEnv({ PERCH_URL: served.mcpUrl, PERCH_KEY: agent.key }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let err = '';
    let out = '';
    const waiters: Array<() => void> = [];
    p.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    p.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      for (const w of waiters.splice(0)) w();
    });
    const closed = new Promise<number | null>((resolve) => p.on('close', (code) => resolve(code)));
    return {
      write: (s) => void p.stdin.write(s),
      nextLine: async () => {
        const deadline = Date.now() + 15_000;
        while (!out.includes('\n')) {
          if (Date.now() > deadline) throw new Error(`no line on stdout; stderr: ${err}`);
          await new Promise<void>((res) => {
            waiters.push(res);
            setTimeout(res, 200);
          });
        }
        const i = out.indexOf('\n');
        const line = out.slice(0, i);
        out = out.slice(i + 1);
        return JSON.parse(line);
      },
      stderr: () => err,
      end: () => {
        p.stdin.end();
        return closed;
      },
    };
  }

  test('valid JSON that is not a request (an array, a number, an object without method) gets -32600 Invalid Request; text that is not JSON gets -32700; the session goes on', async () => {
    const a = await newAgent('chbad');
    const ch = rawChannel(a);
    ch.write('not json\n');
    assert.deepEqual((await ch.nextLine()).error?.code, -32700);
    ch.write('[{"jsonrpc":"2.0","id":1,"method":"ping"}]\n');
    const batch = await ch.nextLine();
    assert.equal(batch.id, null);
    assert.equal(batch.error?.code, -32600);
    ch.write('42\n');
    assert.equal((await ch.nextLine()).error?.code, -32600);
    ch.write('{"jsonrpc":"2.0","id":7}\n');
    const noMethod = await ch.nextLine();
    assert.equal(noMethod.id, 7);
    assert.equal(noMethod.error?.code, -32600);
    ch.write('{"jsonrpc":"2.0","id":8,"method":"ping"}\n');
    const pong = await ch.nextLine();
    assert.equal(pong.id, 8);
    assert.deepEqual(pong.result, {});
    assert.equal(await ch.end(), 0);
  });

  test('a line over the limit is dropped as it streams in (one -32600 answer, one stderr line), and the next line is served', async () => {
    const a = await newAgent('chbig');
    const ch = rawChannel(a);
    // 40 MB with no newline, written in 1 MB pieces: more than any message the hub takes (a send_file body).
    const piece = 'x'.repeat(1024 * 1024);
    ch.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"');
    for (let i = 0; i < 40; i++) ch.write(piece);
    ch.write('"}}\n');
    const tooLong = await ch.nextLine();
    assert.equal(tooLong.id, null);
    assert.equal(tooLong.error?.code, -32600);
    assert.match(tooLong.error?.message, /over \d+ bytes/);
    ch.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
    const pong = await ch.nextLine();
    assert.equal(pong.id, 2);
    assert.equal(await ch.end(), 0);
    assert.equal(ch.stderr().match(/over \d+ bytes/g)?.length, 1, ch.stderr());
  });
});
