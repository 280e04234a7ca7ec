// progress: what an agent is doing, for the owner's live feed. Not part of history; nobody is woken.
import type { Hub } from '../../core/hub';
import type { TalkServices } from '../../talk/services';
import { HubError } from '../../../../shared/errors';
import { LIMITS } from '../../../../shared/limits';
import type { ProgressKind, ProgressView } from '../../../../shared/types';
import { visibleDeep } from '../../../../shared/text/text';
import { insertProgress, progressActivity, pruneProgress, recentProgress, type ProgressRow } from '../../../store/tables/talk/progress';
import { requireMember, requireMessage } from '../../talk/access';
import { tx } from '../../../store/db/db';
import { RateLimiter } from '../../core/rate-limit';
import { progressView } from '../../core/views';
import { agentRefs } from '../../identity/identities';
import type { Activity } from '../../../../shared/api/owner-api';
import { recordUsage, usageIn } from '../../control/control';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type ProgressHub = Hub<TalkServices & { progressLimiter: RateLimiter }>;

const KEEP_PER_AGENT = 2000;

/** The limiter of progress reports (the hub's one RateLimiter, rate-limit.ts), as the composition root makes it. */
export function progressLimiter(): RateLimiter {
  return new RateLimiter(LIMITS.progressPerSecond, LIMITS.progressPerSecond);
}

/** 0 when allowed, else the milliseconds until the agent may report again. */
function wait(hub: ProgressHub, userId: string): number {
  return hub.services.progressLimiter.take(userId, hub.now());
}

export function reportProgress(
  hub: ProgressHub,
  userId: string,
  input: { conv_id: string; kind: ProgressKind; text: string; data?: unknown; msg_id?: string },
): { id: number; at: number } {
  const access = requireMember(hub, userId, input.conv_id);
  if (input.msg_id) requireMessage(hub, access, input.msg_id);
  if (input.text.length > LIMITS.maxTextChars) {
    throw new HubError('too_large', `text is over ${LIMITS.maxTextChars} characters.`, 'Keep progress text short; put detail in data.');
  }
  const data = input.data === undefined ? null : JSON.stringify(input.data);
  if (data && Buffer.byteLength(data) > LIMITS.maxProgressDataBytes) {
    throw new HubError(
      'too_large',
      `data is ${Buffer.byteLength(data)} bytes as JSON; the limit is ${LIMITS.maxProgressDataBytes}.`,
      'Send less data, or a summary of it.',
    );
  }
  usageIn(input.data); // owner control: a malformed data.usage is refused before anything is saved (hub/control/control.ts)
  const waitMs = wait(hub, userId);
  if (waitMs > 0) {
    throw new HubError(
      'rate_limited',
      `At most ${LIMITS.progressPerSecond} progress reports a second.`,
      'Report less often, or batch steps into one report.',
      { retry_after_ms: Math.ceil(waitMs) },
    );
  }
  const at = hub.now();
  const row: Omit<ProgressRow, 'id'> = {
    user_id: userId,
    conv_id: input.conv_id,
    kind: input.kind,
    text: input.text,
    data,
    msg_id: input.msg_id ?? null,
    ts: at,
  };
  const id = tx(hub.db, () => {
    const id = insertProgress(hub.db, row);
    if (id % 200 === 0) pruneProgress(hub.db, userId, KEEP_PER_AGENT);
    return id;
  });
  hub.bus.publish({ kind: 'progress', value: visibleDeep(progressView(hub, { id, ...row })) }); // the owner reads it (shared/text/text.ts)
  recordUsage(hub, userId, input.data); // owner control: reported usage is summed per day; a cost cap reached pauses (hub/control/control.ts)
  return { id, at };
}

export function listProgress(
  hub: ProgressHub,
  opts: { conv_id?: string; agent_id?: string; before_id?: number; limit?: number },
): ProgressView[] {
  const limit = Math.min(opts.limit ?? 100, 500);
  return recentProgress(hub.db, { convId: opts.conv_id, userId: opts.agent_id, beforeId: opts.before_id, limit }).map((r) =>
    progressView(hub, r),
  );
}

/** Per agent, progress reports per minute over the last minutes (for sparklines), its last report and whether it waits. */
export function agentActivity(hub: ProgressHub, minutes: number): Activity {
  const now = hub.now();
  const since = now - minutes * 60_000;
  const rows = progressActivity(hub.db, since);
  const firstMinute = Math.floor(since / 60_000);
  const agents = agentRefs(hub).map((ag) => {
    const buckets = new Array<number>(minutes + 1).fill(0);
    const errors = new Array<number>(minutes + 1).fill(0);
    for (const r of rows) {
      if (r.user_id !== ag.id) continue;
      const i = r.minute - firstMinute;
      if (i < 0 || i > minutes) continue;
      buckets[i] += r.n;
      if (r.kind === 'error') errors[i] += r.n;
    }
    const last = listProgress(hub, { agent_id: ag.id, limit: 1 })[0];
    return {
      agent: { id: ag.id, name: ag.name },
      per_minute: buckets,
      errors_per_minute: errors,
      last: last ?? null,
      waiting: hub.bus.isWaiting(ag.id),
      revoked: ag.revoked,
    };
  });
  return { minutes, until: now, agents };
}
