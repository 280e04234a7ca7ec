// Bad input over a real `perch serve`: each case gets a clear error AND changes nothing.
// HTTP-level refusals (401, 403, 413, 400, 429) are sent raw; tool-level refusals go through the
// official clients of both eras.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { LIMITS } from '../../src/shared/limits';
import {
  ERAS,
  ERA_NAME,
  addAgent,
  cliAsync,
  connect,
  rawCall,
  rawPost,
  startServe,
  tempDataDir,
  uniqueName,
  useSharedServe,
  type AgentClient,
  type AgentKey,
  type Era,
} from '../support/serve-harness';

type R = Record<string, any>;

let owner: AgentKey; // the agent that owns the conversation used to check that nothing changed
let convId: string;
const served = useSharedServe({}, async (s) => {
  owner = await addAgent(s.dataDir, 'keeper');
  await addAgent(s.dataDir, 'watcher');
  const g = await rawCall(s.mcpUrl, owner.key, 'create_group', { title: 'guarded', members: ['watcher'] });
  convId = g.structuredContent!.conversation.conv_id;
  await rawCall(s.mcpUrl, owner.key, 'send_message', { conv_id: convId, text: 'the only message' });
});

/** The conversation's history as the keeper sees it (without the per-call request_id). */
async function snapshot(): Promise<R> {
  const r = await rawCall(served.mcpUrl, owner.key, 'get_history', { conv_id: convId, limit: 200 });
  assert.ok(!r.isError, JSON.stringify(r.structuredContent));
  const { request_id: _id, ...h } = r.structuredContent!;
  return h;
}

function sendBody(text = 'should not be stored', id: number | string = 1): R {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'send_message', arguments: { conv_id: convId, text } } };
}

/** A raw request with full control of the headers (fetch will not let us set Host). */
function rawHttp(
  port: number,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; json: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers },
        timeout: 10_000,
      },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (c: string) => (text += c))
          .on('end', () => {
            let json: any;
            try {
              json = JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode!, headers: res.headers, json });
          });
      },
    );
    req.on('timeout', () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(body);
  });
}

