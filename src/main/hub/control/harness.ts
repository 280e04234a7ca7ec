// An agent's harness session (Claude Code, Codex) as its hooks report it (`perch hook …` → POST /hook, the agent's
// key; src/main/mcp/hook-door.ts): the last status per agent, in memory since the hub started like presence, shown in
// the Fleet view through the agents list (AgentSummary.harness) and, for the events a person cares about (waiting
// for you, turn ended, session started / ended), a row in the progress feed of the agent's inbox conversation.
// A session that waits for its user also goes out as the live item harness_waiting (the app's OS notification,
// phone pushes: hub/phone/notify.ts): only on the change into "waiting", at most once per session per
// WAITING_NOTICE_GAP_MS (and per agent per WAITING_NOTICE_AGENT_GAP_MS), its words shown as the agent's. A paused
// agent's reports change nothing: no status, no feed row, no notice (the answer still says it is paused).
// pre-tool-use is the kill switch's check: it answers from the in-memory pause (hub/control/control.ts) and writes
// nothing, so a harness can run it before every tool call.
import type { Hub } from '../core/hub';
import type { IdentityServices } from '../identity/services';
import type { Presence } from './presence';
import type { Controls } from './control';
import { insertProgress } from '../../store/tables/talk/progress';
import { tx } from '../../store/db/db';
import { visibleDeep } from '../../../shared/text/text';
import { progressView } from '../core/views';
import { notePresence } from './presence';
import { RateLimiter } from '../core/rate-limit';
import { isPaused } from './control';
import { userByName } from '../../store/tables/agents/users';
import { keyEnvVar } from '../../../shared/agents/snippets';
import { serverName } from '../../../shared/agents/harness-config';
import {
  isPauseExempt,
  PROMPT_HARNESS_LABEL,
  REPORT_FIELD_MAX,
  harnessLine,
  harnessStateOf,
  harnessToolLine,
  HARNESS_LABEL,
  HARNESSES,
  type HarnessAnswer,
  type HarnessName,
  type HarnessReport,
  type HarnessStatus,
  type OwnServer,
} from '../../../shared/agents/harness';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type HarnessHub = Hub<IdentityServices & { harness: HarnessSessions; presence: Presence; controls: Controls }>;

/** Feed rows and notifications per agent: at most this many a second (a burst of FEED_BURST), the status always follows. */
const FEED_PER_SECOND = 1;
const FEED_BURST = 10;

/** A session waiting again within this long of its last "waiting" notice is not notified again (ms). */
export const WAITING_NOTICE_GAP_MS = 5 * 60_000;
/** Nor is any session of an agent within this long of the agent's last one (a hook naming a new session each time). */
export const WAITING_NOTICE_AGENT_GAP_MS = 60_000;
const NOTICES_KEPT = 10_000;

/** What the hub keeps of harness sessions: per agent its last status, how fast its feed rows may come, its last notices. */
export class HarnessSessions {
  readonly byAgent = new Map<string, HarnessStatus>();
  /** The agents whose owner was told that their harness's hooks could not authenticate (once per agent since the hub started). */
  readonly keyProblemTold = new Set<string>();
  /** "agent\0mode": the owner was told that the agent's harness runs in a permission mode that never asks Perch. */
  readonly modeTold = new Set<string>();
  readonly feedLimiter = new RateLimiter(FEED_PER_SECOND, FEED_BURST, 10_000);
  /** When a "waiting" notice last went out, per agent and session ("agent\0session") and per agent ("agent"). */
  readonly noticedAt = new Map<string, number>();

  /** Whether a session's wait may be notified now (and notes it when so). */
  mayNotify(agentId: string, sessionId: string | null, now: number): boolean {
    const session = `${agentId}\u0000${sessionId ?? ''}`;
    const last = this.noticedAt.get(session);
    const agentLast = this.noticedAt.get(agentId);
    if (last !== undefined && now - last < WAITING_NOTICE_GAP_MS) return false;
    if (agentLast !== undefined && now - agentLast < WAITING_NOTICE_AGENT_GAP_MS) return false;
    if (this.noticedAt.size > NOTICES_KEPT) this.noticedAt.clear();
    this.noticedAt.set(session, now);
    this.noticedAt.set(agentId, now);
    return true;
  }
}

