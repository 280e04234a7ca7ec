// Perch's own events in the flight recorder, on a real `perch serve`: a wake run (a real process that exits 3), the
// owner's pause and resume, a budget pause, and a standing rule added and removed each add a record of kind
// perch_event, hash-chained with the harnesses' records (perch ledger verify holds, and finds an edited one), read
// back with `perch ledger events` and in `perch ledger export`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import Database from 'better-sqlite3';
import { addAgent, cliAsync, eventually, ownerOk, uniqueName, useSharedServe } from '../support/serve-harness';

const served = useSharedServe({ env: { PERCH_WAKE_BACKOFF_MS: '300', PERCH_WAKE_KILL_GRACE_MS: '300' } });

async function perch(...args: string[]): Promise<any> {
  const r = await cliAsync([...args, '--data-dir', served.dataDir, '--json']);
  assert.equal(r.code, 0, `perch ${args.join(' ')}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

async function eventsOf(agent: string): Promise<any[]> {
  return (await perch('ledger', 'events', '--agent', agent)).events;
}

test("a wake run, pauses and resumes, and a rule's changes are Perch's records in the ledger, chained with the rest", async () => {
  const a = await addAgent(served.dataDir, uniqueName('perch-events'));
  const wake = await cliAsync([
    'agent',
    'wake',
    a.name,
    '--data-dir',
    served.dataDir,
    '--json',
    '--',
    process.execPath,
    '-e',
    'setTimeout(() => process.exit(3), 200)',
  ]);
  assert.equal(wake.code, 0, wake.stderr);
  const g = await ownerOk(served, 'conversations.create_group', { title: `with ${a.name}`, members: [a.id] });
  await ownerOk(served, 'messages.send', { conv_id: g.conversation.conv_id, text: `@${a.name} look`, to: [a.id] });
  let ended: any;
  await eventually(
    async () => {
      ended = (await eventsOf(a.name)).find((e) => e.event === 'wake_run_ended');
      return !!ended;
    },
    30_000,
    "the wake run's end in the ledger",
  );
  // A failed run is retried after a backoff: off now, so the runs stop.
  assert.equal((await cliAsync(['agent', 'wake', a.name, '--off', '--data-dir', served.dataDir])).code, 0);
  const started = (await eventsOf(a.name)).find((e) => e.event === 'wake_run_started' && e.run_id === ended.run_id);
  assert.ok(started, 'its start too');
  assert.equal(started.run_kind, 'command');
  assert.match(started.why, /message\.created by owner/);
  assert.equal(ended.exit_code, 3);
  assert.equal(ended.status, 'failed');
  assert.equal(typeof ended.duration_ms, 'number');
  const run = (await ownerOk(served, 'wake.runs', { agent: a.name })).runs.find((r: any) => r.id === ended.run_id);
  assert.equal(ended.duration_ms, run.ended_at - run.started_at);
  await eventually(
    async () => (await ownerOk(served, 'wake.runs', { agent: a.name })).runs.every((r: any) => r.status !== 'running'),
    30_000,
    'no run left running',
  );
  const wakeRecords = (await eventsOf(a.name)).length;

  await ownerOk(served, 'agents.pause', { agent: a.name, reason: 'lunch' });
  await ownerOk(served, 'agents.resume', { agent: a.name });
  const { rule } = await ownerOk(served, 'rules.add', { agent: a.name, tool: 'Bash', command_prefix: 'npm test', behavior: 'allow' });
  await ownerOk(served, 'rules.remove', { rule_id: rule.rule_id });

  const events = await eventsOf(a.name);
  const kinds = events.map((e) => e.event).reverse();
  assert.deepEqual(kinds.slice(wakeRecords), ['paused', 'resumed', 'rule_added', 'rule_removed']);
  assert.ok(kinds.slice(0, wakeRecords).every((k) => k.startsWith('wake_run_')));
  const paused = events.find((e) => e.event === 'paused');
  assert.equal(paused.by, 'owner');
  assert.equal(paused.reason, 'lunch');
  assert.equal(events.find((e) => e.event === 'resumed').was, 'owner');
  const added = events.find((e) => e.event === 'rule_added');
  assert.equal(added.rule_id, rule.rule_id);
  assert.match(added.rule, /always allow Bash `npm test`/);
  assert.deepEqual(added.on, { via: 'laptop' });
  assert.equal(events.find((e) => e.event === 'rule_removed').rule_id, rule.rule_id);

  const text = await cliAsync(['ledger', 'events', '--agent', a.name, '--data-dir', served.dataDir]);
  assert.match(text.stdout, /ended: failed, exit 3 after/);
  assert.match(text.stdout, /paused by owner: lunch/);

  const out = await cliAsync(['ledger', 'export', '--since', '2000-01-01', '--agent', a.name, '--data-dir', served.dataDir]);
  const rows = out.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  assert.equal(rows.length, wakeRecords + 4);
  assert.ok(rows.every((r) => r.kind === 'perch_event' && r.harness === 'perch' && /^[0-9a-f]{64}$/.test(r.hash)));
  const verified = await perch('ledger', 'verify');
  assert.equal(verified.ok, true, JSON.stringify(verified));
  assert.ok(verified.records >= 6);

  // The records are chained: editing one (the pause's reason) is found.
  const db = new Database(path.join(served.dataDir, 'perch.sqlite'));
  try {
    db.pragma('busy_timeout = 5000');
    db.prepare('UPDATE ledger_records SET detail = replace(detail, ?, ?) WHERE id = ?').run('lunch', 'nothing', paused.id);
  } finally {
    db.close();
  }
  const v = await cliAsync(['ledger', 'verify', '--data-dir', served.dataDir, '--json']);
  assert.equal(v.code, 1, v.stdout + v.stderr);
  assert.equal(JSON.parse(v.stdout).first_break.id, paused.id);
});
