// An archive merged into conversations already here (docs/archive-format.md, "Import rules"): it reuses their ids
// (from an earlier export), so the import appends after their last seq. What it may append is bounded: nothing into a
// direct conversation, into a group only what its members here wrote, and the conversation's last_seq rises only to
// the highest seq the import actually wrote, so the conversation stays writable afterwards.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeHub, callTool } from '../support/helpers';
import { runOwnerAction } from '../../src/main/owner/actions';
import { writeExport } from '../../src/main/store/export/write';
import { importExport } from '../../src/main/store/export/import';
import { cleanImage } from '../../src/main/hub/features/files/files';
import { exportEntries, fingerprint, rowsOf, withRows, type Row } from '../support/export-entries';

test("an archive reusing known conversation ids appends nothing to a direct conversation, into a group only its members' messages, and leaves last_seq at the highest seq written: owner sends and agents' send_message there still work", async () => {
  const t = makeHub();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-merge-'));
  try {
    const db = t.hub.db;
    const kit = t.agent('kit');
    const rue = t.agent('rue');
    const mallory = t.agent('mallory');
    const owner = t.hub.owner.name;
    const dm = (await callTool(t.hub, kit.id, 'open_direct', { user: owner })).conversation.conv_id as string;
    await callTool(t.hub, kit.id, 'send_message', { conv_id: dm, text: 'kit to the owner' });
    const grp = (await callTool(t.hub, kit.id, 'create_group', { title: 'Build', members: [owner, rue.name] })).conversation
      .conv_id as string;
    await callTool(t.hub, kit.id, 'send_message', { conv_id: grp, text: 'kit in the group' });

    const file = path.join(dir, 'earlier.tar.gz');
    await writeExport(t.file, file);
    const entries = await exportEntries(file);
    const convs = rowsOf(entries, 'conversations');
    const lastOf = (id: string) => convs.find((c) => c.id === id)!.last_seq as number;
    let gid = Math.max(...rowsOf(entries, 'events').map((e) => e.gid as number)) + 1000;
    const at = Date.now();
    const planted: Row[] = [];
    const plantedEvents: Row[] = [];
    const plant = (conv: string, seq: number, sender: string, text: string) => {
      const id = `m_planted${planted.length}`;
      planted.push({ ...rowsOf(entries, 'messages')[0]!, id, conv_id: conv, seq, sender_id: sender, text, created_at: at, to_ids: null });
      plantedEvents.push({ gid: gid++, conv_id: conv, seq, type: 'message.created', actor_id: sender, msg_id: id, ts: at, data: null });
    };
    const [d, g] = [lastOf(dm), lastOf(grp)];
    plant(dm, d + 1, mallory.id, 'mallory in the direct conversation');
    plant(dm, d + 2, t.hub.ownerId, 'shown as the owner in the direct conversation');
    plant(grp, g + 1, mallory.id, 'mallory, not a member, in the group');
    plant(grp, g + 2, rue.id, 'rue, a member, in the group');
    const crafted = await withRows(entries, path.join(dir, 'crafted.tar.gz'), {
      conversations: (rows) => rows.map((c) => (c.id === dm || c.id === grp ? { ...c, last_seq: Number.MAX_SAFE_INTEGER } : c)),
      messages: (rows) => [...rows, ...planted],
      events: (rows) => [...rows, ...plantedEvents],
    });

    const report = await importExport(db, crafted, { cleanImage });
    const texts = (conv: string) => db.prepare('SELECT text FROM messages WHERE conv_id = ? ORDER BY seq').pluck().all(conv) as string[];
    assert.deepEqual(texts(dm), ['kit to the owner'], 'nothing is appended to a direct conversation already here');
    assert.deepEqual(texts(grp), ['kit in the group', 'rue, a member, in the group'], "into a group only its members' messages");
    assert.equal(report.added.messages, 1);
    const lastSeq = (conv: string) => db.prepare('SELECT last_seq FROM conversations WHERE id = ?').pluck().get(conv) as number;
    assert.equal(lastSeq(dm), d, "the direct conversation's last_seq is unchanged");
    assert.equal(lastSeq(grp), g + 2, "the group's last_seq is the highest seq written");

    // Both conversations still take writes from the owner and from the agents.
    for (const conv of [dm, grp]) {
      const sent = (await runOwnerAction(t.hub, 'messages.send', { conv_id: conv, text: 'the owner, after the import' })) as {
        seq: number;
      };
      assert.equal(sent.seq, lastSeq(conv));
      const kitSent = await callTool(t.hub, kit.id, 'send_message', { conv_id: conv, text: 'kit, after the import' });
      assert.equal(typeof kitSent.msg_id, 'string');
    }
    await callTool(t.hub, rue.id, 'send_message', { conv_id: grp, text: 'rue, after the import' });
    assert.equal(lastSeq(grp), g + 5);
  } finally {
    t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a seq so high that the conversation could take no write after it (2^53 − 1) is refused with one line naming the row, nothing written', async () => {
  const t = makeHub();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-merge-'));
  try {
    const kit = t.agent('kit');
    const grp = (await callTool(t.hub, kit.id, 'create_group', { title: 'Build', members: [t.hub.owner.name] })).conversation
      .conv_id as string;
    await callTool(t.hub, kit.id, 'send_message', { conv_id: grp, text: 'kit in the group' });
    const file = path.join(dir, 'earlier.tar.gz');
    await writeExport(t.file, file);
    const entries = await exportEntries(file);
    const target = makeHub();
    try {
      const crafted = await withRows(entries, path.join(dir, 'crafted.tar.gz'), {
        messages: (rows) => rows.map((m) => ({ ...m, seq: Number.MAX_SAFE_INTEGER })),
        events: (rows) => rows.map((e) => (e.type === 'message.created' ? { ...e, seq: Number.MAX_SAFE_INTEGER } : e)),
      });
      const before = fingerprint(target.hub.db);
      await assert.rejects(
        importExport(target.hub.db, crafted, { cleanImage }),
        /^ExportFileError: messages\.jsonl line 1: field seq is 9007199254740991, outside 1\.\.\d+$/,
      );
      assert.equal(fingerprint(target.hub.db), before, 'nothing written');
    } finally {
      target.close();
    }
  } finally {
    t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
