// The e2e specs speak in the owner's terms through the page objects in e2e/pages/ (`on(page).button('Approve')`,
// `openConversation`, …); direct Playwright locator calls written in e2e/*.spec.ts (page.locator, getByRole,
// getByText, getByLabel, …) stay at most MAX_DIRECT_LOCATOR_CALLS, so one changed label does not touch many specs.
// Counted by scripts/count-e2e-locators.mjs (run it with --by-file to see which specs hold the most).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
// @ts-expect-error plain ESM module without types
import { countE2eLocators, countLocatorCalls } from '../../scripts/count-e2e-locators.mjs';

const ROOT = path.resolve(__dirname, '..', '..');
const MAX_DIRECT_LOCATOR_CALLS = 40;

/** The files in e2e/ whose names end with suffix, each with its text. */
function e2eFiles(suffix: string): Array<[string, string]> {
  const dir = path.join(ROOT, 'e2e');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(suffix))
    .map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]);
}

test('the counter sees each kind of direct locator call, chained or not, and not the page-object words', () => {
  const spec = [
    "await page.getByRole('button', { name: 'Approve' }).click();",
    "page.getByRole('dialog', { name: 'Add' }).getByLabel('Name').fill('x');",
    "await page.getByText('Nothing is waiting for you.').waitFor();",
    "page.getByPlaceholder('Search'); page.getByTestId('t'); page.getByTitle('t'); page.getByAltText('a');",
    "page.locator('pre'); page.frameLocator('iframe');",
    "await on(page).button('Approve').click(); on(page).dialog('Add').field('Name'); on(pane).find('pre');",
  ].join('\n');
  assert.equal(countLocatorCalls(spec), 10);
});

test(`e2e specs make at most ${MAX_DIRECT_LOCATOR_CALLS} direct locator calls (the page objects in e2e/pages/ hold the selectors)`, () => {
  const { total, byFile } = countE2eLocators(ROOT) as { total: number; byFile: Record<string, number> };
  assert.ok(Object.keys(byFile).length > 20, 'the counter found the e2e specs');
  const worst = Object.entries(byFile)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([f, n]) => `${f} ${n}`)
    .join(', ');
  assert.ok(
    total <= MAX_DIRECT_LOCATOR_CALLS,
    `${total} direct locator calls in e2e/*.spec.ts, over ${MAX_DIRECT_LOCATOR_CALLS} (most in: ${worst}); use the page objects in e2e/pages/`,
  );
});

// Labels a page object in e2e/pages/ owns (the request card's buttons, the composer's, the pairing form's, …): a spec
// goes through the page object instead of naming one in a locator word, so a changed label touches one file.
const PAGE_OBJECT_LABELS = [
  'Approve',
  'Reject',
  'Always allow',
  'Always deny',
  'Command prefix',
  'Comment (optional)',
  'Your answer',
  'Undo',
  'Edit & send',
  'Send edited',
  'Add agent',
  'I have copied it',
  'Agent key',
  'Export line',
  'Pause all agents',
  'Resume all agents',
  'Conversation menu',
  'Message actions',
  'Add reaction',
  'Reply in thread',
  'Attach files',
  'Attached files',
  'Send as file',
  'Show the QR code',
  'It matches — pair',
  'Pairing link',
  'Pairing phrase',
];

/** Where text names one of labels in a locator word or a role name: `.button('Approve'`, `name: 'Approve'`. */
function labelUses(text: string, labels: readonly string[]): string[] {
  const quoted = labels.map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  const re = new RegExp(`(?:\\.\\s*[a-zA-Z]+\\(\\s*|\\bname:\\s*)(['"\`])(${quoted})\\1`, 'g');
  return [...text.matchAll(re)].map((m) => m[2]!);
}

test('the counter of page-object labels sees a label in a locator word or a role name, and not in other text', () => {
  const spec = [
    "await card.button('Approve').click();",
    "on(page).button(\n  'Add agent',\n);",
    "page.getByRole('button', { name: 'Reject' });",
    "await card.approve(); assert.equal(x, 'Approve'); // 'Undo'",
    "on(page).button('Approve all');",
  ].join('\n');
  assert.deepEqual(labelUses(spec, PAGE_OBJECT_LABELS), ['Approve', 'Add agent', 'Reject']);
});

test('no e2e spec names a label a page object owns (it calls the page object: requestCard(…).approve(), composer(…).send(…), …)', () => {
  const found = e2eFiles('.spec.ts').flatMap(([f, text]) => labelUses(text, PAGE_OBJECT_LABELS).map((l) => `${f}: ${l}`));
  assert.deepEqual(found, [], 'use the page objects in e2e/pages/ for these labels');
});

test('no e2e spec hands waitForFunction a string: the UI forbids eval (CSP script-src self), so a string predicate fails when it is polled', () => {
  const found = e2eFiles('.ts')
    .filter(([, text]) => /waitForFunction\(\s*['"`]/.test(text))
    .map(([f]) => f);
  assert.deepEqual(found, [], 'pass a function to waitForFunction, not a string');
});
