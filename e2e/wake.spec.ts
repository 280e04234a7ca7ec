// Wake runs end to end: the owner gives an agent a wake command in the Agents page, @mentions it in the
// browser, Perch starts the agent's program (test/fixtures/wake-agent.mjs, a real MCP client) and its
// reply appears in the conversation; the Fleet card shows a running run with a Stop button that stops it.
import { describe, test } from 'node:test';
import path from 'node:path';
import { useHarness, openAgent, openConversation, openPage, timeline } from './harness';
import { on } from './pages/on';
import { agentDialog, fleetCard, openAgentDialog } from './pages/agents';
import { composer } from './pages/conversation';

const ROOT = path.resolve(__dirname, '..');
const AGENT_SCRIPT = path.join(ROOT, 'test', 'fixtures', 'wake-agent.mjs');

describe('wake runs', () => {
  const h = useHarness({ agents: ['alice', 'reviewer'] });

  async function setWakeCommand(lines: string[]): Promise<void> {
    const { page } = h();
    await openAgent(page, 'reviewer');
    const dialog = await openAgentDialog(page, 'Wake', 'reviewer');
    await dialog.radio('Command (no shell)').check();
    await dialog.textbox('Program and arguments, one per line').fill(lines.join('\n'));
    await dialog.button('Save wake action').click();
    await dialog.field('Wake status').text(/^On/).waitFor();
    // The card says how this computer holds a run (here: a cgroup of its own, or only its process group, and why).
    await dialog
      .field('How runs are held')
      .text(/cgroup of its own|process group only|process tree/)
      .waitFor();
    await dialog.button('Close').first().click();
  }

  test(
    "an owner @mention in the browser starts the agent's wake command and its reply appears in the conversation",
    { timeout: 90_000 },
    async () => {
      const { page } = h();
      await setWakeCommand([process.execPath, AGENT_SCRIPT]);
      await h().agents.alice!.call('create_group', { title: 'Review crew', members: ['owner', 'reviewer'] });
      await openConversation(page, 'Review crew');
      const box = composer(page, 'Review crew');
      await box.mention('reviewer');
      await box.type('please review the release notes');
      await on(page).text('Wakes:').waitFor();
      await box.submit();
      await timeline(page).text('wake-agent reviewer here', { exact: false }).waitFor({ timeout: 30_000 });
      await h().screenshot('wake-reply');

      await openAgent(page, 'reviewer');
      await openAgentDialog(page, 'Wake', 'reviewer');
      const runs = on(page).list('Wake runs of reviewer');
      await runs.text('succeeded').waitFor();
      await runs.text(/woken by owner's message/).click();
      await on(page)
        .field(/^Log of run /)
        .text(/woken by 1 event/)
        .waitFor();
      await h().screenshot('wake-runs');
      await agentDialog(page, 'Wake', 'reviewer').button('Close').first().click();
    },
  );

  test('the Fleet card shows a running run, who woke it, and Stop ends it', { timeout: 90_000 }, async () => {
    const { page } = h();
    await setWakeCommand([process.execPath, '-e', 'setInterval(() => {}, 1000)']);
    await openConversation(page, 'Review crew');
    const box = composer(page, 'Review crew');
    await box.mention('reviewer');
    await box.type('one more thing');
    await box.submit();
    await openPage(page, 'Fleet');
    const wake = fleetCard(page, 'reviewer').wakeRun;
    await wake.text(/running \(woken by owner/).waitFor({ timeout: 20_000 });
    await h().screenshot('wake-fleet-running');
    await wake.button('Stop').click();
    await wake.waitFor({ state: 'detached', timeout: 20_000 });
  });
});
