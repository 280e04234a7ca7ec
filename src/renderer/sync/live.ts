// Sign-in, the live stream and reconnects: boot loads the lists and subscribes; each pushed item is
// applied to the stores (events through the ordering module, in seq order per conversation).
import { isStorageStatus, type EventType } from '../../shared/types';
import { api, deviceMode, OwnerError, setUnauthorizedHandler, transport, wasDeviceRevoked } from '../transport';
import type { EventView, LiveItem, ProgressView } from '../model';
import { sessionStore, ownerId } from '../stores/session';
import { currentConvId, uiStore } from '../stores/ui';
import { conversationsStore } from '../stores/conversations';
import { timelineStore } from '../stores/timeline';
import { PROGRESS_KEEP, progressStore } from '../stores/progress';
import { errorText, toast } from './common';
import {
  loadActivity,
  loadAgents,
  loadConversations,
  loadProgress,
  loadRequests,
  loadStorage,
  refreshAgentsSoon,
  refreshConversationSoon,
  refreshReads,
} from './loaders';
import { addProgress } from './reduce';
import { reconcileRequestFromEvent } from './requests';
import { openView, restoreViewFromHash } from './router';
import { applyMessageChange, messageHidden, ordering } from './timeline';
import { countLiveUnread, markReadSoon, touchConversation } from './unread';
import { loadHeld, refreshHeldSoon } from './held';
import { applyWakeLive, loadWakeRuns } from './wake';
import { applyFleetLive, loadControls, onBudgetPaused, onKeyPlaceRefused, onControlEvent } from './control';
import { approvalsOnly, pairedDeviceStore } from '../stores/paired-device';
import { deviceGone, forgetThisDevice, loadDevice, loadHandoffs, openPairPageIfAsked, refreshHandoffsSoon } from './paired-device';
import { isNarrow } from './router';
import { refreshRulesSoon } from './rules';

let unsubscribe: (() => void) | null = null;
let connections = 0;
let navigating = false;

export async function boot(): Promise<void> {
  setUnauthorizedHandler(() => {
    if (wasDeviceRevoked()) deviceGone();
    else sessionStore.setState({ status: 'signed-out' });
    unsubscribe?.();
    unsubscribe = null;
  });
  if (transport.kind === 'http' && openPairPageIfAsked()) return; // the /pair page (a phone being paired)
  const refused = await transport.signIn();
  if (refused) {
    sessionStore.setState({ status: 'signed-out', error: refused });
    return;
  }
  // A paired phone: no owner session, its device credential is the bearer; its scope decides what loads.
  if (transport.kind === 'http' && deviceMode()) {
    if (!(await loadDevice())) return;
  } else if (pairedDeviceStore.getState().me) {
    pairedDeviceStore.setState({ me: null });
  }
  let info;
  try {
    info = await api('hub.info', {});
  } catch (err) {
    if (err instanceof OwnerError && err.code === 'unauthorized') return;
    sessionStore.setState({ status: 'error', error: errorText(err) });
    return;
  }
  sessionStore.setState({ status: 'ready', info, error: null });
  connections = 0;
  unsubscribe?.();
  unsubscribe = transport.subscribe(onLive, (link) => {
    sessionStore.setState({ link });
    if (link === 'unauthorized') {
      if (wasDeviceRevoked()) deviceGone();
      else sessionStore.setState({ status: 'signed-out' });
    }
  });
  if (!navigating) {
    navigating = true;
    transport.onNavigate((t) =>
      openView(
        t.to === 'conversation'
          ? { name: 'conversation', convId: t.conv_id }
          : t.to === 'request'
            ? { name: 'request', requestId: t.request_id }
            : { name: 'approvals' },
      ),
    );
  }
  if (approvalsOnly()) {
    await Promise.all([loadRequests(), loadHandoffs()]).catch((err) => toast(errorText(err), 'error'));
  } else {
    await Promise.all([
      loadConversations(),
      loadAgents(),
      loadRequests(),
      loadProgress(),
      loadActivity(),
      loadStorage(),
      loadHeld(),
      loadWakeRuns(),
      loadControls(),
    ]).catch((err) => toast(errorText(err), 'error'));
  }
  restoreViewFromHash();
  // On a phone (or a device of scope approvals) the Approvals inbox comes first.
  const v = uiStore.getState().view;
  if (approvalsOnly() ? v.name !== 'approvals' && v.name !== 'request' : v.name === 'home' && isNarrow())
    openView({ name: 'approvals' }, { replace: true });
}

/** "Forget this phone" (device mode): the live stream closes, the credential is forgotten, the pairing steps show. */
export async function forgetThisPhone(): Promise<void> {
  unsubscribe?.();
  unsubscribe = null;
  await forgetThisDevice();
}

