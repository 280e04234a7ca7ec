// A full disk is survived (docs/design.md, "What always holds" 7 and 8). SQLite's `PRAGMA max_page_count` on the hub's
// own connection makes the database "full" (SQLITE_FULL, as on a full disk) without filling a real disk:
// writes answer storage_full with a next_step and change nothing, reads go on, the owner is told (hub.storage,
// a live item on the owner stream), and when space returns the next write just works, with nothing
// acknowledged lost. Also: the hub log on a full disk (/dev/full) never takes `perch serve` down, and it rotates.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { startHub, type RunningHub } from '../../src/main/app';
import { addAgent as addAgentInProcess } from '../../src/main/hub/control/agents';
import { sendMessage } from '../../src/main/hub/talk/messages';
import { createGroup } from '../../src/main/hub/talk/conversations';
import { HubError } from '../../src/shared/errors';
import { OWNER_EVENTS_PATH } from '../../src/shared/api/owner-api';
import type { StorageStatus } from '../../src/shared/types';
import type { LiveItem } from '../../src/shared/api/event-log';
import { withHub } from '../support/helpers';
import { fillDisk, smallDisk, unmount } from '../support/small-disk';
import {
  addAgent as addAgentCli,
  cliAsync,
  connect,
  eventually,
  owner,
  ownerFail,
  ownerOk,
  rawCall,
  rawPost,
  removeDataDir,
  startServe,
  tempDataDir,
  type AgentClient,
  type AgentKey,
} from '../support/serve-harness';

type R = Record<string, any>;

/** SQLite's default max_page_count: no limit short of the disk. */
const UNLIMITED = 4294967294;
const BIG = (tag: string) => `${tag} ${'x'.repeat(12_000)}`; // needs new pages (overflow), so it cannot fit a full file

function fill(db: Database.Database): void {
  const pages = db.pragma('page_count', { simple: true }) as number;
  db.pragma(`max_page_count = ${pages}`);
}

test('group commit on a full disk: SQLite rolls back the whole batch, so every unit in it fails with storage_full and none runs (or commits) on its own', async () => {
  await withHub((t) => {
    const { hub } = t;
    const a = t.agent('batcher');
    const conv = createGroup(hub, a.id, 'batch', []);
    fill(hub.db);
    const outcomes: Array<string> = [];
    const unit = (text: string) => () => {
      try {
        sendMessage(hub, a.id, { conv_id: conv.conv_id, text });
        outcomes.push('ok');
      } catch (err) {
        outcomes.push(err instanceof HubError ? err.code : `raw ${String(err)}`);
      }
    };
    assert.throws(
      () =>
        hub.batch(() => {
          unit('small before')();
          unit(BIG('big'))();
          unit('small after')();
        }),
      (err: unknown) => err instanceof HubError && err.code === 'storage_full' && /disk is full/.test(err.nextStep),
      'the batch commit fails with storage_full',
    );
    assert.equal(outcomes[1], 'storage_full', 'the unit that hit the full disk failed with storage_full');
    assert.equal(outcomes[2], 'storage_full', 'the unit after it did not run on its own transaction');
    assert.equal(hub.db.inTransaction, false, 'no transaction is left open');
    const texts = (hub.db.prepare('SELECT text FROM messages WHERE conv_id = ?').all(conv.conv_id) as Array<{ text: string }>).map(
      (r) => r.text,
    );
    assert.deepEqual(texts, [], 'nothing of the failed batch is in the database (the unit that had succeeded was rolled back with it)');
    assert.equal(hub.storage.state, 'full');

    hub.db.pragma(`max_page_count = ${UNLIMITED}`);
    hub.batch(() => {
      unit('again 1')();
      unit(BIG('again big'))();
    });
    assert.deepEqual(outcomes.slice(3), ['ok', 'ok']);
    assert.equal(hub.storage.state, 'ok', 'the next batch that writes sets storage back to ok');
    const seqs = (hub.db.prepare('SELECT seq FROM events WHERE conv_id = ? ORDER BY seq').all(conv.conv_id) as Array<{ seq: number }>).map(
      (r) => r.seq,
    );
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => i + 1),
      'the conversation log is gap-free',
    );
  });
});

