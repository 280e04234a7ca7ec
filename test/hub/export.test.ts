// Export and import (perch export / perch import): a hub with many kinds of records goes out as one archive, into an
// empty hub and out again unchanged; secrets never go into it; importing twice adds nothing; imported history wakes
// nobody; damaged, foreign and newer archives are refused with nothing written.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeHub, callTool as rawCallTool, drain, type TestHub } from '../support/helpers';
import { gpsJpeg } from '../support/images';
import { runOwnerAction } from '../../src/main/owner/actions';
import { openDatabase } from '../../src/main/store/db/db';
import { createHub } from '../../src/main/hub-services';
import { writeExport } from '../../src/main/store/export/write';
import { importExport } from '../../src/main/store/export/import';
import { cleanImage } from '../../src/main/hub/features/files/files';
import { ExportFileError } from '../../src/main/store/export/read';
import { exportEntries as entries, fingerprint, replaceEntry, rewrite } from '../support/export-entries';
import { getHistory } from '../../src/main/hub/talk/messages';

/** callTool naming the tool in its failure. */
async function callTool(...args: Parameters<typeof rawCallTool>): ReturnType<typeof rawCallTool> {
  try {
    return await rawCallTool(...args);
  } catch (err) {
    throw new Error(`${args[2]}: ${(err as Error).message}`);
  }
}

const WAKE_SECRET = 'wake-env-secret-5f1e0c9d7a';

/** A hub with messages, edits, recalls, reactions, pins, threads, requests and decisions, cards and answers, handoffs, tasks (archived), claims, files, checkpoints, summaries and progress. */
async function busyHub(): Promise<{ t: TestHub; keys: string[] }> {
  const t = makeHub();
  const a = t.agent('alice');
  const b = t.agent('bob');
  const hub = t.hub;
  const owner = hub.owner.name;
  const dm = (await callTool(hub, a.id, 'open_direct', { user: owner })).conversation.conv_id as string;
  const group = (await callTool(hub, a.id, 'create_group', { title: 'Launch', members: [b.name, owner] })).conversation.conv_id as string;
  const m1 = await callTool(hub, a.id, 'send_message', { conv_id: group, text: 'First plan', intent: 'request', to: [b.name] });
  const m2 = await callTool(hub, b.id, 'send_message', {
    conv_id: group,
    text: 'A reply in a thread',
    thread_id: m1.msg_id,
    reply_to: m1.msg_id,
  });
  await callTool(hub, a.id, 'edit_message', { msg_id: m1.msg_id, text: 'First plan (edited)' });
  const gone = await callTool(hub, b.id, 'send_message', { conv_id: group, text: 'oops' });
  await callTool(hub, b.id, 'recall_message', { msg_id: gone.msg_id });
  await callTool(hub, b.id, 'react', { conv_id: group, msg_id: m1.msg_id, key: ':thumbs_up:' });
  await callTool(hub, b.id, 'claim', { msg_id: m1.msg_id });
  await runOwnerAction(hub, 'messages.pin', { conv_id: group, msg_id: m2.msg_id, on: true });
  const req = await callTool(hub, a.id, 'request_human', { conv_id: dm, kind: 'approve', title: 'Deploy?' });
  await runOwnerAction(hub, 'requests.decide', { request_id: req.request_id, decision: 'approve', comment: 'go' });
  const card = await callTool(hub, a.id, 'send_card', {
    conv_id: dm,
    text: 'Pick',
    card: {
      title: 'Pick one',
      blocks: [
        {
          type: 'buttons',
          id: 'pick',
          options: [
            { id: 'x', label: 'X' },
            { id: 'y', label: 'Y' },
          ],
        },
      ],
    },
  });
  await runOwnerAction(hub, 'cards.answer', { msg_id: card.msg_id, block_id: 'pick', value: 'y' });
  await callTool(hub, a.id, 'handoff', { conv_id: dm, to: owner, note: 'Over to you' });
  await runOwnerAction(hub, 'handoffs.hand_back', { conv_id: dm, agent: a.name, note: 'Back to you' });
  const task = (await callTool(hub, a.id, 'create_task', { title: 'Write docs', assignee: b.name, members: [b.name] })).conversation
    .conv_id as string;
  await callTool(hub, b.id, 'update_task', { conv_id: task, state: 'working', note: 'on it' });
  await callTool(hub, a.id, 'send_file', {
    conv_id: group,
    data: (await gpsJpeg()).toString('base64'),
    name: 'photo.jpg',
    caption: 'a picture',
  });
  await callTool(hub, a.id, 'state_put', { key: 'plan', value: { step: 2 }, version: 0 });
  await callTool(hub, a.id, 'put_summary', { conv_id: group, from_seq: 1, to_seq: 3, text: 'They planned.' });
  await callTool(hub, a.id, 'progress', { conv_id: group, kind: 'step', text: 'halfway' });
  await runOwnerAction(hub, 'conversations.archive', { conv_id: task });
  const extra = (await runOwnerAction(hub, 'agents.add_key', { agent: a.name, name: 'ci' })) as { secret: string };
  await runOwnerAction(hub, 'wake.set', { agent: a.name, argv: ['/bin/true'], env: { TOKEN: WAKE_SECRET } });
  return { t, keys: [a.key, b.key, extra.secret] };
}