/** Signs the owner out: the hub ends the session, this browser forgets it, the sign-in screen shows. */
export async function signOut(): Promise<void> {
  unsubscribe?.();
  unsubscribe = null;
  await transport.signOut();
  sessionStore.setState({ status: 'signed-out', error: null, info: null, link: 'unauthorized' });
}

function onLive(item: LiveItem): void {
  switch (item.kind) {
    case 'event':
      if (approvalsOnly()) {
        // A device of scope approvals: only the inbox (requests, and the handoffs it lists from handoffs.list).
        reconcileRequestFromEvent(item.value.event);
        if (item.value.event.type.startsWith('handoff.')) refreshHandoffsSoon();
      } else applyEvent(item.value.event, item.value.woken);
      return;
    case 'progress':
      applyProgress(item.value);
      return;
    case 'hub':
      if (isStorageStatus(item.value.storage)) sessionStore.setState({ storage: item.value.storage });
      if (item.value.connected === true && ++connections > 1) void resync();
      applyWakeLive(item.value); // wake runs (sync/wake.ts)
      if (item.value.budget_paused) onBudgetPaused(item.value.budget_paused); // owner control (sync/control.ts)
      if (item.value.key_place_refused) onKeyPlaceRefused(item.value.key_place_refused); // a key used from a place it may not (sync/control.ts)
      if (item.value.fleet) applyFleetLive(item.value.fleet, reloadAfterOutsideWrite); // agents, pause, caps, usage (sync/control.ts)
      if (Array.isArray(item.value.reads)) for (const convId of item.value.reads) refreshReads(convId); // read receipts moved
      if (item.value.message_hidden) messageHidden(item.value.message_hidden.msg_id, item.value.message_hidden.hidden); // hidden or shown in another window
      return;
    default: {
      const never: never = item;
      void never;
    }
  }
}

/** After the stream was down: reload lists and fill every loaded timeline from its last seq. */
async function resync(): Promise<void> {
  if (approvalsOnly()) {
    await Promise.all([loadRequests(), loadHandoffs()]).catch(() => {});
    return;
  }
  await Promise.all([loadConversations(), loadRequests(), loadAgents(), loadActivity(), loadHeld(), loadWakeRuns(), loadControls()]).catch(
    () => {},
  );
  for (const convId of Object.keys(timelineStore.getState().convs)) void ordering.catchUp(convId);
}

/** Another process (the perch CLI) wrote to the hub's database: what it may have changed besides the fleet. */
function reloadAfterOutsideWrite(): void {
  if (approvalsOnly()) return;
  void Promise.all([loadConversations(), loadRequests(), loadHeld(), loadWakeRuns()]).catch(() => {});
}

/** Events that change a conversation's list row beyond its last seq (members, task, floor, handoffs). */
const CONV_META_EVENTS: ReadonlySet<EventType> = new Set<EventType>([
  'conversation.created',
  'member.added',
  'handoff.created',
  'handoff.returned',
  'task.updated',
  'floor.granted',
  'floor.released',
  'conversation.paused',
  'conversation.resumed', // the loop brake (hub/control/brakes.ts): the paused banner
  'conversation.archived',
  'conversation.unarchived', // archived conversations (hub/talk/archive.ts): the sidebar's Archived list
]);

function applyEvent(ev: EventView, woken: string[]): void {
  const me = ownerId();
  // The conversation list.
  const conv = conversationsStore.getState().byId[ev.conv_id];
  if (!conv || CONV_META_EVENTS.has(ev.type)) refreshConversationSoon(ev.conv_id);
  const open = currentConvId() === ev.conv_id && !document.hidden;
  const counts = ev.type === 'message.created' && ev.actor?.id !== me && !open;
  if (counts) countLiveUnread(ev.conv_id, ev.seq);
  if (conv) {
    touchConversation(ev, counts);
    if (open && ev.type === 'message.created') markReadSoon(ev.conv_id);
  }
  // Messages anywhere (idempotent: each carries the message's current state).
  applyMessageChange(ev);
  // Requests.
  reconcileRequestFromEvent(ev);
  // The loaded timeline, in seq order.
  ordering.offer(ev.conv_id, ev);
  if (ev.type === 'config.updated') refreshAgentsSoon(200);
  if (ev.type.startsWith('held.')) refreshHeldSoon(); // review mode (sync/held.ts)
  if (ev.type === 'request.decided' && ev.request?.outcome?.comment?.startsWith('standing rule ')) refreshRulesSoon(); // its count
  onControlEvent(ev.type); // owner control: agent.paused / agent.resumed (sync/control.ts)
  if (ev.actor?.kind === 'agent' || woken.some((u) => u !== me)) refreshAgentsSoon();
}

function applyProgress(p: ProgressView): void {
  progressStore.setState((s) => addProgress(s, p, PROGRESS_KEEP));
}