/** Reads the owner live stream (SSE) of a running hub into items, until stop(). */
async function ownerStream(running: RunningHub, token: string): Promise<{ items: LiveItem[]; stop(): void }> {
  const ac = new AbortController();
  const res = await fetch(`${running.baseUrl}${OWNER_EVENTS_PATH}`, { headers: { Authorization: `Bearer ${token}` }, signal: ac.signal });
  assert.equal(res.status, 200);
  const items: LiveItem[] = [];
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        buf += decoder.decode(value, { stream: true });
        let i;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const chunk = buf.slice(0, i);
          buf = buf.slice(i + 2);
          for (const line of chunk.split('\n')) if (line.startsWith('data: ')) items.push(JSON.parse(line.slice(6)) as LiveItem);
        }
      }
    } catch {
      /* aborted */
    }
  })();
  return { items, stop: () => ac.abort() };
}

const storageItems = (items: LiveItem[]): StorageStatus[] =>
  items.flatMap((it) => (it.kind === 'hub' && it.value.storage && !('connected' in it.value) ? [it.value.storage as StorageStatus] : []));

test('a full disk: MCP writes answer storage_full with a next_step and change nothing, reads go on, the owner is told, and the next write after space returns just works', async () => {
  const dir = tempDataDir();
  let running: RunningHub | undefined;
  const clients: AgentClient[] = [];
  let stream: { items: LiveItem[]; stop(): void } | undefined;
  try {
    running = await startHub({ dataDir: dir, port: 0, ratePerSecond: 0 });
    const hub = running.hub;
    const mk = (name: string): AgentKey => {
      const { agent, key } = addAgentInProcess(hub, { name });
      return { id: agent.id, name: agent.name, key };
    };
    const a = mk('writer');
    const b = mk('reader');
    const ca = await connect('v1', running.mcpUrl, a);
    const cb = await connect('v2', running.mcpUrl, b);
    clients.push(ca, cb);
    const token = (JSON.parse(fs.readFileSync(path.join(dir, 'runtime.json'), 'utf8')) as { owner_token: string }).owner_token;
    stream = await ownerStream(running, token);
    const served = { dataDir: dir };

    const g = await ca.ok('create_group', { title: 'full disk', members: ['reader'] });
    const convId = g.conversation.conv_id as string;
    const acked = new Map<string, string>(); // client_msg_id → msg_id
    for (let i = 0; i < 5; i++) {
      const r = await ca.ok('send_message', { conv_id: convId, text: `before ${i}`, client_msg_id: `before-${i}` });
      acked.set(`before-${i}`, r.msg_id);
    }
    assert.equal((await ownerOk(served, 'hub.storage')).storage.state, 'ok');

    // The disk fills up.
    fill(hub.db);
    const refused = new Set<string>();

    // A burst of concurrent sends (the MCP door may group-commit them): each one either succeeded (and is
    // then in the log) or answered storage_full (and changed nothing).
    const burst = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        rawPost(
          running!.mcpUrl,
          a.key,
          {
            jsonrpc: '2.0',
            id: i,
            method: 'tools/call',
            params: {
              name: 'send_message',
              arguments: { conv_id: convId, text: i % 2 ? BIG(`burst ${i}`) : `burst ${i}`, client_msg_id: `burst-${i}` },
            },
          },
          { 'MCP-Protocol-Version': '2025-11-25' },
        ),
      ),
    );
    let burstRefused = 0;
    burst.forEach((r, i) => {
      assert.equal(r.status, 200);
      const result = r.json.result;
      if (result.isError) {
        assert.equal(result.structuredContent.error.code, 'storage_full', `burst ${i}: ${JSON.stringify(result.structuredContent.error)}`);
        refused.add(`burst-${i}`);
        burstRefused++;
      } else {
        acked.set(`burst-${i}`, result.structuredContent.msg_id);
      }
    });
    assert.ok(burstRefused >= 3, 'at least the three big messages were refused');
    for (const i of [1, 3, 5]) assert.ok(refused.has(`burst-${i}`), `big burst ${i} was refused`);

    // v1 and v2 clients both get the tool error with code and next_step.
    const e1 = await ca.fail('send_message', { conv_id: convId, text: BIG('full v1'), client_msg_id: 'full-v1' });
    refused.add('full-v1');
    assert.equal(e1.code, 'storage_full');
    assert.match(e1.next_step, /disk is full; wait and retry later, nothing was saved/);
    assert.match(e1.message, /SQLITE_FULL/);
    const e2 = await cb.fail('send_message', { conv_id: convId, text: BIG('full v2'), client_msg_id: 'full-v2' });
    refused.add('full-v2');
    assert.equal(e2.code, 'storage_full');

    // Reads go on.
    const h = await cb.ok('get_history', { conv_id: convId, limit: 200 });
    const historyIds = new Set((h.events as R[]).filter((e) => e.type === 'message.created').map((e) => e.message.msg_id as string));
    for (const [cid, id] of acked) assert.ok(historyIds.has(id), `get_history still shows acknowledged ${cid}`);
    const u = await cb.ok('get_updates', {});
    assert.ok(
      (u.events as R[]).some((e) => e.type === 'message.created' && e.message.text === 'before 0'),
      'get_updates still answers with the events',
    );
    await ca.ok('whoami', {});

    // The owner is told: the status, a live item, and owner writes answer 507 storage_full.
    const status = (await ownerOk(served, 'hub.storage')).storage as StorageStatus;
    assert.equal(status.state, 'full');
    assert.match(status.message, /disk is full/);
    assert.equal(typeof status.since, 'number');
    await eventually(
      () => storageItems(stream!.items).some((s) => s.state === 'full'),
      5_000,
      'a storage: full item on the owner live stream',
    );
    // Pushed when it changes, not once per refused write. (Under max_page_count a small write may still fit
    // in a page with room, which sets the state back to ok until the next refusal: the items alternate.)
    const states = storageItems(stream.items).map((s) => s.state);
    assert.ok(
      states.every((st, i) => i === 0 || st !== states[i - 1]),
      `no repeated item: ${states.join(',')}`,
    );
    assert.equal(states[states.length - 1], 'full');
    const oe = await ownerFail(served, 'messages.send', { conv_id: convId, text: BIG('owner') }, 507);
    assert.equal(oe.code, 'storage_full');
    assert.match(oe.next_step, /disk is full/);
    assert.ok(Array.isArray((await ownerOk(served, 'conversations.list')).conversations), 'owner reads go on');

    // Space returns: the next send just works, with no restart.
    hub.db.pragma(`max_page_count = ${UNLIMITED}`);
    const after = await ca.ok('send_message', { conv_id: convId, text: BIG('after'), client_msg_id: 'after' });
    acked.set('after', after.msg_id);
    const retried = await cb.ok('send_message', { conv_id: convId, text: BIG('full v2'), client_msg_id: 'full-v2' });
    acked.set('full-v2', retried.msg_id);
    refused.delete('full-v2');
    assert.equal((await ownerOk(served, 'hub.storage')).storage.state, 'ok');
    await eventually(() => storageItems(stream!.items).some((s) => s.state === 'ok'), 5_000, 'a storage: ok item on the owner live stream');
    assert.equal((await owner(served, 'messages.send', { conv_id: convId, text: 'owner is back' })).status, 200);

    // Nothing acknowledged is lost; nothing refused was saved — in the SQLite file itself, after a clean stop.
    for (const c of clients.splice(0)) await c.close();
    stream.stop();
    await running.close();
    running = undefined;
    const db = new Database(path.join(dir, 'perch.sqlite'), { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare('SELECT id, seq FROM messages WHERE conv_id = ?').all(convId) as Array<{ id: string; seq: number }>;
      const ids = new Set(rows.map((r) => r.id));
      for (const [cid, id] of acked) assert.ok(ids.has(id), `acknowledged ${cid} is on disk`);
      const keys = new Set(
        (db.prepare('SELECT text FROM messages WHERE conv_id = ?').all(convId) as Array<{ text: string }>).map((r) => r.text.slice(0, 12)),
      );
      for (const cid of refused) {
        const tag = cid === 'full-v1' ? 'full v1' : cid.replace('-', ' ');
        assert.ok(![...keys].some((k) => k.startsWith(`${tag} `) || k === tag), `refused ${cid} was not saved`);
      }
      const seqs = (db.prepare('SELECT seq FROM events WHERE conv_id = ? ORDER BY seq').all(convId) as Array<{ seq: number }>).map(
        (r) => r.seq,
      );
      assert.deepEqual(
        seqs,
        seqs.map((_, i) => i + 1),
        'the conversation log is gap-free',
      );
    } finally {
      db.close();
    }
  } finally {
    stream?.stop();
    for (const c of clients) await c.close().catch(() => undefined);
    await running?.close();
    removeDataDir(dir);
  }
});

