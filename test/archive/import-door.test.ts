// Which door filed a prompt survives perch export and perch import: a harness's prompt filed by the hook door is still
// one after the round trip (the card does not call it the agent's own request_human), and an archive written before
// the door was exported imports as before (no door).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { addAgent, cliAsync, ownerOk, rawPost, removeDataDir, startServe, tempDataDir } from '../support/serve-harness';
import { pendingRequestOf } from '../support/hook-runner';
import { claudeCodeBash } from '../fixtures/permission-request';
import { exportEntries, rewrite, replaceEntry, rowsOf, jsonl } from '../support/export-entries';

test("a prompt filed by the hook door keeps its door through perch export and perch import (not shown as the agent's own request_human); an archive without the door field imports with none", async () => {
  const src = tempDataDir();
  const dest = tempDataDir();
  const older = tempDataDir();
  try {
    const hub = await startServe(src, { args: ['--backups', '0'] });
    try {
      const kit = await addAgent(src, 'kit');
      const pending = rawPost(`${hub.mcpUrl.replace(/\/mcp$/, '')}/hook/claude-code/permission-request`, kit.key, claudeCodeBash);
      const req = await pendingRequestOf(hub, kit);
      assert.equal(req.door, 'hook', 'filed by the hook door');
      await ownerOk(hub, 'requests.decide', { request_id: req.request_id, decision: 'approve' });
      assert.equal((await pending).status, 200);
    } finally {
      await hub.stop();
    }
    const out = path.join(src, 'history.tar.gz');
    const exported = await cliAsync(['export', '--out', out, '--data-dir', src]);
    assert.equal(exported.code, 0, exported.stderr);
    const entries = await exportEntries(out);
    assert.deepEqual(
      rowsOf(entries, 'requests').map((r) => r.door),
      ['hook'],
      'the archive says which door filed it',
    );

    const imported = await cliAsync(['import', out, '--data-dir', dest]);
    assert.equal(imported.code, 0, imported.stderr);
    // An archive written before requests carried their door: the same rows without the field.
    const before = path.join(older, 'before-door.tar.gz');
    await rewrite(entries, before, (list, manifest) => {
      const rows = rowsOf(entries, 'requests').map(({ door: _door, ...r }) => r);
      replaceEntry(list, manifest, 'requests.jsonl', jsonl(rows), rows.length);
    });
    const importedOlder = await cliAsync(['import', before, '--data-dir', older]);
    assert.equal(importedOlder.code, 0, importedOlder.stderr);

    for (const [dir, door] of [
      [dest, 'hook'],
      [older, undefined],
    ] as const) {
      const served = await startServe(dir, { args: ['--backups', '0'] });
      try {
        const { requests } = await ownerOk(served, 'requests.list', {});
        assert.equal(requests.length, 1);
        assert.equal(requests[0].state, 'approved');
        assert.equal(requests[0].context.source, 'permission_prompt');
        assert.equal(requests[0].door, door, door ? 'the imported prompt is still the hook door’s' : 'an older archive: no door');
      } finally {
        await served.stop();
      }
    }
  } finally {
    removeDataDir(src);
    removeDataDir(dest);
    removeDataDir(older);
  }
});
