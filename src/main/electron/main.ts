// The desktop shell: hosts the same hub as `perch serve` and shows the same UI in a locked-down window.
import { app, BrowserWindow, dialog, ipcMain, Menu, Notification, Tray, nativeImage, session, shell, screen } from 'electron';
import fs from 'node:fs';
import path from 'node:path';
import { AlreadyServingError, startHub, type RunningHub } from '../app';
import { DEFAULT_PORT, defaultDataDir } from '../paths';
import { parseDurability, type Durability } from '../store/db/durability';
import { describePortHolder, portTakenExplanation } from '../port-check';
import { IPC, type NavigateTarget } from '../../shared/ipc';
import { HELD_WHAT, type HeldItem } from '../../shared/features/review';
import { runOwnerAction } from '../owner/actions';
import { isHubError } from '../../shared/errors';
import { visibleText } from '../../shared/text/text';
import { waitingNoticeBody } from '../../shared/agents/harness';
import type { LiveItem } from '../hub/core/bus';
import type { HubLive } from '../../shared/api/event-log';
import type { OwnerReply } from '../../shared/api/owner-api';
import { isStorageStatus, type StorageStatus } from '../../shared/types';

let running: RunningHub | undefined;
let win: BrowserWindow | undefined;
let tray: Tray | undefined;
let focusedConv: string | null = null;

const dataDir = defaultDataDir();
const stateFile = path.join(dataDir, 'window-state.json');
const assetsDir = app.isPackaged ? path.join(process.resourcesPath, 'assets') : path.join(__dirname, '..', '..', 'assets');

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => showWindow());
  app
    .whenReady()
    .then(start)
    .catch((err) => {
      console.error('perch: failed to start', err);
      app.exit(1);
    });
}

interface WindowState {
  x?: number;
  y?: number;
  width: number;
  height: number;
  maximized?: boolean;
}

function loadWindowState(): WindowState {
  try {
    const s = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as WindowState;
    const visible = screen
      .getAllDisplays()
      .some(
        (d) =>
          s.x !== undefined &&
          s.y !== undefined &&
          s.x >= d.bounds.x - 50 &&
          s.y >= d.bounds.y - 50 &&
          s.x < d.bounds.x + d.bounds.width &&
          s.y < d.bounds.y + d.bounds.height,
      );
    return visible ? s : { width: s.width, height: s.height };
  } catch {
    return { width: 1280, height: 820 };
  }
}

function saveWindowState(): void {
  if (!win) return;
  const b = win.getNormalBounds();
  fs.writeFileSync(stateFile, JSON.stringify({ ...b, maximized: win.isMaximized() }));
}