describe('HTTP-level refusals (raw requests)', () => {
  test('absent key → 401 with WWW-Authenticate, and nothing changes', async () => {
    const before = await snapshot();
    const r = await rawPost(served.mcpUrl, undefined, sendBody());
    assert.equal(r.status, 401);
    assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.equal(r.json.error.code, -32001);
    assert.match(r.json.error.message, /Authorization: Bearer/);
    assert.deepEqual(await snapshot(), before);
  });

  test('wrong key → 401, and nothing changes', async () => {
    const before = await snapshot();
    for (const key of ['perch_wrongwrongwrongwrongwrongwrong', 'not-even-a-perch-key']) {
      const r = await rawPost(served.mcpUrl, key, sendBody());
      assert.equal(r.status, 401, key);
      assert.match(r.json.error.message, /wrong or was revoked/);
    }
    const basic = await rawPost(served.mcpUrl, undefined, sendBody(), { Authorization: `Basic ${owner.key}` });
    assert.equal(basic.status, 401, 'only a bearer key counts');
    assert.deepEqual(await snapshot(), before);
  });

  test('a revoked key → 401 (revoked with the CLI while the hub runs), and nothing changes', async () => {
    const k = await addAgent(served.dataDir, uniqueName('revokee'));
    const ok = await rawCall(served.mcpUrl, k.key, 'whoami');
    assert.equal(ok.structuredContent!.agent.id, k.id);
    const rv = await cliAsync(['agent', 'revoke', k.name, '--data-dir', served.dataDir, '--json']);
    assert.equal(rv.code, 0, rv.stderr);
    const before = await snapshot();
    const r = await rawPost(served.mcpUrl, k.key, sendBody());
    assert.equal(r.status, 401);
    assert.deepEqual(await snapshot(), before);
  });

  test('a foreign Origin → 403 (DNS rebinding), and nothing changes', async () => {
    const before = await snapshot();
    for (const origin of ['http://evil.example', 'https://127.0.0.1.evil.example', 'null']) {
      const r = await rawPost(served.mcpUrl, owner.key, sendBody(), { Origin: origin });
      assert.equal(r.status, 403, origin);
      assert.match(r.json.error.message, /origin/i);
    }
    // A loopback Origin is fine.
    const fine = await rawPost(
      served.mcpUrl,
      owner.key,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
      { Origin: `http://localhost:${served.port}` },
    );
    assert.equal(fine.status, 200);
    assert.deepEqual(await snapshot(), before);
  });

  test('a Host that is not a loopback name → 403, and nothing changes', async () => {
    const before = await snapshot();
    for (const host of [`evil.example:${served.port}`, `127.0.0.1.nip.io:${served.port}`, `localhost.evil.example`]) {
      const r = await rawHttp(served.port, { Host: host, Authorization: `Bearer ${owner.key}` }, JSON.stringify(sendBody()));
      assert.equal(r.status, 403, host);
      assert.match(r.json.error.message, /Host/);
    }
    const fine = await rawHttp(
      served.port,
      { Host: `localhost:${served.port}`, Authorization: `Bearer ${owner.key}` },
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    );
    assert.equal(fine.status, 200);
    assert.deepEqual(await snapshot(), before);
  });

  test('a body over 1 MiB → 413, and nothing changes', async () => {
    const before = await snapshot();
    const big = sendBody('x'.repeat(LIMITS.maxBodyBytes + 10));
    const r = await rawPost(served.mcpUrl, owner.key, big);
    assert.equal(r.status, 413);
    assert.match(r.json.error.message, /too large/i);
    // A declared length over the largest limit is refused before the body is read.
    const huge = await rawHttp(
      served.port,
      { Host: `127.0.0.1:${served.port}`, Authorization: `Bearer ${owner.key}`, 'Content-Length': String(LIMITS.maxFileBodyBytes + 1) },
      '',
    );
    assert.equal(huge.status, 413);
    assert.deepEqual(await snapshot(), before);
  });

  test('malformed JSON → 400 with parse error -32700, and nothing changes', async () => {
    const before = await snapshot();
    const r = await rawPost(served.mcpUrl, owner.key, '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_message"');
    assert.equal(r.status, 400);
    assert.equal(r.json.error.code, -32700);
    assert.equal(r.json.id, null);
    const notRpc = await rawPost(served.mcpUrl, owner.key, { hello: 'world' });
    assert.equal(notRpc.status, 400);
    assert.equal(notRpc.json.error.code, -32600);
    assert.deepEqual(await snapshot(), before);
  });

  test('a JSON-RPC batch is refused (400, -32600), and nothing in it runs', async () => {
    const before = await snapshot();
    const r = await rawPost(served.mcpUrl, owner.key, [sendBody('batched 1', 1), sendBody('batched 2', 2)]);
    assert.equal(r.status, 400);
    assert.equal(r.json.error.code, -32600);
    assert.match(r.json.error.message, /batch/i);
    assert.deepEqual(await snapshot(), before);
  });

  test('GET and DELETE on /mcp → 405 with Allow: POST', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(served.mcpUrl, { method, headers: { Authorization: `Bearer ${owner.key}`, Accept: 'text/event-stream' } });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'POST');
      await res.text();
    }
  });

  test('the 2026 validation ladder: a _meta envelope without the matching header is refused (400)', async () => {
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const noHeader = await rawPost(served.mcpUrl, owner.key, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } });
    assert.equal(noHeader.status, 400);
    assert.equal(noHeader.json.error.code, -32020);
    const future = await rawPost(
      served.mcpUrl,
      owner.key,
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/list',
        params: { _meta: { ...meta, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } },
      },
      { 'MCP-Protocol-Version': '2027-01-01' },
    );
    assert.equal(future.status, 400);
    assert.equal(future.json.error.code, -32022);
    assert.deepEqual(future.json.error.data.supported, ['2026-07-28']);
  });

  test('the 2026 era: an Mcp-Name header that does not name the called tool is refused (400, -32020), and nothing runs', async () => {
    const before = await snapshot();
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
    const body = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'send_message', arguments: { conv_id: convId, text: 'smuggled' }, _meta: meta },
    };
    const headers = { 'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call' };
    const r = await rawPost(served.mcpUrl, owner.key, body, { ...headers, 'Mcp-Name': 'whoami' });
    assert.equal(r.status, 400);
    assert.equal(r.json.error.code, -32020);
    assert.match(r.json.error.message, /Mcp-Name/);
    const method = await rawPost(served.mcpUrl, owner.key, body, { ...headers, 'Mcp-Method': 'tools/list', 'Mcp-Name': 'send_message' });
    assert.equal(method.status, 400);
    assert.equal(method.json.error.code, -32020);
    assert.deepEqual(await snapshot(), before);
    // The base64 form of a matching name is accepted.
    const ok = await rawPost(
      served.mcpUrl,
      owner.key,
      { ...body, params: { name: 'whoami', arguments: {}, _meta: meta } },
      { ...headers, 'Mcp-Name': `=?base64?${Buffer.from('whoami').toString('base64')}?=` },
    );
    assert.equal(ok.status, 200);
    assert.equal(ok.json.result.resultType, 'complete');
  });
});

