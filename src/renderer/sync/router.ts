// Where the owner is: the screen and conversation shown (kept in the URL hash), the open thread, the
// message to scroll to, the side panel, the image viewer and the new-conversation dialog.
import { transport } from '../transport';
import { uiStore, type View } from '../stores/ui';
import { approvalsOnly } from '../stores/paired-device';
import { ensureTimeline, loadProgress, loadThread } from './loaders';
import { markReadSoon } from './unread';

function hashOf(v: View): string {
  switch (v.name) {
    case 'conversation':
      return `#/c/${encodeURIComponent(v.convId)}`;
    case 'request':
      return `#/r/${encodeURIComponent(v.requestId)}`;
    case 'home':
      return '#/';
    case 'agents':
      if (!v.agent) return '#/agents';
      return `#/agents/${encodeURIComponent(v.agent)}${v.tab ? `/${v.tab}` : ''}`;
    case 'settings':
      return v.tab ? `#/settings/${v.tab}` : '#/settings';
    case 'ledger':
      if (v.call) return `#/ledger/call/${encodeURIComponent(v.call)}`;
      return v.agent ? `#/ledger/agent/${encodeURIComponent(v.agent)}` : '#/ledger';
    default:
      return `#/${v.name}`;
  }
}

const PAGES = ['approvals', 'fleet', 'ledger', 'agents', 'conversations', 'phone', 'settings'] as const;

/**
 * The view a URL hash names ("#/approvals", "#/c/<conv_id>", "#/r/<request_id>", "#/ledger/call/<call_id>",
 * "#/ledger/agent/<name>", "#/agents/<name>/ledger"; "" and "#/": home); null: none.
 */
export function viewOfHash(h: string): View | null {
  const m = /^#\/c\/(.+)$/.exec(h);
  const r = /^#\/r\/(.+)$/.exec(h);
  const a = /^#\/agents\/(.+)$/.exec(h);
  const call = /^#\/ledger\/call\/(.+)$/.exec(h);
  const ledgerOf = /^#\/ledger\/agent\/(.+)$/.exec(h);
  const agentTab = /^#\/agents\/([^/]+)\/ledger$/.exec(h);
  try {
    if (call) return { name: 'ledger', call: decodeURIComponent(call[1]!) };
    if (ledgerOf) return { name: 'ledger', agent: decodeURIComponent(ledgerOf[1]!) };
    if (agentTab) return { name: 'agents', agent: decodeURIComponent(agentTab[1]!), tab: 'ledger' };
    if (m) return { name: 'conversation', convId: decodeURIComponent(m[1]!) };
    if (r) return { name: 'request', requestId: decodeURIComponent(r[1]!) };
    if (a) return { name: 'agents', agent: decodeURIComponent(a[1]!) };
  } catch {
    return null; // a bad percent-encoding names nothing
  }
  if (h === '' || h === '#' || h === '#/') return { name: 'home' };
  const tab = /^#\/settings\/(containers|data|wake)$/.exec(h);
  if (tab) return { name: 'settings', tab: tab[1] as 'containers' | 'data' | 'wake' };
  const page = PAGES.find((p) => h === `#/${p}`);
  return page ? { name: page } : null;
}

let following = false;

/** The view named by the URL hash (after sign-in or a reload); from then on the URL drives the view. */
export function restoreViewFromHash(): void {
  // A notification opens /r/<request_id> (served as the UI): the request page; the address becomes /#/r/<id>.
  const path = /^\/r\/([^/]+)$/.exec(location.pathname);
  if (transport.kind === 'http' && path) {
    history.replaceState(null, '', `/#/r/${path[1]!}`);
  }
  const v = viewOfHash(location.hash);
  if (v && v.name !== 'home') openView(v);
  if (!following && typeof window !== 'undefined') {
    // A URL typed into the open tab, Back and Forward, a navigation link: show what the URL says.
    following = true;
    window.addEventListener('hashchange', () => {
      const next = viewOfHash(location.hash);
      if (next) openView(next);
    });
  }
}

/** The phone layout (one column, the bottom bar): the window is at most 700 px wide. */
export const NARROW_QUERY = '(max-width: 700px)';
export function isNarrow(): boolean {
  return typeof matchMedia === 'function' && matchMedia(NARROW_QUERY).matches;
}

/** The address of a view, for links (open in a new tab works) and the history. */
export function hrefOf(view: View): string {
  return hashOf(view);
}

/**
 * Shows a view. The URL follows: a new history entry (so Back returns), or with replace the current one (a redirect).
 * When the URL changed first (hashchange), it already says this view and nothing is added. A device of scope approvals
 * gets the Approvals inbox for any view but a request's.
 */
export function openView(view: View, opts: { replace?: boolean } = {}): void {
  if (approvalsOnly() && view.name !== 'approvals' && view.name !== 'request') {
    // A device of scope approvals has the Approvals inbox (and a request's page) only: any other address (typed into
    // the address bar, an old link, Back) lands on the inbox and replaces that address, so no page it cannot load shows.
    view = { name: 'approvals' };
    opts = { replace: true };
  }
  const prev = uiStore.getState().view;
  const sameConv = prev.name === 'conversation' && view.name === 'conversation' && prev.convId === view.convId;
  uiStore.setState(sameConv ? { view } : { view, threadRoot: null, replyTo: null });
  const h = hashOf(view);
  if (location.hash !== h && !(h === '#/' && location.hash === '')) {
    if (opts.replace) history.replaceState(null, '', h);
    else history.pushState(null, '', h);
  }
  transport.setFocus(view.name === 'conversation' ? view.convId : null);
  if (view.name === 'conversation') {
    void ensureTimeline(view.convId).then(() => markReadSoon(view.convId));
    void loadProgress(view.convId).catch(() => {});
  }
}

/** Opens a conversation and scrolls to one of its messages once it is loaded. */
export function openMessage(convId: string, msgId: string): void {
  openView({ name: 'conversation', convId });
  focusMessage(msgId);
}

/** Opens a thread beside the conversation and reads it. */
export async function openThread(convId: string, rootId: string): Promise<void> {
  uiStore.setState({ threadRoot: rootId });
  await loadThread(convId, rootId);
}

export function closeThread(): void {
  if (uiStore.getState().threadRoot) uiStore.setState({ threadRoot: null });
}

/** Scrolls the open conversation to a message once it is loaded (null: done). */
export function focusMessage(msgId: string | null): void {
  uiStore.setState({ focusMsg: msgId });
}

/** Shows or hides the live activity panel (showing it closes an open thread). */
export function toggleActivity(): void {
  uiStore.setState((s) => ({ showActivity: !s.showActivity, threadRoot: null }));
}

export function hideActivity(): void {
  uiStore.setState({ showActivity: false });
}

export function openImage(fileId: string, name: string): void {
  uiStore.setState({ viewer: { fileId, name } });
}

export function closeImage(): void {
  uiStore.setState({ viewer: null });
}

export function showNewConversation(show: boolean): void {
  uiStore.setState({ newConversation: show });
}
