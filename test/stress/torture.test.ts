// The kill -9 loop (test/support/torture.ts, also `npm run torture`) for 5 rounds, and proof that its checks
// catch what they look for: a lost message, a duplicate, a seq gap and a corrupt file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { addAgent, rawCall, removeDataDir, startServe, tempDataDir } from '../support/serve-harness';
import { checkStore, formatTortureSummary, integrityCheck, runTorture, tortureClean, tortureText, type Ack } from '../support/torture';

test('5 rounds of SIGKILL mid-burst with 8 writers retrying by client_msg_id: nothing acknowledged is lost or duplicated, the file stays intact, seqs stay gap-free', async (t) => {
  const report = await runTorture({ rounds: 5, log: (line) => t.diagnostic(line) });
  t.diagnostic(formatTortureSummary(report));
  assert.equal(report.rounds, 5);
  assert.equal(report.restartMs.samples.length, 5, 'the hub was restarted after every kill');
  assert.ok(report.acked > 0, 'messages were acknowledged');
  assert.ok(
    report.inFlightAtKill.every((n) => n > 0),
    `every kill hit requests in flight: ${report.inFlightAtKill.join(', ')}`,
  );
  assert.deepEqual(report.problems, [], 'no problems found');
  assert.equal(report.lost, 0, 'no acknowledged message lost');
  assert.equal(report.duplicated, 0, 'no client_msg_id stored twice');
  assert.equal(report.integrityFailures, 0, 'PRAGMA integrity_check ok after every kill and at the end');
  assert.equal(report.seqGaps, 0, 'per-conversation seqs gap-free');
  assert.equal(report.unexpectedErrors, 0);
  assert.ok(tortureClean(report));
});

test('the torture checks find a lost message, a duplicate, a seq gap and a corrupt file', async () => {
  const dir = tempDataDir();
  try {
    const hub = await startServe(dir);
    const a = await addAgent(dir, 'checked');
    const b = await addAgent(dir, 'peer');
    let conv: string;
    const acked = new Map<string, Ack>();
    try {
      const g = await rawCall(hub.mcpUrl, a.key, 'create_group', { title: 'checked', members: [b.name] });
      conv = g.structuredContent!.conversation.conv_id as string;
      for (const cid of ['c1', 'c2', 'c3']) {
        const r = await rawCall(hub.mcpUrl, a.key, 'send_message', { conv_id: conv, text: tortureText(cid), client_msg_id: cid });
        assert.ok(!r.isError);
        const sc = r.structuredContent!;
        acked.set(cid, { msg_id: sc.msg_id, seq: sc.seq, conv, text: tortureText(cid) });
      }
    } finally {
      await hub.stop();
    }
    const file = path.join(dir, 'perch.sqlite');
    assert.equal(integrityCheck(file), 'ok');
    assert.deepEqual(checkStore(file, [conv], acked), { duplicated: [], lost: [], gaps: [] }, 'a good file has no findings');

    // Sabotage: c2 and its event disappear (a loss and a gap); c3 is stored a second time.
    const db = new Database(file);
    try {
      const c2 = acked.get('c2')!;
      db.prepare('DELETE FROM messages WHERE id = ?').run(c2.msg_id);
      db.prepare('DELETE FROM events WHERE conv_id = ? AND seq = ?').run(conv, c2.seq);
      db.prepare(
        `INSERT INTO messages (id, conv_id, seq, sender_id, kind, text, created_at)
                  SELECT 'dup-of-c3', conv_id, seq + 1000, sender_id, kind, text, created_at FROM messages WHERE id = ?`,
      ).run(acked.get('c3')!.msg_id);
    } finally {
      db.close();
    }
    const found = checkStore(file, [conv], acked);
    assert.deepEqual(
      found.lost.map((l) => l.cid),
      ['c2'],
      'the deleted message is reported lost',
    );
    assert.deepEqual(
      found.duplicated.map((d) => d.text),
      [tortureText('c3')],
      'the copied message is reported duplicated',
    );
    assert.equal(found.gaps.length, 1, 'the missing event is a seq gap');

    // A damaged page: integrity_check (or opening) fails.
    const fd = fs.openSync(file, 'r+');
    try {
      const size = fs.fstatSync(fd).size;
      fs.writeSync(fd, Buffer.alloc(Math.min(8192, size - 4096), 0xa5), 0, undefined, 4096);
    } finally {
      fs.closeSync(fd);
    }
    assert.notEqual(integrityCheck(file), 'ok', 'a damaged file fails integrity_check');
  } finally {
    removeDataDir(dir);
  }
});
