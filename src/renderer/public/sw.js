// Perch's service worker: shows the hub's Web Push notices on a paired phone and runs their buttons.
// A push is JSON (hub/phone/notice-drafts.ts): {type:'notice', tag, title, body, url, actions:[{action, title, token}]} shows a
// notification (tag = the request id, so a later one replaces it); {type:'clear', tag} closes that notification
// (the request was decided elsewhere). Approve / Reject POST the button's single-use token to /api/device/action
// without opening a window; a plain tap (and iOS, which has no notification actions) opens the request's page.
// Push content 'ids': the push carries only ids, a generic line and a read_token; the worker POSTs the token to
// /api/device/notice (the hub, through the front) for the real title, body and state. The buttons are shown only
// when those arrived and the request is still pending; when the hub cannot be reached the generic line is shown
// with no buttons (a tap opens the request's page, where the owner sees what it is before deciding).
/* global self */
'use strict';

const ACTION_PATH = '/api/device/action';
const NOTICE_PATH = '/api/device/notice';
/** How long to wait for the hub's details before showing the generic line. */
const NOTICE_FETCH_MS = 8000;
/** Longest title / body shown: a push (or the hub's answer) is data, never trusted to be small or well typed. */
const MAX_TITLE = 200;
const MAX_BODY = 1000;

self.addEventListener('install', () => {
  self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  keepAlive(event, self.clients.claim());
});

/** event.waitUntil, guarded: a synthetic event (a test dispatching one) throws on it. */
function keepAlive(event, promise) {
  try {
    event.waitUntil(promise);
  } catch {
    /* not a real ExtendableEvent: the promise runs anyway */
  }
  return promise;
}

function readPush(event) {
  try {
    return event.data ? event.data.json() : null;
  } catch {
    return null;
  }
}

/** v when it is text, cut to max characters; '' for anything else (an object, a number, null). */
function text(v, max) {
  return typeof v === 'string' ? v.slice(0, max) : '';
}

/** The buttons worth showing: objects with a text action and token (at most two; anything else is dropped). */
function cleanActions(list) {
  if (!Array.isArray(list)) return [];
  return list
    .filter((a) => a && typeof a === 'object' && typeof a.action === 'string' && a.action && typeof a.token === 'string')
    .slice(0, 2)
    .map((a) => ({ action: a.action.slice(0, 40), title: text(a.title, 40) || a.action.slice(0, 40), token: a.token }));
}

async function closeTag(tag) {
  const shown = await self.registration.getNotifications({ tag });
  for (const n of shown) n.close();
}

async function onPush(msg) {
  if (!msg || typeof msg !== 'object' || typeof msg.tag !== 'string' || !msg.tag) {
    return self.registration.showNotification('Perch', { body: 'Something needs you in Perch.', tag: 'perch' });
  }
  if (msg.type === 'clear') return closeTag(msg.tag);
  let actions = cleanActions(msg.actions);
  let title = text(msg.title, MAX_TITLE);
  let body = text(msg.body, MAX_BODY);
  if (typeof msg.read_token === 'string' && msg.read_token) {
    const details = await fetchNotice(msg.read_token);
    if (details) {
      title = text(details.title, MAX_TITLE);
      body = text(details.body, MAX_BODY);
      if (details.kind === 'request' && details.state !== 'pending') {
        // Decided (or expired, cancelled) before the push arrived: say so, offer no buttons.
        title = `Already ${text(details.state, 20)}: ${title}`;
        actions = [];
      }
    } else {
      actions = []; // never decide blind: without the details, a tap opens the request page
    }
  }
  return self.registration.showNotification(title || 'Perch', {
    body,
    tag: msg.tag,
    renotify: true,
    requireInteraction: actions.length > 0,
    icon: '/favicon.svg',
    data: { url: text(msg.url, 2000) || '/', tag: msg.tag, request_id: text(msg.request_id, 200) || null, actions },
    actions: actions.map((a) => ({ action: a.action, title: a.title })),
  });
}

/** The notice's real title, body and state from the hub (POST the read token), or null when it cannot be had. */
async function fetchNotice(token) {
  const controller = typeof AbortController === 'function' ? new AbortController() : null;
  const timer = controller ? setTimeout(() => controller.abort(), NOTICE_FETCH_MS) : null;
  try {
    const res = await fetch(NOTICE_PATH, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token }),
      credentials: 'omit',
      signal: controller ? controller.signal : undefined,
    });
    if (!res.ok) return null;
    const answer = await res.json().catch(() => null);
    const n = answer && answer.value && answer.value.notice;
    return n && typeof n.title === 'string' && typeof n.state === 'string' ? n : null;
  } catch {
    return null;
  } finally {
    if (timer) clearTimeout(timer);
  }
}

self.addEventListener('push', (event) => {
  keepAlive(event, onPush(readPush(event)));
});

/** Spends the button's token; answers a short confirmation (or what went wrong) as a notification. */
async function decide(data, chosen) {
  const button = (Array.isArray(data.actions) ? data.actions : []).find((a) => a && a.action === chosen);
  if (!button) return openUrl(data.url);
  let title;
  let body;
  try {
    const res = await fetch(ACTION_PATH, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: button.token }),
      credentials: 'omit',
    });
    const answer = await res.json().catch(() => null);
    if (res.ok) {
      title = chosen === 'approve' ? 'Approved' : 'Rejected';
      body = answer && answer.value && answer.value.request ? answer.value.request.title : '';
    } else {
      title = res.status === 409 ? 'Already decided' : res.status === 410 ? 'Too late: it expired' : 'Not decided';
      body = (answer && answer.error && answer.error.message) || `Perch answered ${res.status}.`;
    }
  } catch {
    title = 'Not decided';
    body = 'Perch could not be reached. Open it to decide.';
  }
  await self.registration.showNotification(title, {
    body,
    tag: `${data.tag}:done`,
    data: { url: data.url, tag: `${data.tag}:done`, actions: [] },
  });
}

/** This hub's own page for url; its home page for anything else (another site, not a URL): a push never opens another site. */
function ownHref(url) {
  const home = self.location.origin + '/';
  try {
    const target = new URL(typeof url === 'string' && url ? url : '/', self.location.origin);
    return target.origin === self.location.origin ? target.href : home;
  } catch {
    return home;
  }
}

async function openUrl(url) {
  const href = ownHref(url);
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  for (const w of windows) {
    if (new URL(w.url).origin === self.location.origin && 'focus' in w) {
      if ('navigate' in w) await w.navigate(href).catch(() => undefined);
      return w.focus();
    }
  }
  return self.clients.openWindow(href);
}

self.addEventListener('notificationclick', (event) => {
  const n = event.notification;
  const data = (n && n.data) || {};
  if (n) n.close();
  const work = event.action === 'approve' || event.action === 'reject' ? decide(data, event.action) : openUrl(data.url);
  keepAlive(event, work);
});
