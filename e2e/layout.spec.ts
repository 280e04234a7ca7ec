// Headers and the sidebar hold their layout at 1280×800 with the live panel open: a group's title keeps a
// readable width and is shown whole on up to two lines (member Pause / Resume sit in one menu, the floor selector
// gives way), and a task's name in the sidebar is not cut to a letter by its chips, which read in full (on a second
// line when they do not fit beside it). A Fleet card's buttons sit inside its padding; dark mode's primary buttons
// keep 4.5:1.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openConversation, openPage } from './harness';
import { on } from './pages/on';
import { screenTitle, sidebar } from './pages/app';
import { addAgentButton } from './pages/agents';

const NAMES = ['planner', 'reviewer', 'deployer', 'researcher', 'summarizer'];

describe('layout at 1280×800', () => {
  const h = useHarness({ agents: NAMES }, { launchTimeoutMs: 120_000 });

  before(
    async () => {
      await h().page.setViewportSize({ width: 1280, height: 800 });
    },
    { timeout: 120_000 },
  );

  const titleWidth = async (title: string) => {
    const { page } = h();
    await openConversation(page, title);
    const panel = on(page).role('complementary', 'Live activity');
    if (!(await panel.isVisible())) await on(page).button('Activity').click();
    await panel.waitFor();
    return (await screenTitle(page, title).boundingBox())!.width;
  };

  test('a group title keeps at least 120 px with the live panel open, with 5 members and with 3', { timeout: 90_000 }, async () => {
    const { page } = h();
    const [first, ...rest] = NAMES;
    const a = h().agents[first!]!;
    await a.call('create_group', { title: 'Quarterly platform planning', members: ['owner', ...rest.slice(0, 3)] }); // 5 members
    await a.call('create_group', { title: 'Release train coordination', members: ['owner', ...rest.slice(0, 1)] }); // 3 members: 2 agents and you
    await a.call('create_group', { title: 'Incident review with four agents', members: ['owner', ...rest.slice(0, 2)] }); // 3 agents

    for (const title of ['Quarterly platform planning', 'Release train coordination', 'Incident review with four agents']) {
      const w = await titleWidth(title);
      assert.ok(w >= 120, `the title "${title}" is ${w.toFixed(0)} px wide (at least 120)`);
      // Shown whole: a second line rather than an ellipsis.
      const clip = await screenTitle(page, title).evaluate((el) => ({
        w: el.scrollWidth - el.clientWidth,
        h: el.scrollHeight - el.clientHeight,
      }));
      assert.ok(clip.w <= 0 && clip.h <= 1, `the title "${title}" is shown whole (cut by ${clip.w} px across, ${clip.h} px down)`);
    }
    await h().screenshot('layout-group-header');

    // Member controls live in one menu: Pause / Resume per agent there, not beside the title.
    const header = on(page).find('.conv-header');
    assert.equal(await header.button(/^Pause /).count(), 0, 'no Pause button per member in the header');
    await header.button(/^Agents of this conversation/).click();
    const menu = on(page).group('Pause agents of this conversation');
    await menu.button('Pause reviewer').click();
    await header.button(/^Agents of this conversation \(1 paused\)/).waitFor({ timeout: 10_000 });
    await menu.button('Resume reviewer').click();
    await menu.button('Pause reviewer').waitFor({ timeout: 10_000 });
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    assert.deepEqual(h().pageErrors, []);
  });

  test("a task's name in the sidebar stays readable beside its chips", { timeout: 60_000 }, async () => {
    const { page } = h();
    const a = h().agents.planner!;
    const task = (await a.call('create_task', { title: 'Migrate billing exports', members: ['owner', 'reviewer'], assignee: 'reviewer' }))
      .conversation;
    await h().agents.reviewer!.call('update_task', { conv_id: task.conv_id, state: 'input_required', note: 'Which bucket?' });
    await a.call('request_human', { conv_id: task.conv_id, kind: 'approve', title: 'Drop the old export table?', ttl_secs: 600 });
    await a.call('handoff', { conv_id: task.conv_id, note: 'Please confirm the bucket name.' });
    const row = sidebar(page).find('.conv-item', { hasText: 'Migrate billing exports' });
    await row.find('.chip-handoff').waitFor({ timeout: 15_000 });
    await row.find('.chip-pending').waitFor();
    const w = (await row.find('.conv-title').boundingBox())!.width;
    assert.ok(w >= 80, `the task's name is ${w.toFixed(0)} px wide (at least 80) beside its chips`);
    // Its three chips (state, handed to you, to decide) read in full: on a second line when they do not fit beside it.
    const cut = await row.find('.chip').evaluateAll((els) => els.filter((e) => e.scrollWidth > e.clientWidth).map((e) => e.textContent));
    assert.deepEqual(cut, [], 'no chip of the task is cut');
    await h().screenshot('layout-sidebar-task');
  });

  test("a Fleet card's buttons sit inside its padding", { timeout: 60_000 }, async () => {
    const { page } = h();
    await openPage(page, 'Fleet');
    const card = on(page).item('Agent planner');
    const c = (await card.boundingBox())!;
    for (const name of ['Pause planner', 'Message', 'Review mode for planner']) {
      const b = (await on(card).button(name, { exact: true }).boundingBox())!;
      assert.ok(
        b.x >= c.x + 8 && b.y + b.height <= c.y + c.height - 8,
        `${name} is inset in the card (button ${b.x.toFixed(0)},${(b.y + b.height).toFixed(0)}; card ${c.x.toFixed(0)},${(c.y + c.height).toFixed(0)})`,
      );
    }
  });

  test('dark mode: white text on primary buttons keeps a contrast of 4.5:1', { timeout: 60_000 }, async () => {
    const { page } = h();
    await page.emulateMedia({ colorScheme: 'dark' });
    try {
      await openPage(page, 'Agents');
      const colours = await addAgentButton(page).evaluate((el) => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor]);
      const lum = (c: string) => {
        const [r, g, b] = (c.match(/[\d.]+/g) ?? [])
          .slice(0, 3)
          .map((v) => Number(v) / 255)
          .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
        return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      };
      const [hi, lo] = colours.map(lum).sort((x, y) => y - x);
      const ratio = (hi! + 0.05) / (lo! + 0.05);
      assert.ok(ratio >= 4.5, `Add agent's contrast is ${ratio.toFixed(2)}:1`);
    } finally {
      await page.emulateMedia({ colorScheme: 'light' });
    }
  });
});
