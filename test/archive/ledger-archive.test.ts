// The flight recorder in perch export / perch import (store/export/ledger-rows.ts), with the built `perch`, real
// `perch serve`s and real files: the archive carries every record as its hub chained it; an import verifies each day's
// chain first (an edited record: refused in one line naming the day and the record, nothing written), then re-chains
// the records into this hub's days under its own ids and the agents' ids here, with one `ledger_imported` record of
// the owner naming the archive's verified heads, so `perch ledger verify` here still says ok. A version 1 archive (no
// ledger) imports as before.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { addAgent, cliAsync, ownerOk, rawPost, removeDataDir, startServe, tempDataDir } from '../support/serve-harness';
import { claudeCodeCall } from '../support/otlp-bodies';
import { exportEntries, fingerprint, rewrite, rowsOf, withRows, type Row } from '../support/export-entries';

async function perch(dataDir: string, ...args: string[]): Promise<any> {
  const r = await cliAsync([...args, '--data-dir', dataDir, '--json'], { timeoutMs: 60_000 });
  assert.equal(r.code, 0, `perch ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function tableCounts(dataDir: string): string {
  const db = new Database(path.join(dataDir, 'perch.sqlite'), { readonly: true });
  try {
    return fingerprint(db);
  } finally {
    db.close();
  }
}

const src = tempDataDir();
let archive = '';
let srcKitId = '';
let archived: Row[] = [];

before(async () => {
  // The exporting hub: kit's Claude Code reports one tool call and its cost; the owner pauses and resumes kit.
  const hub = await startServe(src, { args: ['--backups', '0'] });
  try {
    const kit = await addAgent(src, 'kit');
    srcKitId = kit.id;
    const token = (await perch(src, 'ledger', 'token', 'kit')).token as string;
    const sent = await rawPost(hub.mcpUrl.replace(/\/mcp$/, '/v1/logs'), token, claudeCodeCall('sess-a', 'toolu_arch', 0.0421));
    assert.equal(sent.status, 200, sent.text);
    await ownerOk(hub, 'agents.pause', { agent: 'kit', reason: 'lunch' });
    await ownerOk(hub, 'agents.resume', { agent: 'kit' });
    const g = await ownerOk(hub, 'conversations.create_group', { title: 'Notes', members: [kit.id] });
    await ownerOk(hub, 'messages.send', { conv_id: g.conversation.conv_id, text: 'kept' });
  } finally {
    await hub.stop();
  }
  assert.equal((await perch(src, 'ledger', 'verify')).ok, true);
  archive = path.join(src, 'history.tar.gz');
  const exported = await cliAsync(['export', '--out', archive, '--data-dir', src], { timeoutMs: 60_000 });
  assert.equal(exported.code, 0, exported.stderr);
  archived = rowsOf(await exportEntries(archive), 'ledger_records');
});

after(() => removeDataDir(src));

/** A hub that already has its own kit (another id) and records of its own today, not serving. */
async function destWithKit(): Promise<{ dir: string; kitId: string }> {
  const dir = tempDataDir();
  const hub = await startServe(dir, { args: ['--backups', '0'] });
  try {
    const kit = await addAgent(dir, 'kit');
    await ownerOk(hub, 'agents.pause', { agent: 'kit', reason: 'here first' });
    return { dir, kitId: kit.id };
  } finally {
    await hub.stop();
  }
}

test("perch export carries the ledger, and perch import re-chains it under the agents' ids here: verify says ok, the calls, costs and events show it, a dry run counts it, a second import adds nothing", async () => {
  const manifest = JSON.parse((await exportEntries(archive)).get('manifest.json')!.toString('utf8'));
  assert.equal(manifest.version, 2);
  assert.equal(manifest.counts.ledger_records, archived.length);
  // 3 harness records (decision, result, api request), paused, resumed.
  assert.equal(archived.length, 5, JSON.stringify(archived));
  assert.ok(archived.every((r) => r.agent_id === srcKitId && /^[0-9a-f]{64}$/.test(r.hash as string)));

  const { dir, kitId } = await destWithKit();
  try {
    assert.notEqual(kitId, srcKitId, 'kit has another id here');
    const here = (await perch(dir, 'ledger', 'verify')).records as number;

    const counts = tableCounts(dir);
    const dry = await perch(dir, 'import', archive, '--dry-run');
    assert.equal(dry.added.ledger_records, archived.length, JSON.stringify(dry));
    assert.equal(tableCounts(dir), counts, 'a dry run writes nothing');
    const text = await cliAsync(['import', archive, '--dry-run', '--data-dir', dir]);
    assert.match(text.stdout, new RegExp(`Would add from .*${archived.length} ledger_records`));

    const r = await perch(dir, 'import', archive);
    assert.equal(r.added.ledger_records, archived.length, JSON.stringify(r));

    const verified = await perch(dir, 'ledger', 'verify');
    assert.equal(verified.ok, true, JSON.stringify(verified));
    assert.equal(verified.records, here + archived.length + 1, 'the records and the ledger_imported record');

    const { calls } = await perch(dir, 'ledger', 'calls', '--agent', 'kit');
    const call = calls.find((c: any) => c.call_id === 'toolu_arch');
    assert.ok(call, JSON.stringify(calls));
    assert.equal(call.agent.id, kitId, "the call is kit's here");
    const costs = (await perch(dir, 'ledger', 'costs', '--agent', 'kit', '--since', '2000-01-01')).costs;
    assert.equal(
      costs.reduce((s: number, c: any) => s + (c.cost_usd ?? 0), 0),
      0.0421,
    );

    const events = (await perch(dir, 'ledger', 'events', '--since', '2000-01-01')).events;
    const kitEvents = events.filter((e: any) => e.agent.id === kitId).map((e: any) => e.reason ?? e.was);
    assert.deepEqual(kitEvents.sort(), ['here first', 'lunch', 'owner'].sort(), 'its pause and resume, beside the pause made here');
    const imported = events.find((e: any) => e.event === 'ledger_imported');
    assert.ok(imported, JSON.stringify(events));
    assert.equal(imported.records, archived.length);
    const lastOfDay = new Map<string, Row>();
    for (const x of archived) lastOfDay.set(x.day as string, x);
    assert.deepEqual(
      imported.heads,
      [...lastOfDay.values()].map((x) => ({
        day: x.day,
        id: x.id,
        hash: x.hash,
        records: archived.filter((y) => y.day === x.day).length,
      })),
      "it names the archive's verified heads",
    );

    const again = await perch(dir, 'import', archive);
    assert.equal(again.added.ledger_records ?? 0, 0, JSON.stringify(again));
    assert.equal(again.skipped.ledger_records, archived.length);
    assert.equal((await perch(dir, 'ledger', 'verify')).records, verified.records, 'the same archive again adds nothing');

    // What the Ledger page reads (the owner API of the hub serving it): the imported call and events, kit's here.
    const hub = await startServe(dir, { args: ['--backups', '0'] });
    try {
      const seen = (await ownerOk(hub, 'ledger.calls', { agent: 'kit' })).calls.find((c: any) => c.call_id === 'toolu_arch');
      assert.equal(seen?.agent.id, kitId, JSON.stringify(seen));
      assert.equal(seen.outcome.success, true);
      const shown = (await ownerOk(hub, 'ledger.events', {})).events;
      assert.ok(
        shown.some((e: any) => e.event === 'paused' && e.reason === 'lunch' && e.agent.id === kitId),
        JSON.stringify(shown),
      );
      assert.ok(shown.some((e: any) => e.event === 'ledger_imported'));
    } finally {
      await hub.stop();
    }
  } finally {
    removeDataDir(dir);
  }
});

test('an archive with an edited ledger record (its manifest made to match) is refused in one line naming the day and the record; nothing is written, a dry run is refused the same', async () => {
  const { dir } = await destWithKit();
  try {
    const cost = archived.find((r) => r.kind === 'api_request')!;
    const tampered = await withRows(await exportEntries(archive), path.join(dir, 'tampered.tar.gz'), {
      ledger_records: (rows) => rows.map((r) => (r.id === cost.id ? { ...r, cost_usd: 0.0001 } : r)),
    });
    const counts = tableCounts(dir);
    for (const dry of [['--dry-run'], []]) {
      const r = await cliAsync(['import', tampered, ...dry, '--data-dir', dir], { timeoutMs: 60_000 });
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.match(
        r.stderr,
        new RegExp(`ledger_records\\.jsonl line \\d+: ledger record ${cost.id} of ${cost.day} does not follow that day's hash chain`),
      );
      assert.match(r.stderr, /Nothing was written\./);
      assert.equal(tableCounts(dir), counts, `${dry.join(' ') || 'import'}: nothing written`);
    }
  } finally {
    removeDataDir(dir);
  }
});