/** The archive's entries as comparable text: the manifest without its creation time, messages without provenance. */
/**
 * An archive's entries to compare across a round trip: what an import may change left out (provenance, and an
 * image's bytes, size and hash: an import re-encodes images as send_file does, so they are its own).
 */
function comparable(m: Map<string, Buffer>): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = (b: Buffer, edit: (r: Record<string, any>) => void) =>
    b
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const r = JSON.parse(l);
        edit(r);
        return JSON.stringify(r);
      })
      .join('\n');
  const images = new Set(
    m
      .get('files.jsonl')!
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((f) => f.is_image)
      .map((f) => f.id as string),
  );
  for (const [name, b] of m) {
    if (name === 'manifest.json') {
      const man = JSON.parse(b.toString('utf8'));
      delete man.created_at;
      man.entries = man.entries.filter(
        (e: { name: string }) =>
          !['messages.jsonl', 'files.jsonl'].includes(e.name) && !images.has(e.name.replace(/^files\//, '').replace(/\.thumb$/, '')),
      );
      out[name] = JSON.stringify(man);
    } else if (name === 'messages.jsonl') {
      out[name] = lines(b, (r) => {
        delete r.provenance;
        if (r.kind === 'image') r.payload = JSON.stringify({ ...JSON.parse(r.payload), size: 'its own' });
      });
    } else if (name === 'files.jsonl') {
      out[name] = lines(b, (r) => {
        if (r.is_image) [r.size, r.sha256] = ['its own', 'its own'];
      });
    } else if (images.has(name.replace(/^files\//, '').replace(/\.thumb$/, ''))) {
      out[name] = 'bytes of their own';
    } else {
      out[name] = b.toString('base64');
    }
  }
  return out;
}

/** The conversation titled "Write docs" in an archive's conversations.jsonl. */
function taskRow0(a: Map<string, Buffer>): { id: string } {
  return a
    .get('conversations.jsonl')!
    .toString('utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((c) => c.title === 'Write docs');
}

function tmp(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'perch-archive-'));
}

/** Runs `fn` with a busy hub, a fresh folder and a target made in it; closes the target and the hub and removes the
 *  folder afterwards. */
async function withBusyHubAndTarget<T extends { close(): void }>(
  makeTarget: (dir: string) => T,
  fn: (c: { t: TestHub; dir: string; target: T }) => Promise<void>,
): Promise<void> {
  const { t } = await busyHub();
  const dir = tmp();
  const target = makeTarget(dir);
  try {
    await fn({ t, dir, target });
  } finally {
    target.close();
    t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test('a hub with many kinds of records round-trips: exported, imported into an empty hub, exported again equal (ids and timestamps), no secrets; a second import adds nothing; imported history wakes nobody', async () => {
  const { t, keys } = await busyHub();
  const dir = tmp();
  try {
    const first = path.join(dir, 'first.tar.gz');
    const r = await writeExport(t.file, first);
    for (const kind of [
      'users',
      'conversations',
      'members',
      'messages',
      'events',
      'reactions',
      'pins',
      'requests',
      'card_responses',
      'handoffs',
      'files',
      'state_keys',
      'state_values',
      'summaries',
      'progress',
    ]) {
      assert.ok(r.counts[kind]! > 0, `the archive holds ${kind}`);
    }
    const a1 = await entries(first);
    assert.ok(
      [...a1.keys()].some((n) => /^transcripts\/.+\.md$/.test(n)),
      'a transcript per conversation',
    );
    const transcript = [...a1]
      .filter(([n]) => n.startsWith('transcripts/'))
      .map(([, b]) => b.toString('utf8'))
      .join('\n');
    assert.match(transcript, /\*\*alice\*\*/);
    assert.match(transcript, /First plan \(edited\)/);
    assert.match(transcript, /handoff\.created/);
    // Readable lines: every event's fields as words, never a raw JSON event line; named by title and id.
    assert.doesNotMatch(transcript, /\{"/, 'no raw JSON in a transcript');
    assert.ok(
      [...a1.keys()].includes(`transcripts/write-docs-${taskRow0(a1).id}.md`),
      `the transcript is named by its title and id: ${[...a1.keys()].filter((n) => n.startsWith('transcripts/')).join(', ')}`,
    );
    assert.match(transcript, /!\[photo\.jpg\]\(\.\.\/files\/[^)]+\)/, "images linked to the archive's files");
    const taskRow = a1
      .get('conversations.jsonl')!
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((c) => c.title === 'Write docs');
    assert.equal(taskRow.archived_by, 'owner', 'the archived state is in the conversations kind');
    assert.equal(typeof taskRow.archived_at, 'number');
    const claimed = a1
      .get('messages.jsonl')!
      .toString('utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((m) => m.claimed_by);
    assert.ok(claimed, 'claims are in the messages');

    // Secrets: none of the key hashes, hints, keys or the wake env value appears in the archive's bytes.
    const raw = Buffer.concat([...a1.values()]);
    const secrets: Buffer[] = [Buffer.from(WAKE_SECRET), ...keys.map((k) => Buffer.from(k))];
    for (const q of [
      'SELECT key_hash AS s FROM users WHERE key_hash IS NOT NULL',
      'SELECT key_hash AS s FROM agent_keys',
      'SELECT key_hint AS s FROM users WHERE key_hint IS NOT NULL',
      'SELECT key_hint AS s FROM agent_keys',
    ]) {
      for (const s of t.hub.db.prepare(q).pluck().all() as Array<Buffer | string>) {
        secrets.push(Buffer.isBuffer(s) ? s : Buffer.from(s));
        if (Buffer.isBuffer(s)) secrets.push(Buffer.from(s.toString('hex')), Buffer.from(s.toString('base64')));
      }
    }
    assert.ok(secrets.length >= 10);
    for (const s of secrets) assert.equal(raw.indexOf(s), -1, `secret ${s.toString('utf8').slice(0, 12)}… is not in the archive`);

    // Into an empty hub, then out again: the same archive.
    const bFile = path.join(dir, 'b', 'perch.sqlite');
    const db = openDatabase(bFile);
    try {
      const imported = await importExport(db, first, { cleanImage });
      assert.equal(imported.added.messages, r.counts.messages);
      assert.deepEqual(imported.remapped, {});
      const second = path.join(dir, 'second.tar.gz');
      await writeExport(bFile, second);
      const a2 = await entries(second);
      assert.deepEqual(comparable(a2), comparable(a1));
      const msgs2 = a2
        .get('messages.jsonl')!
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      assert.ok(
        msgs2.every((m) => m.provenance === 'imported'),
        'imported messages carry provenance imported',
      );
      assert.deepEqual(
        db.prepare("SELECT archived_at, archived_by FROM conversations WHERE title = 'Write docs'").get(),
        { archived_at: taskRow.archived_at, archived_by: 'owner' },
        'the import restores the archived state',
      );
      assert.equal(db.prepare("SELECT archived_at FROM conversations WHERE title = 'Launch'").pluck().get(), null);

      // Again: nothing added, nothing changed.
      const before = fingerprint(db);
      const again = await importExport(db, first, { cleanImage });
      assert.deepEqual(again.added, {});
      assert.equal(fingerprint(db), before);

      // Nobody is woken or sent the imported history; the owner reads it, marked imported.
      const hubB = createHub({ db });
      try {
        const alice = hubB.db.prepare("SELECT id FROM users WHERE name = 'alice'").pluck().get() as string;
        assert.deepEqual(await drain(hubB, alice), []);
        const group = hubB.db.prepare("SELECT id FROM conversations WHERE title = 'Launch'").pluck().get() as string;
        const ev = getHistory(hubB, hubB.ownerId, group, {}, true).events.find(
          (e) => e.type === 'message.created' && e.message?.text === 'First plan (edited)',
        );
        assert.equal(ev?.message?.provenance.imported, true);
      } finally {
        hubB.close();
      }
    } finally {
      db.close();
    }
  } finally {
    t.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('bad archives are refused with a clear error and nothing written: truncated, newer version, path traversal, hash mismatch, a line that is not an object, 10,000 nested arrays', async () => {
  await withBusyHubAndTarget(
    (dir) => openDatabase(path.join(dir, 'target', 'perch.sqlite')),
    async ({ t, dir, target }) => {
      const good = path.join(dir, 'good.tar.gz');
      await writeExport(t.file, good);
      const src = await entries(good);
      const before = fingerprint(target);
      const cases: Array<[string, (f: string) => Promise<void>, RegExp]> = [
        [
          'truncated',
          async (f) => {
            const b = fs.readFileSync(good);
            fs.writeFileSync(f, b.subarray(0, Math.floor(b.length / 2)));
          },
          /truncated/,
        ],
        [
          'newer manifest version',
          (f) =>
            rewrite(src, f, (_l, m) => {
              m.version = 3;
            }),
          /format version 3, newer than this Perch reads/,
        ],
        [
          'not a Perch archive',
          (f) =>
            rewrite(src, f, (_l, m) => {
              m.format = 'zip-of-things';
            }),
          /not a Perch archive/,
        ],
        [
          'path traversal',
          (f) =>
            rewrite(src, f, (l, m) => {
              const b = Buffer.from('{}\n');
              l.push(['../../etc/evil.jsonl', b]);
              m.entries.push({ name: '../../etc/evil.jsonl', size: b.length, sha256: crypto.createHash('sha256').update(b).digest('hex') });
            }),
          /points outside the archive/,
        ],
        [
          'hash mismatch',
          (f) =>
            rewrite(src, f, (l) => {
              const i = l.findIndex(([n]) => n.startsWith('files/'));
              const b = Buffer.from(l[i]![1]);
              b[b.length - 1]! ^= 0xff;
              l[i] = [l[i]![0], b];
            }),
          /does not match its sha256/,
        ],
        [
          'a line that is not an object',
          (f) =>
            rewrite(src, f, (l, m) =>
              replaceEntry(
                l,
                m,
                'messages.jsonl',
                Buffer.concat([Buffer.from('[1, 2, 3]\n'), src.get('messages.jsonl')!]),
                m.entries.find((e: { name: string }) => e.name === 'messages.jsonl').rows + 1,
              ),
            ),
          /messages\.jsonl line 1 is not a JSON object/,
        ],
        [
          '10,000 nested arrays',
          (f) =>
            rewrite(src, f, (l, m) =>
              replaceEntry(
                l,
                m,
                'events.jsonl',
                Buffer.concat([src.get('events.jsonl')!, Buffer.from(`${'['.repeat(10000)}${']'.repeat(10000)}\n`)]),
                m.entries.find((e: { name: string }) => e.name === 'events.jsonl').rows + 1,
              ),
            ),
          /nests deeper than/,
        ],
      ];
      for (const [what, make, message] of cases) {
        const f = path.join(dir, `${what.replace(/\W+/g, '-')}.tar.gz`);
        await make(f);
        await assert.rejects(importExport(target, f, { cleanImage }), (err: unknown) => {
          assert.ok(err instanceof ExportFileError, `${what}: an ExportFileError, got ${String(err)}`);
          assert.match(err.message, message, what);
          return true;
        });
        assert.equal(fingerprint(target), before, `${what}: nothing written`);
        assert.equal(target.inTransaction, false);
      }
    },
  );
});

test('into a hub that has things of its own: agents matched by name, a taken conversation id gets a derived id with its rows following, a second import adds nothing, nobody is woken', async () => {
  await withBusyHubAndTarget(
    () => makeHub(),
    async ({ t, dir, target }) => {
      const file = path.join(dir, 'a.tar.gz');
      await writeExport(t.file, file);
      const localAlice = target.agent('alice');
      const group = t.hub.db.prepare("SELECT id FROM conversations WHERE title = 'Launch'").pluck().get() as string;
      // A different conversation here under the archive's id.
      target.hub.db
        .prepare(
          "INSERT INTO conversations (id, kind, title, created_by, created_at, last_seq, last_event_at) VALUES (?, 'group', 'Mine', ?, 1, 0, 1)",
        )
        .run(group, target.hub.ownerId);
      const r = await importExport(target.hub.db, file, { cleanImage });
      assert.equal(r.remapped.conversations, 1);
      assert.ok(!r.agents_created.includes('alice'), 'alice is matched by name');
      assert.equal(
        target.hub.db.prepare('SELECT title FROM conversations WHERE id = ?').pluck().get(group),
        'Mine',
        'the conversation here is untouched',
      );
      const moved = target.hub.db.prepare("SELECT id FROM conversations WHERE title = 'Launch'").pluck().get() as string;
      assert.notEqual(moved, group);
      const texts = target.hub.db.prepare('SELECT text FROM messages WHERE conv_id = ? ORDER BY seq').pluck().all(moved) as string[];
      assert.ok(texts.includes('First plan (edited)'));
      assert.equal(
        target.hub.db.prepare('SELECT count(*) FROM messages WHERE conv_id = ? AND sender_id = ?').pluck().get(moved, localAlice.id),
        2,
        "alice's messages are the local alice's",
      );
      assert.equal(
        target.hub.db.prepare('SELECT count(*) FROM events WHERE conv_id = ?').pluck().get(moved),
        target.hub.db.prepare('SELECT last_seq FROM conversations WHERE id = ?').pluck().get(moved),
        'its whole log follows it',
      );
      assert.ok(
        (target.hub.db.prepare('SELECT count(*) FROM pins WHERE conv_id = ?').pluck().get(moved) as number) === 1,
        'the pin follows the conversation',
      );
      const before = fingerprint(target.hub.db);
      const again = await importExport(target.hub.db, file, { cleanImage });
      assert.deepEqual(again.added, {});
      assert.equal(fingerprint(target.hub.db), before);
      assert.deepEqual(await drain(target.hub, localAlice.id), [], 'the imported history is not delivered to the local alice');
    },
  );
});

test('an archive written before conversations carried their archived state (no archived_at/archived_by) imports, its conversations not archived; a wrongly typed archived_at is refused', async () => {
  await withBusyHubAndTarget(
    (dir) => openDatabase(path.join(dir, 'target', 'perch.sqlite')),
    async ({ t, dir, target }) => {
      const good = path.join(dir, 'good.tar.gz');
      await writeExport(t.file, good);
      const src = await entries(good);
      const rows = src
        .get('conversations.jsonl')!
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l));
      assert.ok(rows.some((r) => r.archived_at !== null));

      const typed = path.join(dir, 'typed.tar.gz');
      await rewrite(src, typed, (l, m) =>
        replaceEntry(
          l,
          m,
          'conversations.jsonl',
          Buffer.from(rows.map((r) => `${JSON.stringify({ ...r, archived_at: 'yesterday' })}\n`).join('')),
        ),
      );
      const before = fingerprint(target);
      await assert.rejects(
        importExport(target, typed, { cleanImage }),
        /conversations\.jsonl line 1: field archived_at is not an integer or null/,
      );
      assert.equal(fingerprint(target), before, 'nothing written');

      const older = path.join(dir, 'older.tar.gz');
      await rewrite(src, older, (l, m) =>
        replaceEntry(
          l,
          m,
          'conversations.jsonl',
          Buffer.from(rows.map(({ archived_at: _a, archived_by: _b, ...r }) => `${JSON.stringify(r)}\n`).join('')),
        ),
      );
      const r = await importExport(target, older, { cleanImage });
      assert.equal(r.added.conversations, rows.length);
      assert.equal(
        target.prepare('SELECT count(*) FROM conversations WHERE archived_at IS NOT NULL OR archived_by IS NOT NULL').pluck().get(),
        0,
      );
    },
  );
});
