// Every HTTP door is total: requests that once crashed `perch serve` (bad percent-encodings, NUL, an
// absolute-form target, a junk owner cookie) are refused with 400/401 and the hub lives on; file names in
// any script download; a stalled request is cut off while long waits for an answer are not.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {
  addAgent,
  alive,
  connect,
  rawPost,
  runtimeInfo,
  startServe,
  tempDataDir,
  uniqueName,
  type AgentClient,
  type Served,
} from '../support/serve-harness';
import { buildRequest, rawExchange } from '../support/raw-http';
import { sendInternalError } from '../../src/main/http-util';
import { LIMITS } from '../../src/shared/limits';
import { startHub, type RunningHub } from '../../src/main/app';
import { addAgent as addAgentInProcess } from '../../src/main/hub/control/agents';

const H: Array<[string, string]> = [
  ['Host', '127.0.0.1'],
  ['Connection', 'close'],
];

describe('a real perch serve refuses what once crashed it, and lives on', () => {
  let served: Served;
  let dataDir: string;
  const clients: AgentClient[] = [];
  before(async () => {
    dataDir = tempDataDir();
    served = await startServe(dataDir);
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await served?.stop();
  });

  const refused: Array<[string, string, number]> = [
    ['GET', '/%', 400],
    ['GET', '/%E0%A4%A', 400],
    ['GET', '/a%00b.js', 400],
    ['GET', 'http://[bad', 400],
    ['GET', '/files/%', 400],
    ['GET', '/files/%E0%A4%A', 400],
    ['GET', '/files/..%2F..%2Fetc%2Fpasswd', 404],
    ['GET', '/files/nonsense', 404],
    ['GET', '/..%2F..%2F..%2Fetc%2Fpasswd.js', 404],
    ['POST', '/mcp%', 400],
  ];
  for (const [method, target, status] of refused) {
    test(`${method} ${target} answers ${status} and the hub still answers`, async () => {
      const r = await rawExchange(served.port, buildRequest(method, target, H));
      assert.equal(r.hung, false, 'an answer came');
      assert.equal(r.status, status, `${method} ${target}: ${r.head}`);
      if (status === 400) assert.equal(JSON.parse(r.body.toString()).error.code, 'bad_request');
      assert.ok(alive(served.proc.pid!), 'the hub process is alive');
      const again = await rawExchange(served.port, buildRequest('GET', '/files/x', H));
      assert.equal(again.status, 404, 'the hub still answers');
    });
  }

  test('GET // is a path (the UI), not a host', async () => {
    const r = await rawExchange(served.port, buildRequest('GET', '//', H));
    assert.ok(r.status !== null && r.status < 500, r.head);
    assert.ok(alive(served.proc.pid!));
  });

  test('a junk owner cookie (perch_owner=%) is no session: 401 on an owner action and on the event stream, no crash', async () => {
    for (const cookie of ['perch_owner=%', 'perch_owner=%E0%A4%A; other=%%', 'perch_owner="%"', '=; ;;=x; perch_owner']) {
      const post = await rawExchange(
        served.port,
        buildRequest('POST', '/api/owner/hub.info', [...H, ['Cookie', cookie], ['x-perch-owner', '1']], '{}'),
      );
      assert.equal(post.status, 401, `POST with Cookie: ${cookie}: ${post.head}`);
      const events = await rawExchange(served.port, buildRequest('GET', '/api/owner/events', [...H, ['Cookie', cookie]]));
      assert.equal(events.status, 401, `events with Cookie: ${cookie}`);
    }
    await new Promise((r) => setTimeout(r, 200)); // an unhandled rejection would end the process on the next turn
    assert.ok(alive(served.proc.pid!), 'the hub process is alive');
    const rt = runtimeInfo(served);
    const ok = await fetch(`${rt.base_url}/api/owner/hub.info`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rt.owner_token}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    assert.equal(ok.status, 200, 'the owner API still works');
  });

  test('a malformed request line or header gets 400 from the server itself and the socket is closed', async () => {
    for (const raw of [
      'GARBAGE\r\n\r\n',
      'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n',
      'GET / HTTP/1.1\r\nBad Header\r\n\r\n',
      'GET /\x00 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n',
    ]) {
      const r = await rawExchange(served.port, raw);
      assert.equal(r.status, 400, JSON.stringify(raw));
      assert.equal(r.closed || /connection: close/i.test(r.head), true);
    }
    assert.ok(alive(served.proc.pid!));
  });

  test('报告.txt sent with send_file downloads through file_url: RFC 5987 filename* and an ASCII fallback', async () => {
    const [a, b] = await Promise.all([addAgent(dataDir, uniqueName('writer')), addAgent(dataDir, uniqueName('reader'))]);
    const ca = await connect('v1', served.mcpUrl, a);
    const cb = await connect('v2', served.mcpUrl, b);
    clients.push(ca, cb);
    const g = await ca.ok('create_group', { title: 'reports', members: [b.name] });
    const conv = g.conversation.conv_id as string;
    const content = Buffer.from('季度报告: all good\n', 'utf8');
    const sent = await ca.ok('send_file', { conv_id: conv, data: content.toString('base64'), name: '报告.txt', mime: 'text/plain' });
    assert.equal(sent.name, '报告.txt');
    const link = await cb.ok('file_url', { conv_id: conv, file_id: sent.file_id });
    const res = await fetch(link.url, { signal: AbortSignal.timeout(10_000) });
    assert.equal(res.status, 200);
    const cd = res.headers.get('content-disposition') ?? '';
    assert.match(cd, /^attachment; /);
    assert.ok(cd.includes(`filename*=UTF-8''${encodeURIComponent('报告.txt')}`), cd);
    assert.ok(cd.includes('filename="__.txt"'), `ASCII fallback in ${cd}`);
    assert.ok(/^[\x20-\x7e]*$/.test(cd), 'the header is ASCII only');
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), content);

    // The same link with its path mangled: 400 or 404, never 500.
    const u = new URL(link.url);
    for (const bad of [
      `${u.pathname}%`,
      `${u.pathname}%00`,
      `${u.pathname.slice(0, -3)}`,
      `/files/${'%E6%8A%A5'.repeat(50)}`,
      `${u.pathname}/../x`,
    ]) {
      const r = await rawExchange(served.port, buildRequest('GET', bad, H));
      assert.ok(r.status === 400 || r.status === 404, `${bad}: ${r.status}`);
    }
  });

  test('an MCP body with hostile values (objects with toString, deep nesting) gets a JSON-RPC answer, not a 500', async () => {
    const k = await addAgent(dataDir, uniqueName('hostile'));
    const deep = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    const bodies = [
      { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: { toString: 1 } } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: { toString: 1 }, arguments: {} } },
      `{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":${deep}}}`,
      `{"jsonrpc":"2.0","id":${deep},"method":"ping"}`,
    ];
    for (const body of bodies) {
      const r = await rawPost(served.mcpUrl, k.key, body, { 'MCP-Protocol-Version': '2025-11-25' });
      assert.ok(r.status < 500, `${JSON.stringify(body).slice(0, 80)}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
      assert.equal(r.json?.jsonrpc, '2.0');
    }
    assert.ok(alive(served.proc.pid!));
  });

  test('JSON nested deeper than LIMITS.maxJsonDepth is invalid_argument at the MCP and owner doors (never a stack overflow); a shallower value is stored', async () => {
    const k = await addAgent(dataDir, uniqueName('nester'));
    const nest = (d: number) => `${'['.repeat(d)}${']'.repeat(d)}`;
    const put = (key: string, value: string) =>
      rawPost(
        served.mcpUrl,
        k.key,
        `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"state_put","arguments":{"key":"${key}","version":0,"value":${value}}}}`,
        { 'MCP-Protocol-Version': '2025-11-25' },
      );
    for (const d of [LIMITS.maxJsonDepth, 5_000, 200_000]) {
      const r = await put(`deep-${d}`, nest(d));
      assert.equal(r.status, 200, `depth ${d}: ${r.text.slice(0, 200)}`);
      assert.equal(r.json.id, 7);
      assert.equal(r.json.result.isError, true);
      assert.equal(r.json.result.structuredContent.error.code, 'invalid_argument');
      assert.match(r.json.result.structuredContent.error.message, /maxJsonDepth/);
    }
    // The arguments object is level 1 and the value starts at level 2; a value 50 deep fits.
    const ok = await put('deep-50', nest(50));
    assert.equal(ok.status, 200, ok.text.slice(0, 300));
    assert.equal(ok.json.result.structuredContent.version, 1);

    const rt = runtimeInfo(served);
    const res = await fetch(`${rt.base_url}/api/owner/cards.answer`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rt.owner_token}`, 'Content-Type': 'application/json' },
      body: `{"msg_id":"m","block_id":"b","value":${nest(10_000)}}`,
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'invalid_argument');
    assert.ok(!/failed: RangeError/.test(served.stderr()), 'nothing overflowed the stack');
  });
});