test('an archive of format version 1 (written before the ledger was in it) still imports, without a ledger; a version 1 archive that has one is refused', async () => {
  const { dir } = await destWithKit();
  try {
    const entries = await exportEntries(archive);
    const old = path.join(dir, 'v1.tar.gz');
    await rewrite(entries, old, (list, manifest) => {
      list.splice(
        list.findIndex(([n]) => n === 'ledger_records.jsonl'),
        1,
      );
      manifest.version = 1;
      manifest.entries = manifest.entries.filter((e: { name: string }) => e.name !== 'ledger_records.jsonl');
      delete manifest.counts.ledger_records;
    });
    const here = (await perch(dir, 'ledger', 'verify')).records as number;
    const r = await perch(dir, 'import', old);
    assert.equal(r.added.messages, 1, JSON.stringify(r));
    assert.equal(r.added.ledger_records ?? 0, 0);
    assert.equal((await perch(dir, 'ledger', 'verify')).records, here, 'no ledger record, no ledger_imported record');

    const mixed = path.join(dir, 'v1-with-ledger.tar.gz');
    await rewrite(entries, mixed, (_list, manifest) => {
      manifest.version = 1;
    });
    const refused = await cliAsync(['import', mixed, '--data-dir', dir]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /ledger_records\.jsonl is not in an archive of format version 1/);
  } finally {
    removeDataDir(dir);
  }
});
