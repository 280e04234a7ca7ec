// Nothing waits unseen: what waits for the owner (pending requests, items held for review, conversations handed to
// them; the Approvals inbox's count, less what was just decided in the undo window) is counted in one place. The tab's
// title says it ("(2) Perch"), the favicon shows a dot, the navigation's Approvals count shows it, and — after the
// owner turned them on once (kept in this browser) — a desktop notification names the agent and what it wants for
// each new item that arrives while the tab is not focused; clicking it focuses the tab and opens the item. The
// desktop app has its own OS notifications and tray count (main/electron/main.ts), and a paired phone its Web Push.
import { uiStore } from '../stores/ui';
import { requestsStore } from '../stores/requests';
import { heldStore } from '../stores/held';
import { conversationsStore } from '../stores/conversations';
import { sessionStore } from '../stores/session';
import { pairedDeviceStore } from '../stores/paired-device';
import { transport } from '../transport';
import { HELD_WHAT } from '../../shared/features/review';
import { openView } from './router';
import { selectHeld } from './held';

/** One thing waiting for the owner, with what a notification about it says and opens. */
export interface WaitingItem {
  key: string;
  /** The list it comes from: what was in a list when it first loaded is not news. */
  from: 'held' | 'requests' | 'handoffs';
  title: string;
  body: string;
  open: () => void;
}

/** localStorage: the owner turned desktop notifications on in this browser. */
export const DESKTOP_NOTIFY_KEY = 'perch.notify.desktop';
const FAVICON = './favicon.svg';
const FAVICON_WAITING = './favicon-waiting.svg';

/** What waits for the owner now, in the inbox's order: held items, requests, handoffs. */
export function waitingItems(): WaitingItem[] {
  const deciding = new Set(uiStore.getState().pendingDecisions.map((d) => d.key)); // decided, in the undo window
  const held = heldStore
    .getState()
    .items.filter((h) => !deciding.has(h.held_id))
    .map((h): WaitingItem => ({
      key: `h:${h.held_id}`,
      from: 'held',
      title: `${h.agent.name} wants to ${HELD_WHAT[h.kind]}`,
      body: h.text,
      open: () => {
        openView({ name: 'approvals' });
        selectHeld(h.held_id);
      },
    }));
  const requests = Object.values(requestsStore.getState().byId)
    .filter((r) => r.state === 'pending' && !deciding.has(r.request_id))
    .sort((a, b) => a.created_at - b.created_at)
    .map((r): WaitingItem => ({
      key: `r:${r.request_id}`,
      from: 'requests',
      title: `${r.requester.name} asks you to decide`,
      body: r.title,
      open: () => openView({ name: 'request', requestId: r.request_id }),
    }));
  const ownerId = sessionStore.getState().info?.owner.id;
  const device = pairedDeviceStore.getState();
  const handoffs =
    device.me?.scope === 'approvals'
      ? device.handoffs
          .filter((h) => h.to.id === ownerId)
          .map((h) => ({ conv_id: h.conv_id, title: h.title, agent: h.agent.name, note: h.note, at: h.at })) // an approvals-only phone reads them itself
      : Object.values(conversationsStore.getState().byId).flatMap((c) =>
          (c.handoffs ?? [])
            .filter((h) => h.to.id === ownerId)
            .map((h) => ({ conv_id: c.conv_id, title: c.title, agent: h.agent.name, note: h.note, at: h.at })),
        );
  return [
    ...held,
    ...requests,
    ...handoffs.map((h): WaitingItem => ({
      key: `o:${h.conv_id}:${h.agent}:${h.at}`,
      from: 'handoffs',
      title: `${h.agent} handed “${h.title}” to you`,
      body: h.note,
      open: () => openView({ name: 'conversation', convId: h.conv_id }),
    })),
  ];
}

/** The tab's title for this many waiting items. */
export function titleFor(count: number): string {
  return count > 0 ? `(${count}) Perch` : 'Perch';
}

// ---- desktop notifications (the browser's Notification API) ------------------------------------------------------

function storedOn(): boolean {
  try {
    return localStorage.getItem(DESKTOP_NOTIFY_KEY) === '1';
  } catch {
    return false;
  }
}

