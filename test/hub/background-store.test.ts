// The store's commit hooks (db.ts onCommit) and its worker thread (store/worker/background-worker.ts, a typed
// module loaded by path): the worker is woken by the hook and indexes what was committed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { makeHub, withHub } from '../support/helpers';
import { batch, onCommit, tx } from '../../src/main/store/db/db';
import { startBackgroundStore } from '../../src/main/store/worker/background';
import { SEARCH_FILE_NAME } from '../../src/main/store/worker/search-index';
import { addAgent } from '../../src/main/hub/control/agents';
import { openDirect } from '../../src/main/hub/talk/conversations';
import { sendMessage } from '../../src/main/hub/talk/messages';

test('a commit hook runs once after each commit (a tx or a whole batch), not after a rollback, and not once removed', async () => {
  await withHub((t) => {
    const db = t.hub.db;
    let runs = 0;
    const off = onCommit(db, () => runs++);
    tx(db, () => db.exec("INSERT INTO settings (key, value) VALUES ('hook_a', '1')"));
    assert.equal(runs, 1, 'after a tx');
    tx(db, () => tx(db, () => db.exec("INSERT INTO settings (key, value) VALUES ('hook_b', '1')")));
    assert.equal(runs, 2, 'a nested tx commits once');
    assert.throws(
      () =>
        tx(db, () => {
          db.exec("INSERT INTO settings (key, value) VALUES ('hook_c', '1')");
          throw new Error('no');
        }),
      /no/,
    );
    assert.equal(runs, 2, 'a rolled back tx runs no hook');
    batch(db, () => {
      tx(db, () => db.exec("INSERT INTO settings (key, value) VALUES ('hook_d', '1')"));
      tx(db, () => db.exec("INSERT INTO settings (key, value) VALUES ('hook_e', '1')"));
    });
    assert.equal(runs, 3, 'a batch of two units commits once');
    off();
    tx(db, () => db.exec("INSERT INTO settings (key, value) VALUES ('hook_f', '1')"));
    assert.equal(runs, 3, 'a removed hook does not run');
  });
});

test('the store worker starts from its TypeScript module and, woken by commits, indexes the committed messages', async () => {
  const t = makeHub();
  let background: ReturnType<typeof startBackgroundStore>;
  try {
    const hub = t.hub;
    let indexed!: () => void;
    const caughtUp = new Promise<void>((resolve) => (indexed = resolve));
    background = startBackgroundStore(hub.db, { onIndexed: () => indexed() });
    assert.ok(background, 'the worker started');
    const { agent } = addAgent(hub, { name: 'indexer' });
    const conv = openDirect(hub, agent.id, hub.ownerId);
    // Until the worker says it is ready, commits do not wake it: keep committing until it has caught up.
    let sent = 0;
    const deadline = Date.now() + 20_000;
    let done = false;
    void caughtUp.then(() => (done = true));
    while (!done && Date.now() < deadline) {
      sendMessage(hub, agent.id, { conv_id: conv.conv_id, text: `needle ${sent++}` });
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.ok(done, 'the worker reported the index caught up with the log');
    const search = new Database(path.join(t.dir, SEARCH_FILE_NAME), { readonly: true });
    try {
      const rows = search.prepare("SELECT count(*) FROM fts WHERE fts MATCH 'needle'").pluck().get() as number;
      assert.ok(rows >= 1 && rows <= sent, `indexed ${rows} of ${sent} messages`);
      assert.ok(Number(search.prepare("SELECT value FROM meta WHERE key = 'indexed_upto'").pluck().get()) > 0, 'indexed_upto moved');
    } finally {
      search.close();
    }
  } finally {
    background?.close();
    t.close();
  }
});

test("closing the store worker waits for its connections to close, so the hub's own close is the last and leaves no -wal or -shm", async () => {
  const t = makeHub();
  try {
    const hub = t.hub;
    let indexed!: () => void;
    const caughtUp = new Promise<void>((resolve) => (indexed = resolve));
    const background = startBackgroundStore(hub.db, { onIndexed: () => indexed() });
    assert.ok(background, 'the worker started');
    const { agent } = addAgent(hub, { name: 'closer' });
    const conv = openDirect(hub, agent.id, hub.ownerId);
    let done = false;
    void caughtUp.then(() => (done = true));
    for (let i = 0, deadline = Date.now() + 20_000; !done && Date.now() < deadline; i++) {
      sendMessage(hub, agent.id, { conv_id: conv.conv_id, text: `closing ${i}` });
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.ok(done, 'the worker has its connections open (it indexed)');
    background.close();
    hub.db.close();
    // Read at once, before any other thread could run: only the last connection's close removes them.
    for (const f of ['perch.sqlite-wal', 'perch.sqlite-shm'])
      assert.equal(fs.existsSync(path.join(t.dir, f)), false, `${f} is gone once the hub's connection closed`);
  } finally {
    t.close();
  }
});
