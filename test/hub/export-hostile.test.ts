// Hostile archives (docs/archive-format.md, "Import rules"): an archive is refused with one line naming the entry and row, and
// nothing written, when a row points at anything outside the archive or carries a value live input could not
// have; what it may write never lands in what is already here, and it never attests for a person.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeHub, callTool, type TestHub } from '../support/helpers';
import { gpsJpeg } from '../support/images';
import { runOwnerAction } from '../../src/main/owner/actions';
import { writeExport } from '../../src/main/store/export/write';
import { importExport } from '../../src/main/store/export/import';
import { cleanImage } from '../../src/main/hub/features/files/files';
import { ExportFileError, importLimitNote } from '../../src/main/store/export/read';
import { exportEntries, fingerprint, jsonl, replaceEntry, rewrite, rowsOf, withRows, type Row } from '../support/export-entries';

/** The import is refused with an ExportFileError of one line matching `message`, and nothing is written. */
async function refused(t: TestHub, file: string, message: RegExp, what: string): Promise<void> {
  const before = fingerprint(t.hub.db);
  for (const dryRun of [true, false]) {
    await assert.rejects(importExport(t.hub.db, file, { dryRun, cleanImage }), (err: unknown) => {
      assert.ok(err instanceof ExportFileError, `${what}: an ExportFileError, got ${String(err)}`);
      assert.match(err.message, message, what);
      assert.ok(!err.message.includes('\n'), `${what}: one line`);
      return true;
    });
    assert.equal(fingerprint(t.hub.db), before, `${what}${dryRun ? ' (dry run)' : ''}: nothing written`);
    assert.equal(t.hub.db.inTransaction, false);
  }
}

interface Source {
  src: TestHub;
  entries: Map<string, Buffer>;
  dir: string;
  group: string;
  mallory: string;
  alice: string;
  msg: string;
}

/** A hub of mallory's (and an alice) with one group of mallory and the owner, exported. */
async function mallorySource(): Promise<Source> {
  const src = makeHub();
  const mallory = src.agent('mallory');
  const alice = src.agent('alice');
  const group = (await callTool(src.hub, mallory.id, 'create_group', { title: "Mallory's corner", members: [src.hub.owner.name] }))
    .conversation.conv_id as string;
  const msg = (await callTool(src.hub, mallory.id, 'send_message', { conv_id: group, text: 'hello from mallory' })).msg_id as string;
  await callTool(src.hub, alice.id, 'state_put', { key: 'plan', value: { from: 'archive' }, version: 0 });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-hostile-'));
  const file = path.join(dir, 'mallory.tar.gz');
  await writeExport(src.file, file);
  return { src, entries: await exportEntries(file), dir, group, mallory: mallory.id, alice: alice.id, msg };
}

/** Runs `fn` with mallory's exported hub and an empty target hub; closes both and removes the folder afterwards. */
async function withSource(fn: (s: Source, target: TestHub) => Promise<void>): Promise<void> {
  const s = await mallorySource();
  const target = makeHub();
  try {
    await fn(s, target);
  } finally {
    target.close();
    s.src.close();
    fs.rmSync(s.dir, { recursive: true, force: true });
  }
}

