// perch export and perch import as the owner runs them: export while a real hub serves and an agent writes (one
// consistent snapshot, progress on stderr), import refused while a hub serves, --dry-run writing nothing, the import
// then served by a hub whose history shows the imported messages and whose agents are not sent them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import { addAgent, cliAsync, rawCall, removeDataDir, runtimeInfo, startServe, tempDataDir } from '../support/serve-harness';
import { walkExport } from '../../src/main/store/export/read';
import { writeExport } from '../../src/main/store/export/write';
import { exportEntries, replaceEntry, rewrite } from '../support/export-entries';
import { makeHub, callTool } from '../support/helpers';

function count(file: string, q: string): number {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare(q).pluck().get() as number;
  } finally {
    db.close();
  }
}

test('perch export works while the hub serves; perch import is refused while a hub serves, --dry-run writes nothing, the import is served and wakes nobody', async () => {
  const src = tempDataDir();
  const dest = tempDataDir();
  const out = path.join(src, 'out', 'history.tar.gz');
  try {
    const hub = await startServe(src, { args: ['--backups', '0'] });
    let conv: string;
    try {
      const a = await addAgent(src, 'writer');
      conv = (await rawCall(hub.mcpUrl, a.key, 'create_group', { title: 'Notes', members: [] })).structuredContent!.conversation
        .conv_id as string;
      for (let i = 0; i < 5; i++) await rawCall(hub.mcpUrl, a.key, 'send_message', { conv_id: conv, text: `note ${i}` });
      // An agent keeps writing while the export runs: the archive is one snapshot either way.
      let writing = true;
      const writer = (async () => {
        let i = 0;
        while (writing && i < 50) await rawCall(hub.mcpUrl, a.key, 'send_message', { conv_id: conv, text: `during ${i++}` });
      })();
      // --out in a folder that does not exist: refused with one line naming the folder (exit 2, as perch backup
      // --to), the folder is not created and nothing is written.
      const noFolder = await cliAsync(['export', '--out', out, '--data-dir', src]);
      assert.deepEqual([noFolder.code, noFolder.stdout], [2, ''], noFolder.stderr);
      assert.equal(
        noFolder.stderr,
        `perch: the folder ${path.dirname(out)} does not exist; nothing was written. Create it first, or pick another --out FILE.\n`,
      );
      assert.equal(fs.existsSync(path.dirname(out)), false, 'the folder is not created');
      fs.mkdirSync(path.dirname(out));
      const r = await cliAsync(['export', '--out', out, '--data-dir', src, '--json'], { timeoutMs: 60_000 });
      writing = false;
      await writer;
      assert.equal(r.code, 0, r.stderr);
      const res = JSON.parse(r.stdout);
      assert.ok(res.counts.messages >= 5);
      assert.match(r.stderr, /perch export: 100% \(done\)/, 'progress lines on stderr when it is not a terminal');
      assert.ok(fs.statSync(out).size > 0);
      // An existing --out is a usage error: exit 2, as docs/guide/data.md says.
      const again = await cliAsync(['export', '--out', out, '--data-dir', src]);
      assert.deepEqual([again.code, again.stdout], [2, '']);
      assert.match(again.stderr, /exists; nothing was written/);
      const bad = await cliAsync(['export', '--out', path.join(src, 'x.tar.gz'), '--conv', 'cnv_nope', '--data-dir', src]);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /No conversation "cnv_nope" in this hub; nothing was written/);
      assert.equal(fs.existsSync(path.join(src, 'x.tar.gz')), false);

      const refused = await cliAsync(['import', out, '--data-dir', src]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, new RegExp(`pid ${hub.proc.pid}\\) is serving .* nothing was changed\\. Stop it first`));
    } finally {
      await hub.stop();
    }

    const dry = await cliAsync(['import', out, '--dry-run', '--data-dir', dest]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /Would add .*messages/);
    assert.match(dry.stdout, /Agents to create without keys: writer \(perch agent rotate-key NAME issues each its key\)/);
    assert.match(dry.stdout, /Dry run: nothing was written\./);
    const destDb = path.join(dest, 'perch.sqlite');
    assert.equal(fs.existsSync(destDb), false, 'a dry run writes nothing (not even a database)');

    const done = await cliAsync(['import', out, '--data-dir', dest, '--json']);
    assert.equal(done.code, 0, done.stderr);
    const added = JSON.parse(done.stdout).added;
    assert.ok(added.messages >= 5);
    assert.equal(count(destDb, "SELECT count(*) FROM messages WHERE provenance = 'imported'"), added.messages);
    const twice = await cliAsync(['import', out, '--data-dir', dest, '--json']);
    assert.deepEqual(JSON.parse(twice.stdout).added, {}, 'importing again adds nothing');

    const corrupt = path.join(dest, 'corrupt.tar.gz');
    fs.writeFileSync(corrupt, fs.readFileSync(out).subarray(0, 100));
    const refusedBad = await cliAsync(['import', corrupt, '--data-dir', dest]);
    assert.equal(refusedBad.code, 1);
    assert.match(refusedBad.stderr, /cannot be imported: the archive is truncated.*Nothing was written\./);

    // The imported agent has no key: the list says so (never "key null"); the owner issues one; it is then sent nothing of the imported history.
    const list = await cliAsync(['agent', 'list', '--data-dir', dest]);
    assert.match(list.stdout, /^writer +no key yet \(perch agent rotate-key issues one\)/m);
    assert.doesNotMatch(list.stdout, /key null/);
    const key = await cliAsync(['agent', 'rotate-key', 'writer', '--data-dir', dest, '--json']);
    const served = await startServe(dest, { args: ['--backups', '0'] });
    try {
      if (key.code === 0) {
        const k = JSON.parse(key.stdout).key as string;
        const upd = await rawCall(served.mcpUrl, k, 'get_updates', {});
        assert.deepEqual(upd.structuredContent!.events, [], 'imported history is not delivered');
        const hist = await rawCall(served.mcpUrl, k, 'get_history', { conv_id: conv! });
        const texts = (hist.structuredContent!.events as Array<{ message?: { text: string; provenance: { imported?: boolean } } }>)
          .filter((e) => e.message)
          .map((e) => e.message!);
        assert.ok(
          texts.length > 0 && texts.every((m) => m.provenance.imported === true),
          'history shows the imported messages, marked imported',
        );
      } else {
        assert.fail(`could not issue a key for the imported agent: ${key.stderr}`);
      }
    } finally {
      await served.stop();
    }
  } finally {
    removeDataDir(src);
    removeDataDir(dest);
  }
});

