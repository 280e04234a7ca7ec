// An agent name that is not one says why, with a valid one to use instead (shared/agents/agents.ts nameProblem, suggestName).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NAME_PATTERN, closestName, nameProblem, suggestName } from '../../src/shared/agents/agents';

test('an invalid name says why in one line and suggests a valid one; a valid name has no problem', () => {
  assert.equal(nameProblem('my-kit'), null);
  assert.equal(nameProblem('My Kit'), '"My Kit" has capital letters: names use a–z, 0–9, - and _ only. Try "my-kit".');
  assert.equal(nameProblem('my kit'), '"my kit" has spaces: names use a–z, 0–9, - and _ only. Try "my-kit".');
  assert.equal(nameProblem('-kit'), '"-kit" starts with - or _: names use a–z, 0–9, - and _ only. Try "kit".');
  assert.equal(nameProblem('kit!'), '"kit!" has characters other than a–z, 0–9, - and _: names use a–z, 0–9, - and _ only. Try "kit".');
  assert.equal(nameProblem('!!!'), '"!!!" has characters other than a–z, 0–9, - and _: names use a–z, 0–9, - and _ only.');
  assert.match(nameProblem('')!, /^A name is needed/);
  assert.match(nameProblem('a'.repeat(41))!, /is longer than 40 characters.*Try "a{40}"\./);
});

test('suggestName keeps letters (accents dropped) and digits, joins the rest with -, and is always a valid name or empty', () => {
  assert.equal(suggestName('Café Bot!'), 'cafe-bot');
  assert.equal(suggestName('  Review   PRs  '), 'review-prs');
  assert.equal(suggestName('__x__'), 'x__');
  for (const s of ['My Kit', 'Café Bot!', 'a'.repeat(60), '--a b--', 'Ünïcödé 42', '日本']) {
    const v = suggestName(s);
    assert.ok(v === '' || NAME_PATTERN.test(v), `${JSON.stringify(s)} → ${JSON.stringify(v)}`);
  }
});

test('closestName finds the agent meant by a typo, other capitals or a prefix, and nothing for a name not close to any', () => {
  const names = ['kit', 'rue', 'code-reviewer', 'planner'];
  assert.equal(closestName('kitt', names), 'kit');
  assert.equal(closestName('ikt', names), 'kit');
  assert.equal(closestName('KIT', names), 'kit');
  assert.equal(closestName('code-reveiwer', names), 'code-reviewer');
  assert.equal(closestName('plan', names), 'planner');
  assert.equal(closestName('ru', names), 'rue');
  assert.equal(closestName('zebra', names), undefined);
  assert.equal(closestName('x', names), undefined);
  assert.equal(closestName('kit', []), undefined);
});