test("a hostile archive cannot point outside itself: a new group of mallory whose pins, events, replies or hidden marks name another agent's private direct message (or a live one), or a direct conversation with mallory in it, is refused with one line and nothing written; mallory's list_pins and get_history never show it", async () => {
  await withSource(async (s, target) => {
    const alice = target.agent('alice');
    const mallory = target.agent('mallory');
    const owner = target.hub.owner.name;
    const dm = (await callTool(target.hub, alice.id, 'open_direct', { user: owner })).conversation.conv_id as string;
    const secret = (await callTool(target.hub, alice.id, 'send_message', { conv_id: dm, text: 'PRIVATE: the launch code is 7719' }))
      .msg_id as string;
    const hers = (await callTool(target.hub, mallory.id, 'create_group', { title: 'Here', members: [owner] })).conversation
      .conv_id as string;
    const live = (await callTool(target.hub, mallory.id, 'send_message', { conv_id: hers, text: 'mallory said this live' }))
      .msg_id as string;
    const at = Date.now();
    const lastSeq = rowsOf(s.entries, 'conversations').find((c) => c.id === s.group)!.last_seq as number;
    const gid = Math.max(...rowsOf(s.entries, 'events').map((e) => e.gid as number)) + 1;
    const ownerSrc = s.src.hub.ownerId;
    const crafted: Array<[string, Record<string, (rows: Row[]) => Row[]>, RegExp]> = [
      [
        'a pin naming the private message',
        { pins: () => [{ conv_id: s.group, msg_id: secret, pinned_by: s.mallory, pinned_at: at }] },
        new RegExp(`^pins\\.jsonl line 1: msg_id "${secret}" is not in the archive's messages; an archive may only point at its own rows$`),
      ],
      [
        'an event naming the private message',
        {
          events: (rows) => [
            ...rows,
            { gid, conv_id: s.group, seq: lastSeq + 1, type: 'message.created', actor_id: s.mallory, msg_id: secret, ts: at, data: null },
          ],
          conversations: (rows) => rows.map((c) => (c.id === s.group ? { ...c, last_seq: lastSeq + 1 } : c)),
        },
        /^events\.jsonl line \d+: msg_id "m_[0-9a-f]+" is not in the archive's messages/,
      ],
      [
        'a reply and thread naming the private message',
        { messages: (rows) => rows.map((m) => (m.id === s.msg ? { ...m, reply_to: secret, thread_id: secret } : m)) },
        /^messages\.jsonl line \d+: reply_to "m_[0-9a-f]+" is not in the archive's messages/,
      ],
      [
        "a hidden mark on mallory's live message",
        { hidden_messages: () => [{ user_id: ownerSrc, msg_id: live, hidden_at: at }] },
        /^hidden_messages\.jsonl line 1: msg_id "m_[0-9a-f]+" is not in the archive's messages/,
      ],
      [
        'a pin naming a message of another conversation of the archive',
        {
          pins: () => [
            {
              conv_id: rowsOf(s.entries, 'conversations').find((c) => c.id !== s.group)!.id,
              msg_id: s.msg,
              pinned_by: s.mallory,
              pinned_at: at,
            },
          ],
        },
        /^pins\.jsonl line 1: msg_id "m_[0-9a-f]+" is a message of another conversation/,
      ],
      [
        'a direct conversation of alice and the owner with mallory in it',
        {
          conversations: (rows) =>
            rows.map((c) => (c.id === s.group ? { ...c, kind: 'direct', direct_key: [ownerSrc, s.alice].sort().join(':') } : c)),
        },
        /^members\.jsonl line \d+: "a_[0-9a-f]+" is a member of direct conversation "c_[0-9a-f]+" but not one of its two people$/,
      ],
      [
        'a member who is not in the archive',
        { members: (rows) => [...rows, { conv_id: s.group, user_id: alice.id, role: 'member', from_seq: 0, joined_at: at, read_seq: 0 }] },
        /^members\.jsonl line \d+: user_id "a_[0-9a-f]+" is not in the archive's users/,
      ],
    ];
    for (const [what, edit, message] of crafted) {
      const file = await withRows(s.entries, path.join(s.dir, `${what.replace(/\W+/g, '-')}.tar.gz`), edit);
      await refused(target, file, message, what);
    }
    // Mallory sees nothing of the private message anywhere she can look.
    const convs = (await callTool(target.hub, mallory.id, 'list_conversations', {})).conversations as Array<{ conv_id: string }>;
    assert.ok(convs.length >= 1);
    for (const c of convs) {
      const seen = JSON.stringify([
        await callTool(target.hub, mallory.id, 'get_history', { conv_id: c.conv_id }),
        await callTool(target.hub, mallory.id, 'list_pins', { conv_id: c.conv_id }),
      ]);
      assert.ok(
        !seen.includes('launch code') && !seen.includes(secret),
        `mallory's view of ${c.conv_id} does not hold the private message`,
      );
    }
    assert.equal(target.hub.db.prepare('SELECT count(*) FROM pins').pluck().get(), 0);
    assert.equal(
      target.hub.db.prepare('SELECT count(*) FROM hidden_messages').pluck().get(),
      0,
      "mallory's live message is not hidden from the owner",
    );
  });
});