test('perch export --out below a file (its folder is a file) is refused with one line naming it, exit 2, no stack trace, nothing written', async () => {
  const dir = tempDataDir();
  try {
    await addAgent(dir, 'keeper');
    const aFile = path.join(dir, 'a-file');
    fs.writeFileSync(aFile, 'not a folder\n');
    const r = await cliAsync(['export', '--out', path.join(aFile, 'history.tar.gz'), '--data-dir', dir]);
    assert.deepEqual(
      [r.code, r.stdout, r.stderr],
      [2, '', `perch: ${aFile} is not a folder; nothing was written. Pick another --out FILE.\n`],
    );
    assert.equal(fs.readFileSync(aFile, 'utf8'), 'not a folder\n');
  } finally {
    removeDataDir(dir);
  }
});

test('the owner API answers Export… with the archive (the owner on this computer only), of one conversation or of the conversations of an agent; a bad scope (not a list, an unknown conversation or agent) is refused as JSON', async () => {
  const dir = tempDataDir();
  const hub = await startServe(dir, { args: ['--backups', '0'] });
  try {
    const a = await addAgent(dir, 'talker');
    const conv = (await rawCall(hub.mcpUrl, a.key, 'create_group', { title: 'Export me', members: [] })).structuredContent!.conversation
      .conv_id as string;
    await rawCall(hub.mcpUrl, a.key, 'send_message', { conv_id: conv, text: 'in the archive' });
    const rt = runtimeInfo(hub);
    const url = `${rt.base_url}/api/owner/archive/export`;
    // What a hub killed mid-export left in the temp dir (its pid is gone): swept by the next Export….
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const leftover = path.join(os.tmpdir(), `perch-export-${dead}-Dead01`);
    fs.mkdirSync(leftover, { mode: 0o700 });
    fs.writeFileSync(path.join(leftover, 'archive.tar.gz'), 'the whole history');
    const res = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rt.owner_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ conversations: [conv] }),
    });
    assert.equal(res.status, 200);
    assert.equal(fs.existsSync(leftover), false, 'the folder a killed hub left is swept');
    assert.equal(res.headers.get('content-type'), 'application/gzip');
    assert.match(res.headers.get('content-disposition') ?? '', /attachment; filename="perch-archive-\d{4}-\d{2}-\d{2}\.tar\.gz"/);
    const file = path.join(dir, 'download.tar.gz');
    fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
    const texts: string[] = [];
    const manifest = await walkExport(file, {
      row: (k, r) => {
        if (k.name === 'messages') texts.push(r.text as string);
      },
    });
    assert.deepEqual(manifest.scope.conversations, [conv]);
    assert.ok(texts.includes('in the archive'));

    const bad = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rt.owner_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ conversations: 'all' }),
    });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { code: string } }).error.code, 'invalid_argument');
    const missing = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rt.owner_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ conversations: ['c_nope'] }),
    });
    assert.equal(missing.status, 400);
    assert.match(((await missing.json()) as { error: { message: string } }).error.message, /No conversation "c_nope"/);
    const noAgent = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rt.owner_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ agent: 'nobody' }),
    });
    assert.equal(noAgent.status, 400);
    assert.match(((await noAgent.json()) as { error: { message: string } }).error.message, /No agent named "nobody"/);
    const byAgent = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rt.owner_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ agent: 'talker' }),
    });
    assert.equal(byAgent.status, 200);
    const agentFile = path.join(dir, 'agent.tar.gz');
    fs.writeFileSync(agentFile, Buffer.from(await byAgent.arrayBuffer()));
    assert.equal((await walkExport(agentFile, {})).scope.agent, 'talker');
    // A body over the door's 64 KiB is content too large (413 too_large with the limit), as at the other owner doors.
    const huge = await fetch(url, {
      method: 'POST',
      headers: { Authorization: `Bearer ${rt.owner_token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ conversations: Array.from({ length: 5000 }, (_, i) => `c_${i}_padding`) }),
    });
    assert.equal(huge.status, 413);
    const hugeErr = ((await huge.json()) as { error: { code: string; message: string } }).error;
    assert.deepEqual([hugeErr.code, hugeErr.message], ['too_large', 'The body is over 65536 bytes.']);
    const anon = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    assert.equal(anon.status, 401);
    assert.deepEqual(
      fs.readdirSync(os.tmpdir()).filter((n) => n.startsWith(`perch-export-${hub.proc.pid}-`)),
      [],
      'the hub leaves no temporary folder of its own',
    );
  } finally {
    await hub.stop();
    removeDataDir(dir);
  }
});

test('perch import and --dry-run of a crafted archive (a duplicate (conversation, seq), an agent name with a newline) say so in one line naming the entry and row, exit 1, nothing written, no stack trace', async () => {
  const dest = tempDataDir();
  const src = makeHub();
  try {
    const a = src.agent('writer');
    const conv = (await callTool(src.hub, a.id, 'create_group', { title: 'Notes', members: [] })).conversation.conv_id as string;
    await callTool(src.hub, a.id, 'send_message', { conv_id: conv, text: 'one' });
    const good = path.join(dest, 'good.tar.gz');
    await writeExport(src.file, good);
    const entries = await exportEntries(good);
    const rows = (kind: string) =>
      entries
        .get(`${kind}.jsonl`)!
        .toString('utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    const jsonl = (r: Array<Record<string, unknown>>) => Buffer.from(r.map((x) => `${JSON.stringify(x)}\n`).join(''));
    const events = rows('events');
    const last = events[events.length - 1]!;
    const dup = path.join(dest, 'dup.tar.gz');
    await rewrite(entries, dup, (l, m) =>
      replaceEntry(l, m, 'events.jsonl', jsonl([...events, { ...last, gid: (last.gid as number) + 1 }]), events.length + 1),
    );
    const users = rows('users');
    const badName = path.join(dest, 'name.tar.gz');
    await rewrite(entries, badName, (l, m) =>
      replaceEntry(l, m, 'users.jsonl', jsonl(users.map((u) => (u.name === 'writer' ? { ...u, name: 'wri\nter' } : u)))),
    );
    const nameLine = users.findIndex((u) => u.name === 'writer') + 1;
    await addAgent(dest, 'keeper');
    const db = path.join(dest, 'perch.sqlite');
    const before = count(db, 'SELECT count(*) FROM users') + count(db, 'SELECT count(*) FROM events');
    const cases: Array<[string, RegExp]> = [
      [
        dup,
        new RegExp(
          `^perch: ${dup.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be imported: events\\.jsonl line ${events.length + 1}: seq ${String(last.seq)} of conversation "${conv}" in events appears twice in the archive\\. Nothing was written\\.\\n$`,
        ),
      ],
      [
        badName,
        new RegExp(
          `^perch: .* cannot be imported: users\\.jsonl line ${nameLine}: field name "wri\\\\nter" is not an agent name .*\\. Nothing was written\\.\\n$`,
        ),
      ],
    ];
    for (const [file, message] of cases) {
      for (const dry of [['--dry-run'], []]) {
        const r = await cliAsync(['import', file, ...dry, '--data-dir', dest]);
        assert.deepEqual([r.code, r.stdout], [1, ''], r.stderr);
        assert.match(r.stderr, message);
      }
    }
    assert.equal(count(db, 'SELECT count(*) FROM users') + count(db, 'SELECT count(*) FROM events'), before, 'nothing written');
  } finally {
    src.close();
    removeDataDir(dest);
  }
});
