// Headers and the sidebar hold their layout at 1280×800 with the live panel open: a group's title keeps a
// readable width (member Pause / Resume sit in one menu, the floor selector gives way), and a task's name in the
// sidebar is not cut to a letter by its chips (they truncate first).
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness, openConversation } from './harness';

const NAMES = ['planner', 'reviewer', 'deployer', 'researcher', 'summarizer'];

describe('layout at 1280×800', () => {
  const h = useHarness({ agents: NAMES }, { launchTimeoutMs: 120_000 });

  before(async () => {
    await h().page.setViewportSize({ width: 1280, height: 800 });
  }, { timeout: 120_000 });

  const titleWidth = async (title: string) => {
    const { page } = h();
    await openConversation(page, title);
    const panel = page.getByRole('complementary', { name: 'Live activity' });
    if (!(await panel.isVisible())) await page.getByRole('button', { name: 'Activity' }).click();
    await panel.waitFor();
    return (await page.getByRole('heading', { level: 1, name: title }).boundingBox())!.width;
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
    }
    await h().screenshot('layout-group-header');

    // Member controls live in one menu: Pause / Resume per agent there, not beside the title.
    const header = page.locator('.conv-header');
    assert.equal(await header.getByRole('button', { name: /^Pause / }).count(), 0, 'no Pause button per member in the header');
    await header.getByRole('button', { name: /^Agents of this conversation/ }).click();
    const menu = page.getByRole('group', { name: 'Pause agents of this conversation' });
    await menu.getByRole('button', { name: 'Pause reviewer' }).click();
    await header.getByRole('button', { name: /^Agents of this conversation \(1 paused\)/ }).waitFor({ timeout: 10_000 });
    await menu.getByRole('button', { name: 'Resume reviewer' }).click();
    await menu.getByRole('button', { name: 'Pause reviewer' }).waitFor({ timeout: 10_000 });
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    assert.deepEqual(h().pageErrors, []);
  });

  test("a task's name in the sidebar stays readable beside its chips", { timeout: 60_000 }, async () => {
    const { page } = h();
    const a = h().agents.planner!;
    const task = (await a.call('create_task', { title: 'Migrate billing exports', members: ['owner', 'reviewer'], assignee: 'reviewer' })).conversation;
    await h().agents.reviewer!.call('update_task', { conv_id: task.conv_id, state: 'input_required', note: 'Which bucket?' });
    await a.call('request_human', { conv_id: task.conv_id, kind: 'approve', title: 'Drop the old export table?', ttl_secs: 600 });
    await a.call('handoff', { conv_id: task.conv_id, note: 'Please confirm the bucket name.' });
    const row = page.getByRole('navigation', { name: 'Perch' }).locator('.conv-item', { hasText: 'Migrate billing exports' });
    await row.locator('.chip-handoff').waitFor({ timeout: 15_000 });
    await row.locator('.chip-pending').waitFor();
    const w = (await row.locator('.conv-title').boundingBox())!.width;
    assert.ok(w >= 80, `the task's name is ${w.toFixed(0)} px wide (at least 80) beside its chips`);
    await h().screenshot('layout-sidebar-task');
  });
});