test("an archive writes nothing into what is already here: no checkpoint or summary for an agent already here, no member seated in a conversation already here, no reaction, pin, hidden mark or card answer on a message already here; a message's reviewed mark is never imported", async () => {
  await withSource(async (s, target) => {
    const alice = target.agent('alice');
    // The archive's mallory message comes "from the owner", marked reviewed.
    const forged = await withRows(s.entries, path.join(s.dir, 'forged.tar.gz'), {
      messages: (rows) => rows.map((m) => (m.id === s.msg ? { ...m, sender_id: s.src.hub.ownerId, reviewed: 1 } : m)),
      summaries: () => [{ id: 1, user_id: s.alice, conv_id: s.group, from_seq: 1, to_seq: 1, text: 'planted summary', at: Date.now() }],
    });
    const r = await importExport(target.hub.db, forged, { cleanImage });
    assert.equal(
      target.hub.db.prepare('SELECT reviewed FROM messages WHERE id = ?').pluck().get(s.msg),
      null,
      'reviewed is not taken from the archive',
    );
    await assert.rejects(
      callTool(target.hub, alice.id, 'state_get', { key: 'plan' }),
      /No key "plan"/,
      "alice's own state here gets no key from the archive",
    );
    assert.equal(target.hub.db.prepare('SELECT count(*) FROM state_values WHERE user_id = ?').pluck().get(alice.id), 0);
    assert.equal(
      target.hub.db.prepare('SELECT count(*) FROM summaries WHERE user_id = ?').pluck().get(alice.id),
      0,
      'no summary for alice',
    );
    assert.ok((r.skipped.state_values ?? 0) >= 1 && (r.skipped.summaries ?? 0) >= 1, 'reported as not imported');
    const view = JSON.stringify(await runOwnerAction(target.hub, 'conversations.history', { conv_id: s.group }));
    assert.ok(!view.includes('"reviewed":true'), 'no message shows reviewed');

    // The same conversation again, now with rows on its message that is already here: none of them is written.
    const before = fingerprint(target.hub.db);
    const at = Date.now();
    const onExisting = await withRows(s.entries, path.join(s.dir, 'on-existing.tar.gz'), {
      members: (rows) => [...rows, { conv_id: s.group, user_id: s.alice, role: 'member', from_seq: 0, joined_at: at, read_seq: 0 }],
      reactions: () => [{ msg_id: s.msg, user_id: s.alice, key: ':fire:', at }],
      pins: () => [{ conv_id: s.group, msg_id: s.msg, pinned_by: s.mallory, pinned_at: at }],
      card_responses: () => [{ msg_id: s.msg, user_id: s.src.hub.ownerId, block_id: 'pick', value: 'y', at }],
      hidden_messages: () => [{ user_id: s.src.hub.ownerId, msg_id: s.msg, hidden_at: at }],
    });
    const again = await importExport(target.hub.db, onExisting, { cleanImage });
    assert.deepEqual(again.added, {}, 'nothing added');
    assert.equal(fingerprint(target.hub.db), before, 'nothing written');
  });
});

