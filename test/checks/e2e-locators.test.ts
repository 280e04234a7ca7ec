// The e2e specs speak in the owner's terms through the page objects in e2e/pages/ (`on(page).button('Approve')`,
// `openConversation`, …); direct Playwright locator calls written in e2e/*.spec.ts (page.locator, getByRole,
// getByText, getByLabel, …) stay at most MAX_DIRECT_LOCATOR_CALLS, so one changed label does not touch many specs.
// Counted by scripts/count-e2e-locators.mjs (run it with --by-file to see which specs hold the most).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
// @ts-expect-error plain ESM module without types
import { countE2eLocators, countLocatorCalls } from '../../scripts/count-e2e-locators.mjs';

const ROOT = path.resolve(__dirname, '..', '..');
const MAX_DIRECT_LOCATOR_CALLS = 400;

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

test('no e2e spec hands waitForFunction a string: the UI forbids eval (CSP script-src self), so a string predicate fails when it is polled', async () => {
  const fs = await import('node:fs');
  const dir = path.join(ROOT, 'e2e');
  const found = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .filter((f) => /waitForFunction\(\s*['"`]/.test(fs.readFileSync(path.join(dir, f), 'utf8')));
  assert.deepEqual(found, [], 'pass a function to waitForFunction, not a string');
});