function field(v: string | null | undefined, max: number): string | null {
  return typeof v === 'string' && v ? v.slice(0, max) : null;
}

/** The block message for a paused agent's harness: the pause reason and the instruction to wait. */
export function pausedBlockMessage(p: ReturnType<typeof isPaused>): string {
  const why =
    p.by === 'budget'
      ? `a daily cap was reached (${p.detail ?? 'budget'})`
      : p.reason
        ? `the owner paused this agent: ${p.reason}`
        : 'the owner paused this agent';
  return `Paused in Perch (${why}). Do not run tools; stop and wait for the owner to resume this agent (Perch's get_updates with wait_secs returns agent.resumed).`;
}

/** The agent's own Perch server as its harnesses name it: perch-NAME (`perch connect`) and this hub's MCP URLs (Cursor's). */
export function ownServerOf(hub: HarnessHub, agentId: string): OwnServer {
  const port = new URL(hub.doors.baseUrl).port;
  const mcpUrls = ['127.0.0.1', 'localhost', '[::1]'].map((host) => `http://${host}${port ? `:${port}` : ''}/mcp`);
  if (hub.doors.containerMcpUrl) mcpUrls.push(hub.doors.containerMcpUrl);
  return { name: serverName(hub.user(agentId).name), mcpUrls };
}

/** Whether a paused agent's tool call still runs: get_updates or whoami of its own Perch server, no other's. */
export function pauseExempt(hub: HarnessHub, agentId: string, tool: string | null | undefined): boolean {
  return isPauseExempt(tool, ownServerOf(hub, agentId));
}

/** One hook event of an agent's harness: its status follows, and the answer says whether the agent is paused. */
export function noteHarness(hub: HarnessHub, agentId: string, r: HarnessReport): HarnessAnswer {
  const pause = isPaused(hub, agentId);
  const answer: HarnessAnswer = pause.paused ? { ok: true, paused: true, message: pausedBlockMessage(pause) } : { ok: true, paused: false };
  const state = harnessStateOf(r.event);
  const m = hub.services.harness.byAgent;
  const cur = m.get(agentId);
  notePresence(hub, agentId, '', r.event === 'pre-tool-use' && !pause.paused);
  // A paused agent's session reports nothing to the owner: no status, no feed row, no notice (it is told it is paused).
  if (pause.paused && r.event !== 'pre-tool-use') return answer;
  // pre-tool-use only moves the status when it changes (a tool call ends a wait); its feed row is the tool call.
  if (r.event === 'pre-tool-use') {
    if (cur?.state !== 'working' || cur.session_id !== field(r.session_id, REPORT_FIELD_MAX.session_id)) {
      m.set(agentId, {
        state,
        harness: r.harness,
        session_id: field(r.session_id, REPORT_FIELD_MAX.session_id),
        cwd: field(r.cwd, REPORT_FIELD_MAX.cwd),
        message: '',
        at: hub.now(),
      });
      hub.fleetChanged(); // the Fleet view (hub/control/fleet-live.ts)
    }
    const tool = field(r.tool_name, REPORT_FIELD_MAX.tool_name);
    const blocked = pause.paused && !pauseExempt(hub, agentId, tool);
    if ((tool || blocked) && hub.services.harness.feedLimiter.take(agentId) === 0) {
      feedRow(
        hub,
        agentId,
        m.get(agentId)!,
        r,
        blocked ? 'error' : 'tool_call',
        harnessToolLine(r.harness, tool, field(r.tool_detail, REPORT_FIELD_MAX.tool_detail), blocked),
      );
    }
    return answer;
  }
  const status: HarnessStatus = {
    state,
    harness: r.harness,
    session_id: field(r.session_id, REPORT_FIELD_MAX.session_id),
    cwd: field(r.cwd, REPORT_FIELD_MAX.cwd),
    message: r.event === 'notification' ? (field(r.message, REPORT_FIELD_MAX.message) ?? '') : '',
    at: hub.now(),
  };
  m.set(agentId, status);
  hub.fleetChanged(); // the Fleet view (hub/control/fleet-live.ts)
  // The same report again (a hook repeating itself) changes nothing the owner reads: no feed row, no notice.
  const same =
    cur !== undefined &&
    cur.state === state &&
    cur.session_id === status.session_id &&
    cur.message === status.message &&
    cur.cwd === status.cwd;
  if (same) return answer;
  if (hub.services.harness.feedLimiter.take(agentId) > 0) return answer; // a hook firing too fast: the status alone
  feedRow(hub, agentId, status, r, 'step', harnessLine(status));
  const intoWaiting = state === 'waiting' && (cur?.state !== 'waiting' || cur.session_id !== status.session_id);
  if (intoWaiting && hub.services.harness.mayNotify(agentId, status.session_id, status.at)) {
    const u = hub.user(agentId);
    hub.bus.publish({
      kind: 'hub',
      value: visibleDeep({
        harness_waiting: {
          agent: { id: u.id, name: u.name },
          harness: status.harness,
          message: status.message,
          session_id: status.session_id,
          cwd: status.cwd,
          at: status.at,
        },
      }),
    });
  }
  return answer;
}