async function start(): Promise<void> {
  // The same setting as `perch serve --durability` (docs/guide/durability.md).
  let durability: Durability;
  try {
    durability = parseDurability(process.env.PERCH_DURABILITY, 'PERCH_DURABILITY');
  } catch (err) {
    dialog.showErrorBox('Perch: bad setting', (err as Error).message);
    app.exit(2);
    return;
  }
  try {
    running = await startHub({
      dataDir,
      port: DEFAULT_PORT,
      uiDir: path.join(__dirname, '..', 'renderer'),
      durability,
      dailyBackups: dailyBackupsFromEnv(),
    });
  } catch (err) {
    if (err instanceof AlreadyServingError) {
      // One hub per data dir: a second one would never wake the first one's waiting agents.
      dialog.showErrorBox('Perch is already running', `${err.message}\n\nStop \`perch serve\` first, or keep using it in your browser.`);
      app.exit(1);
      return;
    }
    if ((err as { code?: string }).code !== 'EADDRINUSE') throw err;
    // Never move silently: agents send their keys to the configured port, whoever holds it.
    if (!(await askAboutTakenPort(DEFAULT_PORT))) {
      app.exit(1);
      return;
    }
    running = await startHub({
      dataDir,
      port: 0,
      uiDir: path.join(__dirname, '..', 'renderer'),
      durability,
      dailyBackups: dailyBackupsFromEnv(),
    });
    dialog.showMessageBoxSync({
      type: 'info',
      title: 'Perch',
      message: `Perch runs on ${running.mcpUrl} this time.`,
      detail: `Agents configured for port ${DEFAULT_PORT} will not reach it until you point them at this address (or free port ${DEFAULT_PORT} and restart Perch).`,
      buttons: ['OK'],
    });
  }
  const origin = running.baseUrl;

  // Nothing may navigate away, open windows or ask for permissions.
  session.defaultSession.setPermissionRequestHandler((_wc, _perm, cb) => cb(false));
  app.on('web-contents-created', (_e, contents) => {
    contents.setWindowOpenHandler(({ url }) => {
      if (url.startsWith('https://')) void shell.openExternal(url);
      return { action: 'deny' };
    });
    contents.on('will-navigate', (e, url) => {
      if (!url.startsWith(`${origin}/`)) e.preventDefault();
    });
    contents.on('will-attach-webview', (e) => e.preventDefault());
  });

  ipcMain.handle(IPC.call, async (e, action: unknown, input: unknown): Promise<OwnerReply> => {
    if (!e.senderFrame || !e.senderFrame.url.startsWith(`${origin}/`) || e.sender !== win?.webContents) {
      return {
        ok: false,
        error: { code: 'forbidden', message: 'Only the Perch window may use the owner API.', next_step: 'Use the Perch window.' },
      };
    }
    try {
      return { ok: true, value: await runOwnerAction(running!.hub, String(action), input) };
    } catch (err) {
      if (isHubError(err)) return { ok: false, error: err.toBody() };
      console.error('perch: owner action failed', err);
      return {
        ok: false,
        error: { code: 'internal', message: 'The hub failed on this action; nothing was changed.', next_step: 'Retry; see the hub log.' },
      };
    }
  });
  ipcMain.on(IPC.focus, (e, convId: unknown) => {
    if (e.sender === win?.webContents) focusedConv = typeof convId === 'string' ? convId : null;
  });

  running.hub.bus.subscribe((item) => {
    win?.webContents.send(IPC.event, item);
    notify(item);
    // What waits for the owner (requests, held items, handoffs): the tray's count and the dock/taskbar badge.
    if (item.kind === 'event' && /^(request|held|handoff)\./.test(item.value.event.type)) updateTray();
    if (item.kind === 'event' && item.value.event.type.startsWith('agent.')) updateTray(); // owner control: paused agents in the tooltip
    if (item.kind === 'hub' && item.value.budget_paused) notifyBudget(item.value.budget_paused); // owner control: a cap paused an agent
    if (item.kind === 'hub' && item.value.harness_waiting) notifyHarnessWaiting(item.value.harness_waiting); // a harness session waits (hub/control/harness.ts)
    if (item.kind === 'hub' && item.value.key_place_refused) notifyPlaceRefused(item.value.key_place_refused); // a key used from a place it may not (hub/identity/places.ts)
  });
  running.hub.bus.countViewers(() => (win && !win.isDestroyed() ? 1 : 0)); // the window watches the live fleet (hub/control/fleet-live.ts)

  createWindow();
  createTray();
}

/** PERCH_BACKUPS: daily backups to keep (0 turns them off); the hub's default otherwise. */
function dailyBackupsFromEnv(): number | undefined {
  const n = Number(process.env.PERCH_BACKUPS);
  return process.env.PERCH_BACKUPS && Number.isInteger(n) && n >= 0 ? n : undefined;
}

/** Tells the owner that the port is taken and by what; true when they choose another port for this run. */
async function askAboutTakenPort(port: number): Promise<boolean> {
  const found = portTakenExplanation(port, await describePortHolder(port));
  const { response } = await dialog.showMessageBox({
    type: 'warning',
    title: 'Perch: the port is taken',
    message: `Port ${port} on 127.0.0.1 is already in use: ${found.holder}.`,
    detail: `${found.keys}\n\nQuit, free the port and start Perch again — or run Perch on another port this time only (agents configured for port ${port} will not reach it).`,
    buttons: ['Quit', 'Use another port this time'],
    defaultId: 0,
    cancelId: 0,
    noLink: true,
  });
  return response === 1;
}