test(
  'perch serve with its log on a full disk (logs/hub.log → /dev/full) stays up and serves',
  { skip: !fs.existsSync('/dev/full') && 'no /dev/full here' },
  async () => {
    const dir = tempDataDir();
    fs.mkdirSync(path.join(dir, 'logs'), { recursive: true });
    fs.symlinkSync('/dev/full', path.join(dir, 'logs', 'hub.log'));
    const served = await startServe(dir, { args: ['--rate', '0'] });
    try {
      const { key } = (await ownerOk(served, 'agents.add', { name: 'logger' })) as { key: string };
      for (let i = 0; i < 30; i++) {
        const w = await rawCall(served.mcpUrl, key, 'whoami', {});
        assert.equal(w.isError, undefined, `call ${i} answered`);
        await new Promise((r) => setTimeout(r, 5));
      }
      await eventually(
        () => /cannot be written \(ENOSPC\)/.test(served.stderr()),
        5_000,
        'the hub says once that its log cannot be written',
      );
      assert.equal(served.proc.exitCode, null, 'the hub is still running');
      assert.equal(served.proc.signalCode, null);
      assert.equal((await rawCall(served.mcpUrl, key, 'whoami', {})).isError, undefined, 'it still answers');
      assert.equal(served.stderr().match(/cannot be written/g)!.length, 1, 'said once, not once per line');
    } finally {
      assert.equal(await served.stop(), 0, 'it stops cleanly');
      removeDataDir(dir);
    }
  },
);

