// Push notices to the owner's paired phones (Web Push) and the optional ntfy channel. Listens on hub.bus: a new
// pending request for the owner, a handoff to the owner, or a card addressed to the owner makes one notice per
// device with a push subscription; a request decided, expired or cancelled anywhere (a handoff handed back, a
// card answered) makes a 'clear' with the same tag, which closes the notification on the phone. What a notice says is
// drafted in notice-drafts.ts; this is the send queue. Sending is injected (app.ts gives the real senders,
// src/main/push/*), as hub/wake-runs/wake-runs.ts takes its launcher; nothing here speaks HTTP. Pushes go out after the
// commit, one job at a time, never blocking a write. The device door's push calls (subscribe, a button's token, a
// read token) are device-push.ts.
import type { Hub } from '../core/hub';
import type { FeatureServices } from '../features/services';
import type { OutsideMemo } from '../core/outside-writes';
import type { ActionSecret } from './action-tokens';
import { DEVICE_ACTION_PATH } from '../../../shared/features/devices';
import {
  anyPushSubscription,
  deletePushSubscription,
  notePushResult,
  pushSubscriptionOf,
  pushTargets,
  type PushSubscriptionRow,
} from '../../store/tables/phone/push';
import { ntfyChannel, publicUrl, vapidKeys, type NtfyChannel } from './devices';
import { mintActionToken, ntfyDevice } from './action-tokens';
import { eventTypeOf } from '../core/bus';
import { isKnownPushService, pushTopic, type NtfySend, type VapidDetails, type WebPushSend } from './push-senders';
import { draftFor, mayNotify, waitingDraft, payloadFor, publicBase, type Draft, type Job, type PushPayload } from './notice-drafts';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type NotifyHub = Hub<FeatureServices & { pushTargets: OutsideMemo<boolean>; actionSecret: ActionSecret; notify: Notifier | null }>;

export interface NotifySenders {
  webPush: WebPushSend;
  ntfy: NtfySend;
  log?: (line: string) => void;
}

/** How long the push service keeps an undelivered notice (seconds). */
const NOTICE_TTL_SECS = 24 * 3600;
const QUEUE_MAX = 1000;

/** The install's VAPID key pair (hub/phone/devices.ts makes it once) and the subject push services may contact. */
function vapidDetails(hub: NotifyHub): VapidDetails {
  const url = publicUrl(hub);
  return { ...vapidKeys(hub), subject: url && url.startsWith('https://') ? url : 'mailto:perch@localhost.invalid' };
}