describe('rate limit (a hub started with --rate 5)', () => {
  test('over the per-agent rate → 429 with Retry-After; refused calls change nothing', async () => {
    const dir = tempDataDir();
    const hub = await startServe(dir, { args: ['--rate', '5'] });
    try {
      const a = await addAgent(dir, 'hasty');
      const g = await rawCall(hub.mcpUrl, a.key, 'create_group', { title: 'rl', members: [] });
      const conv = g.structuredContent!.conversation.conv_id;
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          rawPost(
            hub.mcpUrl,
            a.key,
            {
              jsonrpc: '2.0',
              id: i,
              method: 'tools/call',
              params: { name: 'send_message', arguments: { conv_id: conv, text: `burst ${i}` } },
            },
            { 'MCP-Protocol-Version': '2025-11-25' },
          ),
        ),
      );
      const limited = results.filter((r) => r.status === 429);
      const okSent = results.filter((r) => r.status === 200).map((r) => r.json.result.structuredContent.msg_id as string);
      assert.ok(limited.length > 0, 'some calls were refused with 429');
      assert.ok(okSent.length > 0 && okSent.length <= 15, `the burst allowance is small at --rate 5 (${okSent.length} passed)`);
      for (const r of limited) {
        const ra = Number(r.headers.get('retry-after'));
        assert.ok(Number.isInteger(ra) && ra >= 1, `Retry-After is a whole number of seconds: ${r.headers.get('retry-after')}`);
        assert.equal(r.json.error.data.code, 'rate_limited');
      }
      await new Promise((r) => setTimeout(r, 2000)); // let the bucket refill
      const h = await rawCall(hub.mcpUrl, a.key, 'get_history', { conv_id: conv, limit: 200 });
      const stored = h
        .structuredContent!.events.filter((e: R) => e.type === 'message.created')
        .map((e: R) => e.message.msg_id)
        .sort();
      assert.deepEqual(stored, [...okSent].sort(), 'exactly the accepted sends are stored');
    } finally {
      await hub.stop();
    }
  });
});