test('perch serve rotates its log at the cap (PERCH_LOG_MAX_BYTES): hub.log and at most 4 older files', async () => {
  const dir = tempDataDir();
  process.env.PERCH_LOG_MAX_BYTES = '1500';
  let served;
  try {
    served = await startServe(dir, { args: ['--rate', '0'] });
  } finally {
    delete process.env.PERCH_LOG_MAX_BYTES;
  }
  try {
    const { key } = (await ownerOk(served, 'agents.add', { name: 'rotor' })) as { key: string };
    for (let i = 0; i < 120; i++) await rawCall(served.mcpUrl, key, 'whoami', {});
    const logs = path.join(dir, 'logs');
    await eventually(() => fs.existsSync(path.join(logs, 'hub.log.4')), 10_000, 'the log rotated four times');
  } finally {
    await served.stop();
  }
  try {
    const names = fs.readdirSync(path.join(dir, 'logs')).sort();
    assert.deepEqual(names, ['hub.log', 'hub.log.1', 'hub.log.2', 'hub.log.3', 'hub.log.4']);
    for (const n of names) assert.ok(fs.statSync(path.join(dir, 'logs', n)).size <= 1500, `${n} is within the cap`);
    const last = fs
      .readFileSync(path.join(dir, 'logs', 'hub.log'), 'utf8')
      .trim()
      .split('\n');
    assert.ok(
      last.every((l) => JSON.parse(l).door === 'mcp'),
      'hub.log holds whole JSON lines',
    );
  } finally {
    removeDataDir(dir);
  }
});

// ---- a real full disk: a small tmpfs ----------------------------------------------------

/** stderr is exactly one line of perch's, with no stack trace. */
function oneLine(r: { code: number | null; stderr: string }, what: string): string {
  assert.equal(r.code, 1, `${what}: exit 1 (${r.stderr})`);
  assert.match(r.stderr, /^perch: [^\n]+\n$/, `${what}: one line on stderr, no stack: ${r.stderr}`);
  return r.stderr;
}

const probe = smallDisk('4m');
if (probe.dir) unmount(probe.dir);

