// "Always allow" and "Always deny" on a permission prompt's card look like the buttons they are (a visible edge, not
// bare text beside the card's words), on the laptop (1280×800) and on a phone-sized window (390×844). A real
// `perch serve`, the real `perch hook permission-request`, and Chromium; screenshots in e2e/artifacts/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openPage, within } from './harness';
import { runHook } from '../test/support/hook-runner';
import { claudeCodeBash } from '../test/fixtures/permission-request';
import { requestCard } from './pages/approvals';
import type { Part } from './pages/on';

const visible = (c: string) => c !== 'transparent' && !/^rgba\(.*,\s*0\)$/.test(c);

/** What makes a control read as a button: a visible border, or a fill other than what is behind it. */
async function buttonLook(button: Part): Promise<{ border: boolean; fill: boolean; text: string }> {
  // Read in the page (colours as computed), judged here: the page gets no helper functions.
  const c = await button.evaluate((el) => {
    const s = getComputedStyle(el);
    const behind: string[] = [];
    for (let p = el.parentElement; p; p = p.parentElement) behind.push(getComputedStyle(p).backgroundColor);
    return {
      width: parseFloat(s.borderTopWidth),
      style: s.borderTopStyle,
      border: s.borderTopColor,
      fill: s.backgroundColor,
      behind,
      text: el.textContent ?? '',
    };
  });
  const behind = c.behind.find(visible) ?? 'rgb(255, 255, 255)';
  return {
    border: c.width >= 1 && c.style !== 'none' && visible(c.border) && c.border !== behind,
    fill: visible(c.fill) && c.fill !== behind,
    text: c.text,
  };
}

describe('the standing-rule buttons of a permission prompt', () => {
  const h = useHarness({ agents: ['kit'] });

  test('"Always allow" and "Always deny" have a visible edge at 1280×800 and 390×844', { timeout: 120_000 }, async () => {
    const { page } = h();
    const env = { PERCH_URL: h().mcpUrl, PERCH_KEY: h().agents.kit!.key };
    const pending = runHook(['permission-request', '--timeout', '60'], claudeCodeBash, env, 80_000);
    for (const [width, height] of [
      [1280, 800],
      [390, 844],
    ] as const) {
      await page.setViewportSize({ width, height });
      if (width === 1280) await openPage(page, 'Approvals'); // the phone-sized window stays on it
      const card = requestCard(page, 'Allow Bash: rm -rf node_modules?');
      await card.waitFor({ timeout: 10_000 });
      await card.alwaysAllowButton.scrollIntoViewIfNeeded();
      for (const button of [card.alwaysAllowButton, card.alwaysDenyButton]) {
        const look = await buttonLook(button);
        assert.ok(look.border || look.fill, `${look.text} at ${width}×${height} looks like a button: ${JSON.stringify(look)}`);
      }
      await h().screenshot(width === 1280 ? 'always-buttons' : 'always-buttons-phone');
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await requestCard(page, 'Allow Bash: rm -rf node_modules?').approve();
    const r = await within(20_000, 'the hook to print the decision', pending);
    assert.equal(r.code, 0, r.stderr);
  });
});