/** Push notices of one hub: drafted from its events once started, queued, and handed to the senders (built by the composition root). */
export class Notifier {
  private started = false;
  readonly loopbackPush: boolean;
  private queue: Job[] = [];
  private running = false;
  private closed = false;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private hub: NotifyHub,
    readonly senders: NotifySenders,
    opts: NotifyOptions = {},
  ) {
    this.loopbackPush = opts.loopbackPushServices === true;
  }

  /** Starts drafting notices from the hub's events (app.ts, once the hub listens); stops when the hub closes. */
  start(): void {
    if (this.started) return;
    this.started = true;
    const hub = this.hub;
    const unsubscribe = hub.bus.subscribe((item) => {
      if (item.kind === 'hub' && item.value.harness_waiting && this.hasTargets())
        return this.enqueue(waitingDraft(hub, item.value.harness_waiting)); // a harness session waits
      if (item.kind !== 'event' || !mayNotify(eventTypeOf(item)) || !this.hasTargets()) return;
      let job: Job | undefined;
      try {
        job = draftFor(hub, item.value.event);
      } catch (err) {
        this.log(`push notice not made: ${err instanceof Error ? err.message : String(err)}`);
      }
      if (job) this.enqueue(job);
    });
    hub.onClose(() => {
      unsubscribe();
      this.close();
    });
  }

  /** Whether anything would be sent at all (read for every event: a cheap check before the event is read). */
  hasTargets(): boolean {
    const hub = this.hub;
    return hub.services.pushTargets.get('', () => anyPushSubscription(hub.db) || ntfyChannel(hub) !== null)!;
  }

  enqueue(job: Job): void {
    if (this.closed) return;
    if (this.queue.length >= QUEUE_MAX) {
      this.log(`push queue full: dropped a ${'draft' in job ? 'notice' : 'clear'}`);
      return;
    }
    this.queue.push(job);
    if (!this.running) {
      this.running = true;
      setImmediate(() => void this.drain());
    }
  }

  private async drain(): Promise<void> {
    try {
      while (!this.closed && this.queue.length) {
        const job = this.queue.shift()!;
        try {
          await this.run(job);
        } catch (err) {
          this.log(`push failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    } finally {
      this.running = false;
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /** Resolves once every queued push was sent (tests; and close). */
  idle(): Promise<void> {
    if (!this.running && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async run(job: Job): Promise<void> {
    const hub = this.hub;
    const targets = pushTargets(hub.db).filter((t) => (t.scope === 'approvals' || t.scope === 'full') && this.knownService(t));
    const sends: Array<Promise<unknown>> = [];
    if (targets.length) {
      const vapid = vapidDetails(hub);
      for (const t of targets) {
        const payload: PushPayload = 'draft' in job ? payloadFor(hub, job.draft, t.device_id) : { type: 'clear', tag: job.clear };
        sends.push(this.sendOne(t, payload, vapid));
      }
    }
    const ntfy = ntfyChannel(hub);
    if (ntfy && 'draft' in job) sends.push(this.sendNtfy(ntfy, job.draft));
    await Promise.all(sends);
  }

  /** A subscription saved before endpoints were checked may name any host: it is dropped, never sent to. */
  knownService(t: PushSubscriptionRow): boolean {
    if (isKnownPushService(t.endpoint, this.loopbackPush)) return true;
    this.hub.write(() => deletePushSubscription(this.hub.db, t.device_id, t.endpoint));
    this.log(`push subscription of device ${t.device_id} names no known push service: dropped`);
    return false;
  }

  async sendOne(t: PushSubscriptionRow, payload: PushPayload, vapid: VapidDetails): Promise<'sent' | 'gone' | 'failed'> {
    const r = await this.senders.webPush(t, JSON.stringify(payload), { vapid, ttlSecs: NOTICE_TTL_SECS, topic: pushTopic(payload.tag) });
    if (this.closed) return r.outcome;
    const hub = this.hub;
    if (r.outcome === 'gone') {
      hub.write(() => deletePushSubscription(hub.db, t.device_id, t.endpoint));
      this.log(`push subscription of device ${t.device_id} is gone (${r.status}): dropped`);
    } else {
      hub.write(() => notePushResult(hub.db, t.device_id, t.endpoint, r.outcome === 'sent', hub.now()));
      if (r.outcome === 'failed') this.log(`push to device ${t.device_id} failed: ${r.detail}`);
    }
    return r.outcome;
  }

  /**
   * One ntfy publish. Opaque: a fixed line, no buttons and no tokens (a button would make the owner decide blind, and
   * its bearer token would sit on the ntfy server), and a tap opens Perch itself. Otherwise the summary and, for a
   * request of kind approve, Approve / Reject with tokens bound to this ntfy setting (its channel id).
   */
  async sendNtfy(ntfy: NtfyChannel, draft: Draft): Promise<'sent' | 'failed'> {
    const hub = this.hub;
    const base = publicBase(hub);
    const actions =
      !ntfy.opaque && draft.buttons && draft.request_id
        ? (['approve', 'reject'] as const).map((d) => ({
            label: d === 'approve' ? 'Approve' : 'Reject',
            url: base + DEVICE_ACTION_PATH,
            token: mintActionToken(hub, draft.request_id!, d, ntfyDevice(ntfy.id), draft.buttons!.expires_at),
          }))
        : [];
    const r = await this.senders.ntfy({
      server: ntfy.server,
      topic: ntfy.topic,
      title: ntfy.opaque ? 'Perch' : draft.title,
      message: ntfy.opaque ? 'Perch needs you: open it to see what.' : draft.body,
      tags: ntfy.opaque ? ['perch'] : ['perch', draft.kind],
      click: base + (ntfy.opaque ? '/' : draft.path),
      actions,
    });
    if (r.outcome === 'failed') this.log(`ntfy publish failed: ${r.detail}`);
    return r.outcome;
  }

  log(line: string): void {
    (this.senders.log ?? ((l: string) => process.stderr.write(`perch: ${l}\n`)))(line);
  }

  close(): void {
    this.closed = true;
    this.queue = [];
  }
}

export interface NotifyOptions {
  /** Tests only: push subscriptions may also name a loopback push service (hub/phone/push-senders.ts isKnownPushService). */
  loopbackPushServices?: boolean;
}

/** Whether this hub takes loopback push services (NotifyOptions; off without a notifier). */
export function loopbackPush(hub: NotifyHub): boolean {
  return hub.services.notify?.loopbackPush === true;
}

export interface TestPushResult {
  web_push: 'sent' | 'no_subscription' | 'gone' | 'failed';
  ntfy: 'sent' | 'off' | 'failed';
  detail: string | null;
}

/** devices.test_push: one test notice to the device (and to ntfy when it is set), answered when sent. */
export async function sendTestPush(hub: NotifyHub, deviceId: string): Promise<TestPushResult> {
  const n = hub.services.notify;
  if (!n) return { web_push: 'failed', ntfy: 'off', detail: 'Pushes are not running in this hub.' };
  const draft: Draft = {
    kind: 'request',
    tag: `test:${deviceId}`,
    title: 'Perch: test notification',
    body: 'Pushes reach this phone.',
    path: '/',
  };
  const sub = pushSubscriptionOf(hub.db, deviceId);
  let web_push: TestPushResult['web_push'] = 'no_subscription';
  if (sub && n.knownService(sub)) {
    const payload = payloadFor(hub, draft, deviceId);
    if (payload.type === 'notice') payload.kind = 'test';
    web_push = await n.sendOne(sub, payload, vapidDetails(hub));
  }
  const ntfy = ntfyChannel(hub);
  const ntfyOutcome: TestPushResult['ntfy'] = ntfy ? await n.sendNtfy(ntfy, draft) : 'off';
  const detail =
    web_push === 'no_subscription'
      ? 'This device has not turned on notifications (on the phone: Turn on notifications).'
      : web_push === 'gone'
        ? 'The push service says this subscription is gone: it was dropped; turn notifications on again on the phone.'
        : web_push === 'failed'
          ? 'The push service did not take the push; see the hub log.'
          : null;
  return { web_push, ntfy: ntfyOutcome, detail };
}
