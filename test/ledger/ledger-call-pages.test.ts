// The Ledger page's list of tool calls at size (store/tables/ledger/records.ts callKeys): the newest calls are found by
// walking the rows newest first, so a page reads a few hundred rows however big the ledger is, and no statement sorts
// the calls in a temporary B-tree (the GROUP BY it replaced read and sorted every call: about a second a page at 1M
// calls, bench `--only ledger`). The pages, filters and paging give exactly what a GROUP BY over every call gives,
// checked on a real hub's SQLite file with calls whose records interleave. The owner's list walks a step at a time with
// the event loop free between steps (a search for rare words reads every row).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Database from 'better-sqlite3';
import { withHub, type TestHub } from '../support/helpers';
import { recordFacts, dedupeOf } from '../../src/main/hub/features/ledger/recorder';
import { callKeys, type CallQuery } from '../../src/main/store/tables/ledger/records';
import type { LedgerFact } from '../../src/shared/ledger/harness-events';
import { listToolCalls } from '../../src/main/hub/features/ledger/calls';
import { runOwnerAction } from '../../src/main/owner/actions';

type Key = { agent_id: string; call_id: string; last_id: number };

/** What callKeys must answer: every matching call grouped, its last matching record's id, newest first. */
function reference(db: Database.Database, q: CallQuery): Key[] {
  const words = (q.text ?? '').split(/\s+/).filter(Boolean);
  return db
    .prepare(
      `SELECT agent_id, call_id, MAX(id) AS last_id FROM ledger_records WHERE call_id IS NOT NULL
           AND (? IS NULL OR day >= ?) AND (? IS NULL OR agent_id = ?) AND (? IS NULL OR harness = ?)
           AND (? IS NULL OR tool = ?) AND (? IS NULL OR call_id = ?)${words.map(() => ' AND (tool LIKE ? OR detail LIKE ?)').join('')}
         GROUP BY agent_id, call_id HAVING (? IS NULL OR MAX(id) < ?) ORDER BY last_id DESC LIMIT ?`,
    )
    .all(
      ...[q.since, q.agentId, q.harness, q.tool, q.callId].flatMap((v) => [v ?? null, v ?? null]),
      ...words.flatMap((w) => [`%${w}%`, `%${w}%`]),
      q.beforeId ?? null,
      q.beforeId ?? null,
      q.limit,
    ) as Key[];
}

/** A call's decision or result as the harness reports it. */
function fact(
  kind: 'tool_decision' | 'tool_result',
  callId: string,
  tool: string,
  at: number,
  extra: Partial<LedgerFact> = {},
): LedgerFact {
  return {
    kind,
    harness: 'claude-code',
    at,
    session_id: 's1',
    call_id: callId,
    tool,
    model: null,
    detail: kind === 'tool_result' ? { asked: `{"command":"run ${callId}"}`, success: !callId.endsWith('7') } : { decision: 'accept' },
    tokens: null,
    cost_usd: null,
    ...extra,
  };
}

/**
 * Three agents, `calls` calls each; a call's result comes up to 40 records after its decision (other calls between),
 * some calls are Codex's, one in ten fails, the day turns after half of them.
 */
function seedLedger(t: TestHub, calls: number, setDay: (d: number) => void): string[] {
  const agents = ['kit', 'rue', 'ash'].map((n) => t.agent(n).id);
  let seq = 0;
  const open: Array<{ agent: string; f: LedgerFact }> = [];
  for (let i = 0; i < calls * agents.length; i++) {
    if (i === Math.floor((calls * agents.length) / 2)) setDay(1);
    const agent = agents[i % agents.length]!;
    const tool = ['Bash', 'Read', 'Edit'][i % 3]!;
    const id = `toolu_${i}`;
    const extra: Partial<LedgerFact> = i % 11 === 0 ? { harness: 'codex' } : {};
    recordFacts(t.hub, agent, [{ fact: fact('tool_decision', id, tool, 1000 + i, extra), dedupe: dedupeOf(`d${seq++}`) }]);
    open.push({ agent, f: fact('tool_result', id, tool, 1000 + i, extra) });
    // Results come late and out of order: the call decided 40 records ago (or a random earlier one) gets its result.
    while (open.length > 40 || (open.length > 0 && (i * 7919) % 5 === 0)) {
      const k = (i * 31) % open.length;
      const [r] = open.splice(k, 1);
      recordFacts(t.hub, r!.agent, [{ fact: r!.f, dedupe: dedupeOf(`r${seq++}`) }]);
    }
  }
  for (const r of open) recordFacts(t.hub, r.agent, [{ fact: r.f, dedupe: dedupeOf(`r${seq++}`) }]);
  return agents;
}