function createWindow(): void {
  const state = loadWindowState();
  win = new BrowserWindow({
    ...state,
    minWidth: 720,
    minHeight: 480,
    title: 'Perch',
    icon: path.join(assetsDir, 'icon.png'),
    show: false,
    webPreferences: {
      preload: path.join(__dirname, 'preload.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      spellcheck: true,
    },
  });
  if (state.maximized) win.maximize();
  win.once('ready-to-show', () => win?.show());
  win.on('close', saveWindowState);
  win.on('closed', () => (win = undefined));
  // The window is the owner through IPC (checked per sender): it needs no login link and no browser session.
  void win.loadURL(`${running!.baseUrl}/`);
}

function showWindow(target?: NavigateTarget): void {
  if (!win) createWindow();
  if (win!.isMinimized()) win!.restore();
  win!.show();
  win!.focus();
  if (target) win!.webContents.send(IPC.navigate, target);
}

/** How many of a list the owner action answers (0 when it is unavailable). */
async function countOf<T>(
  action: string,
  input: unknown,
  list: (r: Record<string, unknown>) => T[] | undefined,
  keep: (x: T) => boolean = () => true,
): Promise<number> {
  try {
    return list((await runOwnerAction(running!.hub, action, input)) as Record<string, unknown>)?.filter(keep).length ?? 0;
  } catch {
    return 0;
  }
}

/**
 * The tray's tooltip and count, the dock/taskbar badge: what waits for the owner — pending requests, items held for
 * review, conversations handed to them (the count the app's title and Approvals show: renderer/sync/waiting.ts).
 */
async function updateTray(): Promise<void> {
  if (!tray || !running) return;
  const owner = running.hub.ownerId;
  const decisions = await countOf('requests.list', { state: 'pending' }, (r) => r.requests as unknown[] | undefined);
  const held = await countOf('held.list', {}, (r) => r.items as unknown[] | undefined);
  const handed = await countOf(
    'handoffs.list',
    {},
    (r) => r.handoffs as Array<{ to?: { id?: string } }> | undefined,
    (h) => h.to?.id === owner,
  );
  const n = decisions + held + handed;
  // owner control (hub/control/control.ts): paused agents are shown plainly in the tooltip too
  let paused = 0;
  try {
    const r = (await runOwnerAction(running.hub, 'agents.list', {})) as { agents?: Array<{ paused?: unknown; revoked?: boolean }> };
    paused = r.agents?.filter((a) => a.paused && !a.revoked).length ?? 0;
  } catch {
    /* agents unavailable */
  }
  const plural = (k: number, one: string) => `${k} ${one}${k === 1 ? '' : 's'}`;
  const what = [
    decisions ? plural(decisions, 'decision') : '',
    held ? plural(held, 'held item') : '',
    handed ? plural(handed, 'handoff') : '',
  ].filter(Boolean);
  const parts = [n ? `${n} waiting for you (${what.join(', ')})` : '', paused ? `${plural(paused, 'agent')} paused` : ''].filter(Boolean);
  tray.setToolTip(parts.length ? `Perch — ${parts.join(' · ')}` : 'Perch');
  if (process.platform === 'darwin') tray.setTitle(n ? String(n) : '');
  app.setBadgeCount(n);
}

function createTray(): void {
  const icon = nativeImage.createFromPath(path.join(assetsDir, 'icon.png')).resize({ width: 18, height: 18 });
  tray = new Tray(icon);
  tray.setContextMenu(
    Menu.buildFromTemplate([
      { label: 'Open Perch', click: () => showWindow() },
      { type: 'separator' },
      { label: 'Quit', click: () => app.quit() },
    ]),
  );
  tray.on('click', () => showWindow());
  void updateTray();
}

/** Owner control: an OS notification when a daily cap paused an agent. */
function notifyBudget(v: HubLive['budget_paused']): void {
  void updateTray();
  if (!v.agent?.name || !Notification.isSupported()) return;
  const n = new Notification({
    title: `${visibleText(v.agent.name)} was paused: daily cap reached`,
    body: visibleText(v.detail ?? 'budget').slice(0, 200),
  });
  n.on('click', () => showWindow());
  n.show();
}

/** An OS notification when an agent's harness session (Claude Code, Codex) waits for its user. */
function notifyHarnessWaiting(v: HubLive['harness_waiting']): void {
  if (!v.agent?.name || !Notification.isSupported()) return;
  const n = new Notification({
    title: `${visibleText(v.agent.name)} is waiting for you`,
    body: visibleText(waitingNoticeBody(v.agent.name, v.message, v.cwd)).slice(0, 200),
  });
  n.on('click', () => showWindow());
  n.show();
}

/** An OS notification when a key was refused for where it connected from (once per agent, key and place). */
function notifyPlaceRefused(v: HubLive['key_place_refused']): void {
  if (!v?.agent || !Notification.isSupported()) return;
  const n = new Notification({
    title: `${visibleText(v.agent)}'s key was refused from ${visibleText(v.place)}`,
    body: visibleText(`It may connect from ${v.allowed.join(', ')} only. To allow it: ${v.how}`).slice(0, 300),
  });
  n.on('click', () => showWindow());
  n.show();
}

/** When the last "disk is full" notification was shown: at most one every STORAGE_NOTIFY_MS. */
let storageNotifiedAt = 0;
const STORAGE_NOTIFY_MS = 10 * 60_000;

/** An OS notification when the hub cannot save (the disk is full): the owner must free space. */
function notifyStorage(storage: StorageStatus): void {
  if (storage.state !== 'full' || !Notification.isSupported()) return;
  const now = Date.now();
  if (now - storageNotifiedAt < STORAGE_NOTIFY_MS) return;
  storageNotifiedAt = now;
  const n = new Notification({ title: 'Perch cannot save: the disk is full', body: storage.message.slice(0, 200), urgency: 'critical' });
  n.on('click', () => showWindow());
  n.show();
}

/**
 * OS notifications for what waits for the owner — requests, held items, handoffs (not while the window is focused:
 * the owner sees them arrive) — and cards (not for the conversation on screen). A click opens what it names.
 */
function notify(item: LiveItem): void {
  if (item.kind === 'hub' && isStorageStatus(item.value.storage)) return notifyStorage(item.value.storage);
  if (item.kind !== 'event' || !running || !Notification.isSupported()) return;
  const { event, woken } = item.value;
  if (event.conv_id === focusedConv && win?.isFocused()) return;
  const owner = running.hub.ownerId;
  let title: string | undefined;
  let body = '';
  let target: NavigateTarget = { to: 'conversation', conv_id: event.conv_id };
  const who = event.actor?.name ?? 'An agent';
  switch (event.type) {
    case 'request.created':
      if (!woken.includes(owner) || win?.isFocused()) return;
      title = `${who} asks you to decide`;
      if (event.before_your_history) break;
      body = event.data.title;
      target = { to: 'request', request_id: event.data.request_id };
      break;
    case 'handoff.created':
      if (!woken.includes(owner) || win?.isFocused()) return;
      title = `${who} handed a conversation to you`;
      body = event.data.note;
      break;
    case 'held.created':
      if (win?.isFocused()) return;
      void notifyHeld(who, event.data.held_id);
      return;
    case 'message.created':
      if (event.message?.kind !== 'card' || event.actor?.kind !== 'agent') return;
      title = `${who} sent you a card`;
      body = event.message.text ?? '';
      break;
    default:
      return;
  }
  // The live item is already visible text (hub.ts); this is the last door before the OS shows it.
  const n = new Notification({ title: visibleText(title), body: visibleText(body).slice(0, 200) });
  n.on('click', () => showWindow(target));
  n.show();
}

/** An OS notification for an item review mode held: who wants to do what, and its words; a click opens Approvals. */
async function notifyHeld(who: string, heldId: string): Promise<void> {
  let item: HeldItem | undefined;
  try {
    item = ((await runOwnerAction(running!.hub, 'held.list', {})) as { items: HeldItem[] }).items.find((h) => h.held_id === heldId);
  } catch {
    /* held items unavailable */
  }
  if (!item) return; // already sent or discarded
  const n = new Notification({ title: visibleText(`${who} wants to ${HELD_WHAT[item.kind]}`), body: visibleText(item.text).slice(0, 200) });
  n.on('click', () => showWindow({ to: 'approvals' }));
  n.show();
}

app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
app.on('activate', () => showWindow());
app.on('before-quit', () => {
  saveWindowState();
  void running?.close();
});
