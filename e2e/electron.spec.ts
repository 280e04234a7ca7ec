// The desktop shell, driven with Playwright's _electron where an Electron binary is installed.
// Elsewhere (CI machines cannot download it) the test is skipped with one line saying why.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function electronBinary(): string | undefined {
  if (process.env.ELECTRON_OVERRIDE_DIST_PATH) {
    const p = path.join(process.env.ELECTRON_OVERRIDE_DIST_PATH, process.platform === 'win32' ? 'electron.exe' : 'electron');
    return fs.existsSync(p) ? p : undefined;
  }
  // Reading path.txt ourselves: require('electron') would try to download the binary.
  const pathFile = path.resolve('node_modules/electron/path.txt');
  if (!fs.existsSync(pathFile)) return undefined;
  const p = path.resolve('node_modules/electron/dist', fs.readFileSync(pathFile, 'utf8').trim());
  return fs.existsSync(p) ? p : undefined;
}

const binary = electronBinary();
const skip = binary
  ? false
  : 'no Electron binary installed here (node_modules/electron/dist is absent; Electron 45 downloads it on first `npm start`)';

test('the desktop window opens the hub UI with a locked-down renderer', { skip, timeout: 60_000 }, async () => {
  const { _electron } = await import('playwright-core');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-electron-'));
  const app = await _electron.launch({
    executablePath: binary!,
    args: ['.', '--no-sandbox'],
    env: { ...process.env, PERCH_DATA_DIR: dataDir },
    timeout: 30_000,
  });
  try {
    const win = await app.firstWindow();
    await win.waitForLoadState('domcontentloaded');
    // The preload exposes only the narrow bridge; no Node in the page.
    const shape = await win.evaluate(() => ({
      bridge: Object.keys((globalThis as unknown as { perch?: object }).perch ?? {}).sort(),
      node: typeof (globalThis as unknown as { require?: unknown }).require,
    }));
    assert.deepEqual(shape.bridge, ['call', 'onEvent', 'onNavigate', 'setFocus']);
    assert.equal(shape.node, 'undefined');
    const info = await win.evaluate(() =>
      (globalThis as unknown as { perch: { call(a: string, i: unknown): Promise<{ ok: boolean }> } }).perch.call('hub.info', {}),
    );
    assert.equal(info.ok, true);
    fs.mkdirSync('e2e/artifacts', { recursive: true });
    await win.screenshot({ path: 'e2e/artifacts/electron-window.png' });
  } finally {
    await app.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
});
