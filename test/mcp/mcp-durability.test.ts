// Nothing acknowledged is lost (docs/design.md, "What always holds" 7): a burst of send_message calls, the hub killed
// with SIGKILL in the middle of it, restarted on the same data dir: every message whose call returned
// success is there (through the MCP door and in the SQLite file itself), and the log stays gap-free.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { addAgent, rawCall, rawPost, startServe, tempDataDir, type Served } from '../support/serve-harness';

type R = Record<string, any>;

const TOTAL = 300;
const IN_FLIGHT = 8;
const KILL_AFTER = 120;

test('SIGKILL in the middle of a send_message burst loses no message whose call returned success', async () => {
  const dir = tempDataDir();
  let hub: Served | undefined = await startServe(dir, {
    args: ['--rate', '0'],
    env: { PERCH_BRAKES: 'off' },
  }); /* a burst, not a conversation: no brakes */
  try {
    const a = await addAgent(dir, 'burster');
    const b = await addAgent(dir, 'listener');
    const g = await rawCall(hub.mcpUrl, a.key, 'create_group', { title: 'burst', members: ['listener'] });
    const convId = g.structuredContent!.conversation.conv_id as string;

    const acked = new Map<string, { msg_id: string; seq: number; text: string }>();
    let failures = 0;
    let next = 0;
    let killed: Promise<void> | undefined;
    const url = hub.mcpUrl;
    const worker = async () => {
      while (next < TOTAL) {
        const i = next++;
        const text = `burst message ${i}`;
        let r;
        try {
          r = await rawPost(
            url,
            a.key,
            {
              jsonrpc: '2.0',
              id: i,
              method: 'tools/call',
              params: { name: 'send_message', arguments: { conv_id: convId, text, client_msg_id: `b-${i}` } },
            },
            { 'MCP-Protocol-Version': '2025-11-25' },
          );
        } catch {
          failures++;
          return; // the hub is gone
        }
        if (r.status !== 200 || !r.json?.result || r.json.result.isError) {
          failures++;
          continue;
        }
        const sc = r.json.result.structuredContent;
        acked.set(`b-${i}`, { msg_id: sc.msg_id, seq: sc.seq, text });
        if (acked.size === KILL_AFTER && !killed) killed = hub!.kill();
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    assert.ok(killed, `the hub was killed mid-burst (acked ${acked.size}, failures ${failures})`);
    await killed;
    assert.equal(hub.proc.signalCode, 'SIGKILL');
    assert.ok(acked.size >= KILL_AFTER && acked.size < TOTAL, `the burst was cut: ${acked.size} of ${TOTAL} acknowledged`);

    // 1. The SQLite file itself (read-only, while no hub runs).
    const db = new Database(path.join(dir, 'perch.sqlite'), { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare('SELECT id, seq, text FROM messages WHERE conv_id = ?').all(convId) as Array<{
        id: string;
        seq: number;
        text: string;
      }>;
      const byId = new Map(rows.map((r) => [r.id, r]));
      for (const [cid, m] of acked) {
        const row = byId.get(m.msg_id);
        assert.ok(row, `acknowledged message ${cid} (${m.msg_id}) is in the database`);
        assert.equal(row.seq, m.seq);
        assert.equal(row.text, m.text);
      }
      const seqs = (db.prepare('SELECT seq FROM events WHERE conv_id = ? ORDER BY seq').all(convId) as Array<{ seq: number }>).map(
        (r) => r.seq,
      );
      assert.deepEqual(
        seqs,
        seqs.map((_, i) => i + 1),
        'the conversation log is gap-free after the crash',
      );
    } finally {
      db.close();
    }

    // 2. Through the MCP door of a restarted hub.
    hub = await startServe(dir, { args: ['--rate', '0'], env: { PERCH_BRAKES: 'off' } }); /* a burst, not a conversation: no brakes */
    const seen = new Set<string>();
    let before: number | undefined;
    for (let guard = 0; guard < 20; guard++) {
      const h = await rawCall(hub.mcpUrl, b.key, 'get_history', {
        conv_id: convId,
        limit: 200,
        ...(before !== undefined ? { before_seq: before } : {}),
      });
      const sc = h.structuredContent!;
      for (const e of sc.events as R[]) if (e.type === 'message.created') seen.add(e.message.msg_id);
      if (!sc.more || sc.first_seq === null) break;
      before = sc.first_seq;
    }
    for (const [cid, m] of acked) assert.ok(seen.has(m.msg_id), `acknowledged message ${cid} is in get_history after the restart`);
    const found = await rawCall(hub.mcpUrl, b.key, 'search', {
      query: `burst message ${[...acked.values()][0]!.text.split(' ').pop()}`,
      conv_id: convId,
    });
    assert.ok(found.structuredContent!.messages.length >= 1, 'search finds an acknowledged message after the restart');

    // 3. A retry of an acknowledged send after the crash is still recognised (its idempotency record survived).
    const [cid, first] = [...acked][0]!;
    const retry = await rawCall(hub.mcpUrl, a.key, 'send_message', { conv_id: convId, text: first.text, client_msg_id: cid });
    assert.equal(retry.structuredContent!.msg_id, first.msg_id);
  } finally {
    await hub?.stop();
  }
});
