// Where the owner is: the screen and conversation shown (kept in the URL hash), the open thread, the
// message to scroll to, the side panel, the image viewer and the new-conversation dialog.
import { transport } from '../transport';
import { uiStore, type View } from '../stores/ui';
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
    default:
      return `#/${v.name}`;
  }
}

/** The view named by the URL hash (after sign-in or a reload). */
export function restoreViewFromHash(): void {
  // A notification opens /r/<request_id> (served as the UI): the request page; the address becomes /#/r/<id>.
  const path = /^\/r\/([^/]+)$/.exec(location.pathname);
  if (transport.kind === 'http' && path) {
    history.replaceState(null, '', `/#/r/${path[1]!}`);
  }
  const h = location.hash;
  const m = /^#\/c\/(.+)$/.exec(h);
  const r = /^#\/r\/(.+)$/.exec(h);
  if (m) openView({ name: 'conversation', convId: decodeURIComponent(m[1]!) });
  else if (r) openView({ name: 'request', requestId: decodeURIComponent(r[1]!) });
  else if (h === '#/approvals' || h === '#/fleet' || h === '#/agents' || h === '#/conversations' || h === '#/phone') openView({ name: h.slice(2) as 'approvals' | 'fleet' | 'agents' | 'conversations' | 'phone' });
}

/** The phone layout (one column, the bottom bar): the window is at most 700 px wide. */
export const NARROW_QUERY = '(max-width: 700px)';
export function isNarrow(): boolean {
  return typeof matchMedia === 'function' && matchMedia(NARROW_QUERY).matches;
}

export function openView(view: View): void {
  const prev = uiStore.getState().view;
  const sameConv = prev.name === 'conversation' && view.name === 'conversation' && prev.convId === view.convId;
  uiStore.setState(sameConv ? { view } : { view, threadRoot: null, replyTo: null });
  if (location.hash !== hashOf(view)) history.replaceState(null, '', hashOf(view));
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