/** Whether this UI can offer desktop notifications: a browser with the API, signed in as the owner (not a phone). */
export function canNotifyDesktop(): boolean {
  return transport.kind === 'http' && typeof Notification === 'function' && !pairedDeviceStore.getState().me;
}

/**
 * Turns desktop notifications on (asking the browser for permission: this must run in a click) or off, and keeps the
 * choice in this browser. A refusal is said in words; nothing else changes then.
 */
export async function setDesktopNotifications(on: boolean): Promise<void> {
  if (on) {
    if (!canNotifyDesktop()) return;
    uiStore.setState({ desktopNotify: { on: false, message: null, working: true } });
    let permission: NotificationPermission = Notification.permission;
    try {
      if (permission === 'default') permission = await Notification.requestPermission();
    } catch {
      permission = Notification.permission;
    }
    if (permission !== 'granted') {
      uiStore.setState({
        desktopNotify: {
          on: false,
          message: 'The browser refused notifications for Perch: allow them in its site settings, then try again.',
          working: false,
        },
      });
      return;
    }
  }
  try {
    if (on) localStorage.setItem(DESKTOP_NOTIFY_KEY, '1');
    else localStorage.removeItem(DESKTOP_NOTIFY_KEY);
  } catch {
    /* storage refused (private mode): the choice lasts as long as this page */
  }
  uiStore.setState({ desktopNotify: { on, message: null, working: false } });
}

/** The owner's choice as it stands: on only while the browser still grants permission. */
function desktopNotifyOn(): boolean {
  return uiStore.getState().desktopNotify.on && canNotifyDesktop() && Notification.permission === 'granted';
}

function showNotification(item: WaitingItem): void {
  try {
    const n = new Notification(item.title, { body: item.body.slice(0, 200), tag: item.key, icon: './icon-192.png' });
    n.onclick = () => {
      window.focus();
      item.open();
      n.close();
    };
  } catch {
    /* the browser would not show it (e.g. a page that may only notify from a service worker) */
  }
}

// ---- the signals ------------------------------------------------------------------------------------------------

let started = false;

/**
 * Keeps the title, the favicon, the count and the notifications in step with the stores. An item counts as seen when
 * it arrived while the tab was focused, or was already there when its list first loaded: neither is notified.
 */
export function startWaitingSignals(): void {
  if (started || typeof document === 'undefined') return;
  started = true;
  uiStore.setState({ desktopNotify: { on: storedOn(), message: null, working: false } });
  const known = new Set<string>();
  const loadedNow = (): Record<WaitingItem['from'], boolean> => ({
    held: heldStore.getState().loaded,
    requests: requestsStore.getState().loaded,
    handoffs:
      pairedDeviceStore.getState().me?.scope === 'approvals'
        ? pairedDeviceStore.getState().handoffsLoaded
        : conversationsStore.getState().loaded,
  });
  let wasLoaded = { held: false, requests: false, handoffs: false };
  const update = () => {
    const items = waitingItems();
    const count = items.length;
    if (uiStore.getState().waitingCount !== count) uiStore.setState({ waitingCount: count });
    const title = titleFor(count);
    if (document.title !== title) document.title = title;
    const icon = document.querySelector<HTMLLinkElement>('link[rel="icon"]');
    const href = count > 0 ? FAVICON_WAITING : FAVICON;
    if (icon && icon.getAttribute('href') !== href) icon.setAttribute('href', href);

    const loaded = loadedNow();
    const focused = document.visibilityState === 'visible' && document.hasFocus();
    for (const item of items) {
      if (known.has(item.key)) continue;
      known.add(item.key);
      if (wasLoaded[item.from] && !focused && desktopNotifyOn()) showNotification(item);
    }
    wasLoaded = loaded;
  };
  for (const store of [requestsStore, heldStore, conversationsStore, sessionStore, pairedDeviceStore] as const)
    (store.subscribe as (fn: () => void) => void)(update);
  uiStore.subscribe((s, prev) => {
    if (s.pendingDecisions !== prev.pendingDecisions) update();
  });
  update();
}