test('every imported row is checked as live input, refused (dry run too) with one line naming the entry and row and nothing written: agent names (32 MB, quotes, a newline), event data that is not JSON, a duplicate (conversation, seq), text over the limit, a file whose row says image but whose bytes are HTML', async () => {
  await withSource(async (s, target) => {
    // A file in the archive: an image (its row and bytes agree).
    const img = makeHub();
    const a = img.agent('alice');
    const conv = (await callTool(img.hub, a.id, 'create_group', { title: 'Pics', members: [] })).conversation.conv_id as string;
    await callTool(img.hub, a.id, 'send_file', { conv_id: conv, data: (await gpsJpeg()).toString('base64'), name: 'photo.jpg' });
    const withFile = path.join(s.dir, 'file.tar.gz');
    await writeExport(img.file, withFile);
    img.close();
    const fileSrc = await exportEntries(withFile);
    const fileRow = rowsOf(fileSrc, 'files')[0]!;
    const html = Buffer.from('<html><script>alert(document.cookie)</script></html>');
    const htmlFile = path.join(s.dir, 'html.tar.gz');
    await rewrite(fileSrc, htmlFile, (list, manifest) => {
      replaceEntry(list, manifest, `files/${fileRow.id as string}`, html);
      const thumb = list.findIndex(([n]) => n === `files/${fileRow.id as string}.thumb`);
      if (thumb !== -1) {
        list.splice(thumb, 1);
        manifest.entries = manifest.entries.filter((e: { name: string }) => e.name !== `files/${fileRow.id as string}.thumb`);
      }
      replaceEntry(
        list,
        manifest,
        'files.jsonl',
        jsonl([
          {
            ...fileRow,
            mime: 'text/html',
            is_image: 1,
            has_thumb: 0,
            thumb_mime: null,
            size: html.length,
            sha256: crypto.createHash('sha256').update(html).digest('hex'),
          },
        ]),
        1,
      );
    });
    await refused(
      target,
      htmlFile,
      /^files\.jsonl line 1: file f_[0-9a-f]+ says is_image 1, but its bytes are not an image$/,
      'an HTML file claimed as an image',
    );

    const userLine = rowsOf(s.entries, 'users').findIndex((u) => u.name === 'mallory') + 1;
    const named = (name: string) => ({ users: (rows: Row[]) => rows.map((u) => (u.name === 'mallory' ? { ...u, name } : u)) });
    const cases: Array<[string, Record<string, (rows: Row[]) => Row[]>, RegExp]> = [
      [
        'a 5 MB agent name',
        named('m'.repeat(5_000_000)),
        new RegExp(`^users\\.jsonl line ${userLine}: field name "m{40}…" is not an agent name`),
      ],
      // Its entry is larger than its rows of at most 8 MiB each can be: refused from the manifest, before any line is read.
      [
        'a 32 MB line',
        named('m'.repeat(32 * 1024 * 1024)),
        /^users\.jsonl is \d+ bytes, more than its \d+ rows of at most \d+ characters can be$/,
      ],
      [
        'a name with quotes',
        named('mal"lory'),
        new RegExp(`^users\\.jsonl line ${userLine}: field name "mal\\\\"lory" is not an agent name`),
      ],
      [
        'a name with a newline',
        named('mal\nlory'),
        new RegExp(`^users\\.jsonl line ${userLine}: field name "mal\\\\nlory" is not an agent name`),
      ],
      [
        'event data that is not JSON',
        { events: (rows) => rows.map((e, i) => (i === 0 ? { ...e, data: '{not json' } : e)) },
        /^events\.jsonl line 1: field data is not JSON$/,
      ],
      [
        'a duplicate (conversation, seq)',
        { events: (rows) => [...rows, { ...rows[rows.length - 1]!, gid: (rows[rows.length - 1]!.gid as number) + 1 }] },
        /^events\.jsonl line \d+: seq \d+ of conversation "c_[0-9a-f]+" in events appears twice in the archive$/,
      ],
      [
        'text over the limit',
        { messages: (rows) => rows.map((m) => (m.id === s.msg ? { ...m, text: 'x'.repeat(32 * 1024 + 1) } : m)) },
        /^messages\.jsonl line \d+: field text is over 32768 characters$/,
      ],
      [
        'a conversation kind the hub does not have',
        { conversations: (rows) => rows.map((c) => (c.id === s.group ? { ...c, kind: 'dm"' } : c)) },
        /^conversations\.jsonl line \d+: field kind "dm\\"" is not one of direct, group, task, inbox$/,
      ],
    ];
    for (const [what, edit, message] of cases) {
      const file = await withRows(s.entries, path.join(s.dir, `${what.replace(/\W+/g, '-')}.tar.gz`), edit);
      await refused(target, file, message, what);
      fs.rmSync(file);
    }
    assert.equal(target.hub.db.prepare("SELECT count(*) FROM users WHERE kind = 'agent'").pluck().get(), 0, 'no agent created');
  });
});

