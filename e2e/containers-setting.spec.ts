// Settings → Agents in containers: the owner turns the container listener on and off in the app; the page shows the
// state, the bridge found (PERCH_TEST_CONTAINER_BRIDGE=127.0.0.3 stands in for docker0: no container runtime here)
// and the URL an agent in a container uses, and the hub really listens there while it is on.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { useHarness } from './harness';
import { on } from './pages/on';
import { openSettings } from './pages/app';

const BRIDGE = '127.0.0.3';

/** Whether something accepts connections on BRIDGE:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host: BRIDGE, port }, () => {
      s.destroy();
      resolve(true);
    });
    s.on('error', () => resolve(false));
  });
}

describe('Settings → Agents in containers', () => {
  const h = useHarness({ agents: [], serveEnv: { PERCH_TEST_CONTAINER_BRIDGE: BRIDGE } });

  test('the toggle shows the state, the bridge found and the container URL, and turns the listener on and off', async () => {
    const { page, baseUrl } = h();
    const port = Number(new URL(baseUrl).port);
    await openSettings(page, 'Containers'); // its own tab
    await on(page).heading('Agents in containers', { level: 2 }).waitFor();
    const toggle = on(page).checkbox('Let agents in containers connect');
    const status = on(page).status('Container listener');
    await status.filter({ hasText: `Container bridge found: test-bridge (${BRIDGE}).` }).waitFor();
    assert.equal(await toggle.isChecked(), false);
    assert.equal(await listening(port), false);

    await toggle.click(); // checked once the hub has answered
    await on(page).checkbox('Let agents in containers connect', { checked: true }).waitFor();
    await status.filter({ hasText: `Agents in a container use http://host.docker.internal:${port}/mcp` }).waitFor();
    assert.equal(await toggle.isChecked(), true);
    assert.equal(await listening(port), true);

    // the page read anew shows the saved state
    await page.reload();
    await on(page).checkbox('Let agents in containers connect', { checked: true }).waitFor();

    await on(page).checkbox('Let agents in containers connect').click();
    await on(page).checkbox('Let agents in containers connect', { checked: false }).waitFor();
    await status.filter({ hasNotText: 'host.docker.internal' }).waitFor();
    assert.equal(await listening(port), false);
    assert.deepEqual(h().pageErrors, []);
  });
});
