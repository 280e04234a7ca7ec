// Suggested standing rules (hub/features/rules/suggestions.ts) count the owner's approvals of a prompt shape in the
// window: a rule's decisions do not count, a rejection ever (even before the window) rules the shape out, and the
// count reads the window through indexes, not every prompt ever filed (the card asks for it each time it shows).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withHub } from '../support/helpers';
import { listRuleSuggestions, SUGGEST_AFTER, SUGGEST_WINDOW_DAYS } from '../../src/main/hub/features/rules/suggestions';
import { SHAPE_COUNTS_SQL } from '../../src/main/store/tables/agents/rule-suggestions';

const DAY = 24 * 3600 * 1000;

test("suggestions count the window's approvals of a shape, not a rule's decisions, and never a shape ever rejected", () =>
  withHub({ now: () => 1_000 * DAY }, (t) => {
    const kit = t.agent('kit');
    const now = t.hub.now();
    const insert = t.hub.db.prepare(
      `INSERT INTO requests (id, conv_id, msg_id, requester_id, kind, title, context, assignees, state, created_at, expires_at, prompt_shape, decided_by_rule)
       VALUES (@id, 'c', 'm', @who, 'approve', 't', '{}', '[]', @state, @at, @at + 600000, @shape, @rule)`,
    );
    let n = 0;
    const file = (shape: string, state: string, daysAgo: number, rule: string | null = null) =>
      insert.run({ id: `r${n++}`, who: kit.id, state, at: now - daysAgo * DAY, shape: `Bash\t${shape}`, rule });
    for (let i = 0; i < SUGGEST_AFTER; i++) file('npm test', 'approved', i + 1);
    // Rejected once, long before the window: never suggested.
    for (let i = 0; i < 5; i++) file('npm run build', 'approved', i + 1);
    file('npm run build', 'rejected', SUGGEST_WINDOW_DAYS + 30);
    // Approved often, but mostly before the window.
    file('ls', 'approved', 1);
    for (let i = 0; i < 5; i++) file('ls', 'approved', SUGGEST_WINDOW_DAYS + 1 + i);
    // Decided by a rule, not by the owner.
    for (let i = 0; i < 5; i++) file('make', 'approved', i + 1, 'pr_x');
    const got = listRuleSuggestions(t.hub).map((s) => `${s.agent.name} ${s.tool} ${s.shape} ${s.approved}`);
    assert.deepEqual(got, [`kit Bash npm test ${SUGGEST_AFTER}`]);
  }));

test('counting suggestions reads the window through indexes, never a scan of every prompt ever filed', () =>
  withHub((t) => {
    const plan = t.hub.db.prepare(`EXPLAIN QUERY PLAN ${SHAPE_COUNTS_SQL}`).all({ since: 0, min: SUGGEST_AFTER, agent: null }) as {
      detail: string;
    }[];
    const scans = plan.map((p) => p.detail).filter((d) => /^SCAN/.test(d));
    assert.deepEqual(scans, [], plan.map((p) => p.detail).join('\n'));
  }));