describe('an unexpected failure answers 500 with a request id', () => {
  test('sendInternalError: status 500, the id in X-Request-Id and in the body', async () => {
    const server = http.createServer((_req, res) => sendInternalError(res, new Error('boom (expected by this test)'), 'test'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as { port: number }).port;
    const origWrite = process.stderr.write.bind(process.stderr);
    let logged = '';
    process.stderr.write = ((c: string) => {
      logged += c;
      return true;
    }) as typeof process.stderr.write;
    try {
      const res = await fetch(`http://127.0.0.1:${port}/`);
      const body = (await res.json()) as { request_id: string; error: { code: string; message: string } };
      assert.equal(res.status, 500);
      const id = res.headers.get('x-request-id');
      assert.ok(id && id === body.request_id, 'the same id in the header and the body');
      assert.equal(body.error.code, 'internal');
      assert.ok(body.error.message.includes(id!));
      assert.ok(logged.includes(id!) && logged.includes('boom'), 'the failure is logged with its id');
    } finally {
      process.stderr.write = origWrite;
      server.close();
    }
  });
});

describe('reading a request is bounded; waiting for an answer is not', () => {
  let running: RunningHub;
  let key: string;
  let dir: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-doors-'));
    running = await startHub({ dataDir: dir, port: 0, headersTimeoutMs: 600, requestTimeoutMs: 1200 });
    key = addAgentInProcess(running.hub, { name: uniqueName('sleeper') }).key;
  });
  after(async () => {
    await running?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a body shorter than its Content-Length is cut off (408 or closed), not waited for forever', async () => {
    const head = buildRequest(
      'POST',
      '/mcp',
      [
        ['Host', '127.0.0.1'],
        ['Authorization', `Bearer ${key}`],
        ['Content-Type', 'application/json'],
      ],
      '',
      100,
    );
    const r = await rawExchange(running.port, Buffer.concat([head, Buffer.from('{"jsonrpc"')]), { timeoutMs: 15_000 });
    assert.equal(r.hung, false, 'the hub ended the stalled request');
    assert.ok(r.status === 408 || (r.status === null && r.closed), `408 or a close, got ${r.status} ${r.head}`);
  });

  test('headers dribbled in slower than the headers timeout are cut off before they finish', async () => {
    const pieces = ['POST /mcp HTTP/1.1\r\n', ...Array.from({ length: 30 }, (_, i) => `X-Drip-${i}: ${i}\r\n`), 'Host: 127.0.0.1\r\n\r\n'];
    const r = await rawExchange(running.port, '', { pieces, pieceDelayMs: 250, timeoutMs: 15_000 });
    assert.equal(r.hung, false);
    assert.ok(r.status === 408 || (r.status === null && r.closed), `408 or a close, got ${r.status}`);
    assert.ok(r.ms < 31 * 250, `cut off before the last piece (after ${r.ms} ms)`);
  });

  test('a keep-alive connection, idle longer than the headers timeout between requests, keeps being served', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const sockets = new Set<unknown>();
    try {
      for (let i = 0; i < 4; i++) {
        const status = await new Promise<number>((resolve, reject) => {
          const req = http.request(
            `${running.baseUrl}/mcp`,
            { method: 'POST', agent, headers: { Host: '127.0.0.1', 'Content-Type': 'application/json' } },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode!));
            },
          );
          req.on('socket', (s) => sockets.add(s));
          req.on('error', reject);
          req.end('{}');
        });
        assert.equal(status, 401, `request ${i} on the kept-alive connection is answered (not 408)`);
        if (i < 3) await new Promise((r) => setTimeout(r, 900)); // idle past the 600 ms headers timeout
      }
      assert.equal(sockets.size, 1, 'all requests went over one connection (2.7 s, over twice the request timeout)');
    } finally {
      agent.destroy();
    }
  });

  test('a get_updates long-poll (wait_secs 3) longer than the request timeout returns normally; the owner event stream stays open', async () => {
    const rt = runtimeInfo({ dataDir: dir });
    const events: string[] = [];
    const stream = await new Promise<http.IncomingMessage>((resolve, reject) => {
      http
        .get(`${running.baseUrl}/api/owner/events`, { headers: { Authorization: `Bearer ${rt.owner_token}` } }, resolve)
        .on('error', reject);
    });
    assert.equal(stream.statusCode, 200);
    let streamClosed = false;
    stream.setEncoding('utf8').on('data', (c: string) => events.push(c));
    stream.on('close', () => (streamClosed = true));
    await new Promise((r) => setTimeout(r, 2000)); // older than the request timeout
    const started = Date.now();
    const r = await rawPost(
      running.mcpUrl,
      key,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_updates', arguments: { wait_secs: 3 } } },
      { 'MCP-Protocol-Version': '2025-11-25' },
    );
    const waited = Date.now() - started;
    assert.equal(r.status, 200, r.text.slice(0, 300));
    assert.equal(r.json.result.isError, undefined, r.text.slice(0, 300));
    assert.ok(Array.isArray(r.json.result.structuredContent.events));
    assert.ok(waited >= 2500, `the call waited its wait_secs (${waited} ms), past the 1.2 s request timeout`);
    assert.equal(streamClosed, false, 'the event stream is still open');
    assert.ok(events.join('').includes('"waiting"'), "the stream carried the agent's waiting state while it waited");
    stream.destroy();
  });
});