test(
  'on a full disk (a real 4 MiB tmpfs), perch export, backup and import each say in one line that the disk is full, that nothing was changed and how much space they need; import checks before it writes',
  { skip: probe.why, timeout: 120_000 },
  async () => {
    const disk = smallDisk('4m').dir!;
    const src = tempDataDir();
    try {
      // An archive (on another disk) to import: a hub with a conversation of a few messages.
      const a = await addAgentCli(src, 'author');
      const served = await startServe(src, { args: ['--backups', '0'] });
      try {
        const conv = (await rawCall(served.mcpUrl, a.key, 'create_group', { title: 'import me', members: [] })).structuredContent!
          .conversation.conv_id as string;
        for (let i = 0; i < 5; i++)
          await rawCall(served.mcpUrl, a.key, 'send_message', { conv_id: conv, text: `imported ${i} ${'y'.repeat(400)}` });
      } finally {
        await served.stop();
      }
      const archive = path.join(src, 'history.tar.gz');
      assert.equal((await cliAsync(['export', '--out', archive, '--data-dir', src])).code, 0);

      const data = path.join(disk, 'data');
      fs.mkdirSync(data);
      await addAgentCli(data, 'keeper');
      const dbFile = path.join(data, 'perch.sqlite');
      const messages = () => {
        const db = new Database(dbFile, { readonly: true, fileMustExist: true });
        try {
          return db.prepare('SELECT count(*) FROM messages').pluck().get() as number;
        } finally {
          db.close();
        }
      };
      const before = messages();
      fillDisk(disk);
      // (SQLite's own -wal and -shm files of the database may come and go as it is opened; they are not listed.)
      const listing = () =>
        fs
          .readdirSync(disk)
          .concat(
            fs.readdirSync(data).map((n) => `data/${n}`),
            fs.existsSync(path.join(data, 'backups')) ? fs.readdirSync(path.join(data, 'backups')).map((n) => `data/backups/${n}`) : [],
          )
          .filter((n) => !/-(wal|shm)$/.test(n))
          .sort();
      const files = listing();

      const ex = oneLine(await cliAsync(['export', '--out', path.join(disk, 'out.tar.gz'), '--data-dir', data]), 'export');
      assert.match(
        ex,
        /^perch: The export to \S+out\.tar\.gz cannot be written: the disk holding \S+ is full \(0\.0 KiB free\); nothing was changed\. It needs about \d+\.\d (KiB|MiB) free there \(/,
      );
      const bk = oneLine(await cliAsync(['backup', '--data-dir', data]), 'backup');
      assert.match(
        bk,
        /^perch: The backup to \S+ cannot be written: the disk holding \S+ is full \(0\.0 KiB free\); nothing was changed\. It needs about \d+\.\d (KiB|MiB) free there \(the size of the database\)/,
      );
      const walBefore = fs.existsSync(`${dbFile}-wal`) ? fs.statSync(`${dbFile}-wal`).size : 0;
      const im = oneLine(await cliAsync(['import', archive, '--data-dir', data]), 'import');
      assert.match(
        im,
        /^perch: The import of \S+history\.tar\.gz cannot be written: the disk holding \S+ is full \(0\.0 KiB free\); nothing was changed\. It needs about \d+\.\d (KiB|MiB) free there \(/,
      );
      assert.equal(
        fs.existsSync(`${dbFile}-wal`) ? fs.statSync(`${dbFile}-wal`).size : 0,
        walBefore,
        'the import checked the free space before it wrote anything (its log did not grow)',
      );

      assert.deepEqual(listing(), files, 'no file was created or left: no archive, no backup, no staging folder');
      assert.equal(messages(), before, 'the database holds what it held');

      // Fuller still: no room even for SQLite's shared-memory file (-shm), made when the database is first read.
      for (const f of ['-wal', '-shm']) fs.rmSync(`${dbFile}${f}`, { force: true });
      fillDisk(disk, 'filler-2');
      for (const args of [['import', archive], ['backup'], ['agent', 'add', 'late']]) {
        const line = oneLine(await cliAsync([...args, '--data-dir', data]), args[0]!);
        assert.match(
          line,
          /^perch: the disk holding the database is too full for SQLite's shared-memory file \(SQLITE_IOERR_SHM\w*; it needs 32 KiB beside the database\), so this stopped before it began; nothing was changed\./,
          args[0]!,
        );
      }
      assert.deepEqual(listing(), files.concat('filler-2').sort(), 'nothing was created');
    } finally {
      unmount(disk);
      removeDataDir(src);
    }
  },
);

test(
  'perch serve starts on a full disk (a real 4 MiB tmpfs): reads work, writes answer storage_full, and once there is room runtime.json appears and writes work',
  { skip: probe.why, timeout: 120_000 },
  async () => {
    const disk = smallDisk('4m').dir!;
    try {
      const data = path.join(disk, 'data');
      fs.mkdirSync(data);
      const a = await addAgentCli(data, 'reader');
      let conv: string;
      const first = await startServe(data, { args: ['--backups', '0'] });
      try {
        conv = (await rawCall(first.mcpUrl, a.key, 'create_group', { title: 'kept', members: [] })).structuredContent!.conversation
          .conv_id as string;
        await rawCall(first.mcpUrl, a.key, 'send_message', { conv_id: conv, text: 'written before the disk filled' });
      } finally {
        assert.equal(await first.stop(), 0);
      }
      const filler = fillDisk(disk);

      const served = await startServe(data, { args: ['--backups', '0'] });
      try {
        assert.equal(served.ready!.login_url, null, 'no login link could be saved');
        const notes = served.ready!.notes as string[];
        assert.ok(
          notes.some((n) =>
            /The disk holding .* is full: the hub serves \(reads work; writes answer storage_full until there is room\)/.test(n),
          ),
          `the ready line says so: ${JSON.stringify(notes)}`,
        );
        assert.ok(
          notes.some((n) => /too full for SQLite's shared-memory file, so this hub holds its database alone/.test(n)),
          `and that it holds the database alone: ${JSON.stringify(notes)}`,
        );
        const h = await rawCall(served.mcpUrl, a.key, 'get_history', { conv_id: conv, limit: 50 });
        assert.equal(h.isError, undefined, JSON.stringify(h.structuredContent));
        assert.ok(
          (h.structuredContent!.events as Array<Record<string, any>>).some((e) => e.message?.text === 'written before the disk filled'),
          'a read answers with the history',
        );
        const w = await rawCall(served.mcpUrl, a.key, 'send_message', { conv_id: conv, text: `big ${'z'.repeat(20_000)}` });
        assert.equal(w.isError, true);
        assert.equal(w.structuredContent!.error.code, 'storage_full', 'a write answers storage_full');
        assert.doesNotMatch(served.stderr(), /\n\s+at /, 'no stack trace');
        assert.doesNotMatch(served.stderr(), /\[object Object\]/, 'what it says on stderr is text, not an object');
        // Meanwhile a command that opens the database itself says in one line that the hub holds it.
        const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-elsewhere-'));
        try {
          const ex = oneLine(
            await cliAsync(['export', '--out', path.join(elsewhere, 'x.tar.gz'), '--data-dir', data], { timeoutMs: 30_000 }),
            'export while the hub holds the database',
          );
          assert.match(
            ex,
            /^perch: the database is held by another process \(SQLITE_BUSY: a hub holding it alone because its disk was full, or a long write\); nothing was changed\./,
          );
          assert.deepEqual(fs.readdirSync(elsewhere), [], 'nothing was written');
        } finally {
          fs.rmSync(elsewhere, { recursive: true, force: true });
        }

        fs.rmSync(filler); // room again
        await eventually(() => fs.existsSync(path.join(data, 'runtime.json')), 20_000, 'runtime.json to be written once there is room');
        assert.equal(
          (await ownerOk(served, 'hub.storage')).storage.state,
          'full',
          'the owner door is reachable through runtime.json and says the disk was full',
        );
        const again = await rawCall(served.mcpUrl, a.key, 'send_message', { conv_id: conv, text: 'after the room came back' });
        assert.equal(again.isError, undefined, 'the next write works');
      } finally {
        assert.equal(await served.stop(), 0, 'it stops cleanly');
      }
    } finally {
      unmount(disk);
    }
  },
);