test('the pages of tool calls, their filters and paging are what a GROUP BY over every call gives', () => {
  let clock = new Date(2026, 11, 4, 12).getTime();
  return withHub({ now: () => clock }, (t) => {
    const agents = seedLedger(t, 400, () => (clock += 86_400_000));
    const db = t.hub.db;
    const day2 = (db.prepare('SELECT MAX(day) AS d FROM ledger_records').get() as { d: string }).d;
    const queries: CallQuery[] = [
      { limit: 50 },
      { limit: 5000 },
      { limit: 30, agentId: agents[1] },
      { limit: 30, harness: 'codex' },
      { limit: 30, tool: 'Edit', agentId: agents[2] },
      { limit: 30, text: 'run toolu_1' },
      { limit: 30, text: 'Bash toolu_2' },
      { limit: 30, since: day2 },
      { limit: 10, callId: 'toolu_7' },
      { limit: 10, callId: 'toolu_7', agentId: agents[1] },
      { limit: 10, callId: 'toolu_7', agentId: agents[0] },
      { limit: 10, callId: 'no-such-call' },
      { limit: 10, agentId: 'a_nobody' },
    ];
    for (const q of queries) assert.deepEqual(callKeys(db, q), reference(db, q), JSON.stringify(q));
    // Paging newest first: each page starts below the last one's last record, and the pages together are every call.
    for (const base of [{ limit: 37 }, { limit: 25, agentId: agents[0] }, { limit: 20, text: 'toolu_3' }] as CallQuery[]) {
      const all = reference(db, { ...base, limit: 100_000 });
      const paged: Key[] = [];
      let beforeId: number | undefined;
      for (let p = 0; p < 200; p++) {
        const page = callKeys(db, { ...base, beforeId });
        assert.deepEqual(page, reference(db, { ...base, beforeId }), `${JSON.stringify(base)} before ${beforeId}`);
        paged.push(...page);
        if (page.length < base.limit) break;
        beforeId = page[page.length - 1]!.last_id;
      }
      assert.deepEqual(paged, all, `every call once, in order: ${JSON.stringify(base)}`);
    }
  });
});

test('the newest page reads a step of rows, not the whole ledger, and no statement sorts the calls', () =>
  withHub((t) => {
    seedLedger(t, 1000, () => {});
    const db = t.hub.db;
    const total = (db.prepare('SELECT COUNT(*) AS n FROM ledger_records').get() as { n: number }).n;
    const texts: string[] = [];
    const prepare = db.prepare;
    let rowsRead = 0;
    db.prepare = function (this: Database.Database, text: string) {
      const stmt = prepare.call(this, text);
      texts.push(text);
      const all = stmt.all.bind(stmt);
      stmt.all = ((...args: unknown[]) => {
        const rows = (all as (...a: unknown[]) => unknown[])(...args);
        rowsRead += rows.length;
        return rows;
      }) as typeof stmt.all;
      return stmt;
    } as typeof db.prepare;
    try {
      assert.equal(callKeys(db, { limit: 200 }).length, 200);
    } finally {
      db.prepare = prepare;
    }
    assert.ok(total >= 6000, `the ledger holds ${total} rows`);
    assert.ok(rowsRead <= 1000, `the newest 200 calls read ${rowsRead} of ${total} rows`);
    for (const text of texts.filter((x) => /ledger_records/.test(x))) {
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${text}`)
        .all(...Array.from({ length: (text.match(/\?/g) ?? []).length }, () => null))
        .map((r) => (r as { detail: string }).detail);
      assert.ok(!plan.some((d) => /TEMP B-TREE/.test(d)), `${text}\n  plans: ${plan.join(' | ')}`);
    }
  }));

test("the owner's search gives the event loop back between steps of its walk and finds what the walk at once finds", () =>
  withHub(async (t) => {
    seedLedger(t, 1000, () => {});
    const total = (t.hub.db.prepare('SELECT COUNT(*) AS n FROM ledger_records').get() as { n: number }).n;
    // Words only the oldest call's result holds: the walk reads every row, newest first, to find it.
    const search = 'run toolu_0';
    const atOnce = listToolCalls(t.hub, { text: search });
    assert.deepEqual(
      atOnce.map((c) => c.call_id),
      ['toolu_0'],
    );
    let turns = 0;
    let pending = true;
    const watch = () => {
      if (!pending) return;
      turns++;
      setImmediate(watch);
    };
    setImmediate(watch);
    const answer = (await runOwnerAction(t.hub, 'ledger.calls', { search })) as { calls: unknown[] };
    pending = false;
    assert.deepEqual(answer.calls, atOnce);
    // A step reads at most 4,000 ids at first (the range then follows the time steps take): 6,000 rows are two steps
    // at least, with the event loop free between them.
    assert.ok(total > 5000, `the ledger holds ${total} rows`);
    assert.ok(turns >= 1, `other work ran ${turns} times while ${total} rows were searched`);
  }));