test("rows are bounded from the manifest before any row is read: 3,000,000 file rows for one file's bytes, more rows than an archive may hold, a JSON-lines entry without its row count, and an entry with more lines than its manifest says are refused with one line", async () => {
  await withSource(async (s, target) => {
    const manifestOnly = async (what: string, edit: (m: Record<string, any>, list: Array<[string, Buffer]>) => void, message: RegExp) => {
      const file = path.join(s.dir, `${what.replace(/\W+/g, '-')}.tar.gz`);
      await rewrite(s.entries, file, (list, m) => edit(m, list));
      await refused(target, file, message, what);
    };
    const entry = (m: Record<string, any>, name: string) => m.entries.find((e: { name: string }) => e.name === name);
    await manifestOnly(
      '3M file rows',
      (m) => {
        entry(m, 'files.jsonl').rows = 3_000_000;
      },
      /^files\.jsonl lists 3000000 files but the archive holds the bytes of 0$/,
    );
    await manifestOnly(
      'too many rows',
      (m) => {
        entry(m, 'reactions.jsonl').rows = 100_000_000;
      },
      /^the manifest lists \d+ rows besides the ledger.s, more than an archive may hold \(\d+\); split the export/,
    );
    // The ledger's records are bounded apart (checking them keeps one chain head per day): 2,500,000 of them pass the
    // archive's row bound; the archive is refused only once its lines are counted short of what the manifest says.
    await manifestOnly(
      '2.5M ledger records',
      (m) => {
        entry(m, 'ledger_records.jsonl').rows = 2_500_000;
      },
      /^ledger_records\.jsonl has \d+ rows; the manifest says 2500000$/,
    );
    await manifestOnly(
      'too many ledger records',
      (m) => {
        entry(m, 'ledger_records.jsonl').rows = 100_000_001;
      },
      /^the manifest lists 100000001 ledger records, more than an archive may hold \(100000000\)$/,
    );
    await manifestOnly(
      'no row count',
      (m) => {
        delete entry(m, 'events.jsonl').rows;
      },
      /^the manifest does not say how many rows events\.jsonl has$/,
    );
    const tiny = Buffer.from(`${JSON.stringify({ msg_id: s.msg, user_id: s.mallory, key: ':x:', at: 1 })}\n`.repeat(50_000));
    await manifestOnly(
      'more lines than the manifest says',
      (m, list) => replaceEntry(list, m, 'reactions.jsonl', tiny, 2),
      /^reactions\.jsonl line 3: reactions\.jsonl has more rows than the manifest says \(2\)$/,
    );
  });
});

test('an export perch import would refuse says so when written: rows beyond the bound besides the ledger, never the ledger alone', () => {
  assert.equal(importLimitNote({ messages: 1_000_000, events: 1_000_000, ledger_records: 3_000_000 }), undefined);
  assert.match(
    importLimitNote({ messages: 1_000_000, events: 1_000_001 }) ?? '',
    /^This archive holds 2000001 rows besides the ledger's; perch import takes at most 2000000: export it in parts/,
  );
  assert.match(importLimitNote({ ledger_records: 100_000_001 }) ?? '', /^This archive holds 100000001 ledger records/);
});

test("a request pending in the archive arrives expired: nobody here waits for it, so the owner never sees it as a live card and cannot decide it (an archive's author could otherwise plant a request and read the owner's answer)", async () => {
  await withSource(async (s) => {
    const req = (await callTool(s.src.hub, s.mallory, 'request_human', { conv_id: s.group, kind: 'approve', title: 'Delete the backups?' }))
      .request_id as string;
    const file = path.join(s.dir, 'pending.tar.gz');
    await writeExport(s.src.file, file);
    const target = makeHub();
    try {
      const mallory = target.agent('mallory');
      const r = await importExport(target.hub.db, file, { cleanImage });
      assert.equal(r.added.requests, 1, 'the request is imported, as history');
      const row = target.hub.db.prepare('SELECT state, decided_by, outcome FROM requests WHERE id = ?').get(req) as Record<string, unknown>;
      assert.deepEqual(row, { state: 'expired', decided_by: null, outcome: null }, 'it arrives expired, decided by nobody');
      const pending = (await runOwnerAction(target.hub, 'requests.list', { state: 'pending' })) as {
        requests: Array<{ request_id: string }>;
      };
      assert.deepEqual(
        pending.requests.map((x) => x.request_id),
        [],
        'nothing waits in the Approvals inbox',
      );
      await assert.rejects(
        runOwnerAction(target.hub, 'requests.decide', { request_id: req, decision: 'approve' }),
        /expired|no longer|not pending|already/i,
        'deciding it is refused',
      );
      const seen = await callTool(target.hub, mallory.id, 'get_request', { request_id: req });
      assert.equal(seen.state, 'expired', "mallory reads no owner's decision");
    } finally {
      target.close();
    }
  });
});