/** One line of the harness in the progress feed (filed in the agent's inbox conversation, where owner and agent are members; shown under the agent). */
function feedRow(
  hub: HarnessHub,
  agentId: string,
  s: HarnessStatus,
  r: HarnessReport,
  kind: 'step' | 'tool_call' | 'error',
  text: string,
): void {
  const convId = hub.user(agentId).inbox_id;
  if (!convId) return;
  const data = {
    harness: {
      event: r.event,
      name: s.harness,
      session_id: s.session_id,
      cwd: s.cwd,
      ...(r.notification_type ? { notification_type: field(r.notification_type, REPORT_FIELD_MAX.notification_type) } : {}),
      ...(r.source ? { source: field(r.source, REPORT_FIELD_MAX.source) } : {}),
      ...(r.reason ? { reason: field(r.reason, REPORT_FIELD_MAX.reason) } : {}),
      ...(r.tool_name ? { tool_name: field(r.tool_name, REPORT_FIELD_MAX.tool_name) } : {}),
      ...(kind === 'error' ? { blocked: true } : {}),
    },
  };
  const row = { user_id: agentId, conv_id: convId, kind, text, data: JSON.stringify(data), msg_id: null, ts: s.at };
  try {
    const id = tx(hub.db, () => insertProgress(hub.db, row));
    hub.bus.publish({ kind: 'progress', value: visibleDeep(progressView(hub, { id, ...row })) });
  } catch {
    /* the disk is full: the status stands in memory, the feed row is lost */
  }
}

/**
 * A harness's hook that could not authenticate as agent `name` (it names the agent: `perch hook … --agent NAME`): no
 * key was sent, or one Perch does not take. The owner is told once per agent since the hub started, with the fix, as
 * a row in the agent's feed (its inbox conversation, where the harness's status rows go). An unknown name is ignored.
 */
export function noteHookKeyProblem(hub: HarnessHub, name: string, harness: string | null, problem: 'missing' | 'refused'): void {
  const u = userByName(hub.db, name);
  if (!u || u.kind !== 'agent' || u.revoked_at || !u.inbox_id) return;
  const told = hub.services.harness.keyProblemTold;
  if (told.has(u.id)) return;
  told.add(u.id);
  const label = harness ? PROMPT_HARNESS_LABEL[harness] : undefined;
  const text =
    problem === 'missing'
      ? `${label ?? 'A harness'}'s hooks for ${u.name} reach Perch without a key, so nothing they report or ask arrives: set ${keyEnvVar(u.name)} in the shell that starts ${label ?? 'it'}.`
      : `${label ?? 'A harness'}'s hooks for ${u.name} send a key Perch does not take (wrong, rotated or revoked), so nothing they report or ask arrives: put ${u.name}'s current key in ${keyEnvVar(u.name)} (perch agent rotate-key ${u.name} makes a new one).`;
  const row = {
    user_id: u.id,
    conv_id: u.inbox_id,
    kind: 'step',
    text,
    data: JSON.stringify({ harness: { event: 'hook-key', name: harness, problem } }),
    msg_id: null,
    ts: hub.now(),
  };
  try {
    const id = tx(hub.db, () => insertProgress(hub.db, row));
    hub.bus.publish({ kind: 'progress', value: visibleDeep(progressView(hub, { id, ...row })) });
  } catch {
    told.delete(u.id); // the disk is full: told next time
  }
}