for (const era of ERAS) {
  describe(`tool-level refusals, ${ERA_NAME[era]}`, () => {
    let a: AgentClient;
    let outsider: AgentClient;
    before(async () => {
      a = await connect(era, served.mcpUrl, owner);
      outsider = await connect(era, served.mcpUrl, await addAgent(served.dataDir, uniqueName(`out-${era}`)));
      served.closeAfter(a, outsider);
    });

    test('an official client cannot connect with a wrong key (401)', async () => {
      await assert.rejects(
        connect(era as Era, served.mcpUrl, { id: 'x', name: 'x', key: 'perch_definitelyNotAKeyOfThisHub000' }),
        (e: any) => {
          const status = era === 'v1' ? e.code : e.data?.status;
          assert.equal(status, 401, `${e.constructor?.name} ${e.code} ${e.message}`);
          return true;
        },
      );
    });

    test('an unknown tool → a JSON-RPC error naming the tool, and nothing changes', async () => {
      const before = await snapshot();
      await assert.rejects(a.call('delete_everything', { conv_id: convId }), (e: any) => {
        assert.equal(e.code, -32602);
        assert.match(e.message, /Unknown tool/);
        assert.match(e.message, /delete_everything/);
        return true;
      });
      assert.deepEqual(await snapshot(), before);
    });

    test('missing or mistyped arguments → isError invalid_argument naming the field, and nothing changes', async () => {
      const before = await snapshot();
      const missing = await a.fail('send_message', { conv_id: convId });
      assert.equal(missing.code, 'invalid_argument');
      assert.match(missing.message, /text/);
      const mistyped = await a.fail('send_message', { conv_id: convId, text: 42 });
      assert.equal(mistyped.code, 'invalid_argument');
      assert.match(mistyped.message, /text/);
      const badEnum = await a.fail('send_message', { conv_id: convId, text: 'x', intent: 'shout' });
      assert.equal(badEnum.code, 'invalid_argument');
      assert.match(badEnum.message, /intent/);
      const unknownArg = await a.fail('send_message', { conv_id: convId, text: 'x', colour: 'red' });
      assert.equal(unknownArg.code, 'invalid_argument');
      const badLimit = await a.fail('get_updates', { limit: 'ten' });
      assert.equal(badLimit.code, 'invalid_argument');
      const notMember = await a.fail('send_message', { conv_id: convId, text: 'x', to: ['nobody-by-this-name'] });
      assert.equal(notMember.code, 'invalid_argument');
      assert.deepEqual(await snapshot(), before);
    });

    test('unknown conversation or message ids → not_found, and nothing changes', async () => {
      const before = await snapshot();
      assert.equal((await a.fail('send_message', { conv_id: 'c_0000000000000000', text: 'into the void' })).code, 'not_found');
      assert.equal((await a.fail('get_history', { conv_id: 'c_0000000000000000' })).code, 'not_found');
      assert.equal((await a.fail('edit_message', { msg_id: 'm_0000000000000000', text: 'x' })).code, 'not_found');
      assert.equal((await a.fail('recall_message', { msg_id: 'm_0000000000000000' })).code, 'not_found');
      assert.equal((await a.fail('react', { conv_id: convId, msg_id: 'm_0000000000000000', key: '👀' })).code, 'not_found');
      assert.equal((await a.fail('send_message', { conv_id: convId, text: 'x', reply_to: 'm_0000000000000000' })).code, 'not_found');
      assert.equal((await a.fail('send_message', { conv_id: convId, text: 'x', thread_id: 'm_0000000000000000' })).code, 'not_found');
      assert.equal((await a.fail('get_thread', { conv_id: convId, thread_id: 'm_0000000000000000' })).code, 'not_found');
      assert.equal((await a.fail('find_user', { name: 'nobody-by-this-name' })).code, 'not_found');
      assert.equal((await a.fail('open_direct', { user: 'nobody-by-this-name' })).code, 'not_found');
      assert.deepEqual(await snapshot(), before);
    });

    test('text over LIMITS.maxTextChars → too_large, and nothing changes', async () => {
      const before = await snapshot();
      const e = await a.fail('send_message', { conv_id: convId, text: 'y'.repeat(LIMITS.maxTextChars + 1) });
      assert.equal(e.code, 'too_large');
      assert.match(e.message, new RegExp(String(LIMITS.maxTextChars)));
      assert.deepEqual(await snapshot(), before);
      // Exactly at the limit is accepted (in a scratch group, so the guarded conversation stays as it was).
      const scratch = await a.ok('create_group', { title: `scratch ${era}`, members: [] });
      const at = await a.ok('send_message', { conv_id: scratch.conversation.conv_id, text: 'z'.repeat(LIMITS.maxTextChars) });
      assert.equal(typeof at.msg_id, 'string');
    });

    test('a non-member gets not_member and the conversation is unchanged', async () => {
      const before = await snapshot();
      assert.equal((await outsider.fail('send_message', { conv_id: convId, text: 'hi' })).code, 'not_member');
      assert.equal((await outsider.fail('get_history', { conv_id: convId })).code, 'not_member');
      assert.deepEqual(await snapshot(), before);
    });
  });
}