/**
 * At start: a prompt an agent's harness filed before the hub stopped now waits in the harness's own dialog (the hook's
 * wait ended with the last hub), so until a hook of the session says otherwise its session waits for its user.
 */
export function noteWaitingInDialog(
  hub: HarnessHub,
  agentId: string,
  p: { harness: unknown; session_id: unknown; cwd: unknown; title: string },
): void {
  if (!HARNESSES.includes(p.harness as HarnessName)) return;
  const m = hub.services.harness.byAgent;
  if (m.has(agentId)) return; // a hook reported since the start: it knows better
  m.set(agentId, {
    state: 'waiting',
    harness: p.harness as HarnessName,
    session_id: typeof p.session_id === 'string' ? field(p.session_id, REPORT_FIELD_MAX.session_id) : null,
    cwd: typeof p.cwd === 'string' ? field(p.cwd, REPORT_FIELD_MAX.cwd) : null,
    message: `its own dialog asks: ${p.title}`.slice(0, REPORT_FIELD_MAX.message),
    at: hub.now(),
  });
  hub.fleetChanged();
}

/**
 * Claude Code's permission modes that never ask through its PermissionRequest hook (checked with the real 2.1.332):
 * auto (a server-side check decides; where it cannot run, claude -p refuses and an interactive session asks in its own
 * dialog), dontAsk (refuses whatever would ask) and bypassPermissions (asks nothing). manual (reported as "default")
 * and acceptEdits ask through the hook; plan runs no tools. Words for the owner's feed.
 */
const MODES_NOT_ASKING: Record<string, string> = {
  auto: 'auto mode, which does not ask through its PermissionRequest hook: its questions do not come to Perch',
  dontAsk: 'dontAsk mode, which refuses whatever would ask: nothing comes to Perch',
  bypassPermissions: 'bypassPermissions mode, which asks nothing: every tool call runs without you',
};

/** A status hook named the session's permission mode: one that never asks Perch is told to the owner once per agent and mode. */
export function notePermissionMode(hub: HarnessHub, agentId: string, harness: HarnessName, mode: unknown): void {
  if (harness !== 'claude-code' || typeof mode !== 'string' || !Object.hasOwn(MODES_NOT_ASKING, mode)) return;
  const told = hub.services.harness.modeTold;
  const key = `${agentId}\u0000${mode}`;
  const u = hub.user(agentId);
  if (told.has(key) || !u.inbox_id) return;
  told.add(key);
  const text = `${HARNESS_LABEL[harness]} runs ${u.name}'s session in ${MODES_NOT_ASKING[mode]}. To decide its prompts in Perch, start it with --permission-mode manual (or acceptEdits), or set permissions.defaultMode in its settings.`;
  const row = {
    user_id: agentId,
    conv_id: u.inbox_id,
    kind: 'error',
    text,
    data: JSON.stringify({ harness: { event: 'permission-mode', name: harness, permission_mode: mode } }),
    msg_id: null,
    ts: hub.now(),
  };
  try {
    const id = tx(hub.db, () => insertProgress(hub.db, row));
    hub.bus.publish({ kind: 'progress', value: visibleDeep(progressView(hub, { id, ...row })) });
  } catch {
    told.delete(key); // the disk is full: told next time
  }
}

export function harnessOf(hub: HarnessHub, agentId: string): HarnessStatus | null {
  const s = hub.services.harness.byAgent.get(agentId);
  return s ? { ...s } : null;
}
