// The owner API contract: every action the owner (the one human) can take, with its input schema.
// Served over loopback HTTP (POST /api/owner/<action>) and Electron IPC; the UI sees only this.
import { z } from 'zod';
import { LIMITS } from '../limits';
import { MAX_PLACES, type ContainersState } from '../agents/places';
import { BRAKES, type AgentBrakes } from '../agents/brakes';
import { INTENTS, PROGRESS_KINDS, TASK_STATES } from '../types';
import type { ConversationView, MessageView, ProgressView, StorageStatus, TaskUpdateResult, UserRef } from '../types';
import type { EventView } from './event-log';
import type { AgentSummary } from '../agents/agents';
import type { OwnerRequestView } from '../features/requests';
import type { FileLink, SentFile } from '../features/files';
import type { HeldItem, HeldSendResult } from '../features/review';
import { WAKE_LIMIT_RANGE, type WakeLimits, type WakeRunView, type WakeState } from '../agents/wake';
import type { AgentControlView, Caps, PauseInfo, UsageDay } from '../agents/control';
import { type ReadReceipt } from '../agents/agent-sessions';
import { KEY_SCOPES, type AgentKeyView } from '../agents/scoped-keys';
import type { PermissionRuleView } from '../features/permission-prompts';
import { MAX_RETENTION_DAYS, type RetentionPlan, type RetentionRule, type RetentionStatus } from '../features/retention';
import {
  DEVICE_SCOPES,
  MAX_DEVICE_NAME_CHARS,
  PUSH_CONTENT,
  type DeviceAuditEntry,
  type DeviceScope,
  type DeviceView,
  type PairingStart,
  type PairingView,
  type PhoneSettings,
} from '../features/devices';

const id = () => z.string().min(1).max(256);
/** A key's places (shared/agents/places.ts); the hub checks each one (a bad one: invalid_argument, nothing changed). */
const places = () => z.array(z.string().min(1).max(60)).min(1).max(MAX_PLACES);
const text = () => z.string().min(1).max(LIMITS.maxTextChars);

/**
 * Which paired devices (phones through the HTTPS front) may call an action; every action says it, so a new one is
 * classified when it is written (test/serve/phone-laptop-only.test.ts lists them all).
 * - approvals: any paired device (scope approvals or full): the approvals inbox and what it needs.
 * - full: devices of scope full only.
 * - laptop: no device, whatever its scope: anything that starts processes or sets what will start them, mints or
 *   shows credentials or secrets (agent keys, webhook secrets, run logs, file links, the ntfy topic), and device
 *   management and phone settings. The owner does these on the laptop.
 * An action a device may call can still keep some of its input fields for the laptop (`laptopFields`): a device that
 * sends any of them (whatever its value) is refused like a laptop-only action, and nothing changes.
 */
export const DEVICE_REACH = ['approvals', 'full', 'laptop'] as const;
export type DeviceReach = (typeof DEVICE_REACH)[number];

type ActionDefs = Record<
  string,
  { readonly device: DeviceReach; readonly laptopFields?: readonly string[]; readonly description: string; readonly input: () => z.ZodType }
>;
type Actions<T extends ActionDefs> = {
  readonly [K in keyof T]: {
    readonly device: T[K]['device'];
    readonly laptopFields: readonly string[];
    readonly description: T[K]['description'];
    readonly input: ReturnType<T[K]['input']>;
  };
};

/**
 * The actions with each input schema made on first use (the action's first call): building all of them
 * at module load was a noticeable part of a hub's cold start. Same keys, same order, same schemas.
 */
function lazyInputs<T extends ActionDefs>(defs: T): Actions<T> {
  const actions: Record<string, { device: DeviceReach; laptopFields: readonly string[]; description: string; input: z.ZodType }> = {};
  for (const [name, def] of Object.entries(defs)) {
    let made: z.ZodType | undefined;
    actions[name] = {
      device: def.device,
      laptopFields: def.laptopFields ?? [],
      description: def.description,
      get input() {
        return (made ??= def.input());
      },
    };
  }
  return actions as Actions<T>;
}

export const OWNER_ACTIONS = lazyInputs({
  'hub.info': {
    device: 'approvals',
    description: 'Who the owner is, the MCP URL, version, counts, and the durability of the database connection (normal or full).',
    input: () => z.strictObject({}),
  },
  'hub.storage': {
    device: 'approvals',
    description:
      'Whether the hub can save: state ok, or full (the disk is full or failing: writes are refused with storage_full, reads go on) since when, and a message. It returns to ok by itself with the next write that works; the live stream sends { kind: "hub", value: { storage } } on each change.',
    input: () => z.strictObject({}),
  },
  'conversations.list': {
    device: 'full',
    description: 'Every conversation (direct, group, task) with members, unread counts, handoffs, floor.',
    input: () => z.strictObject({}),
  },
  'conversations.get': { device: 'full', description: 'One conversation.', input: () => z.strictObject({ conv_id: id() }) },
  'conversations.history': {
    device: 'full',
    description: "A page of a conversation's event log (latest by default; before_seq/after_seq to page).",
    input: () =>
      z.strictObject({
        conv_id: id(),
        before_seq: z.number().int().min(0).optional(),
        after_seq: z.number().int().min(0).optional(),
        limit: z.number().int().min(1).max(LIMITS.historyMaxLimit).optional(),
      }),
  },
  'conversations.thread': {
    device: 'full',
    description: 'A thread: root and replies.',
    input: () => z.strictObject({ conv_id: id(), thread_id: id(), after_seq: z.number().int().min(0).optional() }),
  },
  'conversations.search': {
    device: 'full',
    description: 'Search messages (case-insensitive) in one or every conversation.',
    input: () =>
      z.strictObject({ query: text(), conv_id: id().optional(), limit: z.number().int().min(1).max(LIMITS.searchMaxLimit).optional() }),
  },
  'conversations.open_direct': {
    device: 'full',
    description: "Open (or get) the owner's direct conversation with an agent.",
    input: () => z.strictObject({ user: id() }),
  },
  'conversations.create_group': {
    device: 'full',
    description: 'Create a group.',
    input: () => z.strictObject({ title: z.string().min(1).max(LIMITS.maxTitleChars), members: z.array(id()).max(LIMITS.maxListItems) }),
  },
  'conversations.create_task': {
    device: 'full',
    description: 'Create a task channel, optionally with an assignee (woken).',
    input: () =>
      z.strictObject({
        title: z.string().min(1).max(LIMITS.maxTitleChars),
        members: z.array(id()).max(LIMITS.maxListItems),
        assignee: id().optional(),
      }),
  },
  'conversations.add_member': {
    device: 'full',
    description: 'Add a member to a group or task.',
    input: () => z.strictObject({ conv_id: id(), user: id(), history: z.number().int().min(0).optional() }),
  },
  'conversations.mark_read': {
    device: 'full',
    description: 'Mark a conversation read up to a seq.',
    input: () => z.strictObject({ conv_id: id(), seq: z.number().int().min(0) }),
  },
  'messages.send': {
    device: 'full',
    description:
      "Send a message as the owner (joins the conversation if needed). to wakes the named members; without to, a message in your direct conversation with an agent names that agent (it is woken). The result's to is whom the message names.",
    input: () =>
      z.strictObject({
        conv_id: id(),
        text: text(),
        to: z.array(id()).max(LIMITS.maxListItems).optional(),
        reply_to: id().optional(),
        thread_id: id().optional(),
        intent: z.enum(INTENTS).optional(),
      }),
  },
  'messages.edit': {
    device: 'full',
    description: 'Edit a message the owner sent.',
    input: () => z.strictObject({ msg_id: id(), text: text() }),
  },
  'messages.recall': { device: 'full', description: 'Recall a message the owner sent.', input: () => z.strictObject({ msg_id: id() }) },
  'messages.react': {
    device: 'full',
    description: 'Add (on=true) or remove a reaction.',
    input: () => z.strictObject({ conv_id: id(), msg_id: id(), key: z.string().min(1).max(64), on: z.boolean() }),
  },
  'messages.pin': {
    device: 'full',
    description: 'Pin (on=true) or unpin a message.',
    input: () => z.strictObject({ conv_id: id(), msg_id: id(), on: z.boolean() }),
  },
  'messages.pins': { device: 'full', description: 'Pinned messages of a conversation.', input: () => z.strictObject({ conv_id: id() }) },
  'messages.hide': {
    device: 'full',
    description:
      'Hide (on=true) any message from the owner\'s own view, an agent\'s too, or show it again (on=false). It stays in the conversation for everyone else; the owner\'s reads (history, threads, pins) carry hidden: true, and the UI shows a "Hidden message" line with Show instead of its content. When it changed, the live stream sends { kind: "hub", value: { message_hidden: { msg_id, conv_id, hidden } } } to every open window (agents see nothing).',
    input: () => z.strictObject({ msg_id: id(), on: z.boolean() }),
  },
  'notes.send': {
    device: 'full',
    description: 'A private note to one agent (only it sees it; it is woken).',
    input: () => z.strictObject({ agent: id(), text: text(), conv_id: id().optional() }),
  },
  'requests.list': {
    device: 'approvals',
    description: 'Requests across all conversations (the Approvals inbox), pending first.',
    input: () => z.strictObject({ state: z.string().optional() }),
  },
  'requests.decide': {
    device: 'approvals',
    description: 'Decide a request: approve / reject (any kind), answer (kind answer), choose (kind choose). comment is optional.',
    input: () =>
      z.strictObject({
        request_id: id(),
        decision: z.enum(['approve', 'reject', 'answer', 'choose']),
        answer: z.string().max(LIMITS.maxTextChars).optional(),
        choice: z.string().max(LIMITS.maxTitleChars).optional(),
        comment: z.string().max(LIMITS.maxTextChars).optional(),
      }),
  },
  'cards.answer': {
    device: 'approvals',
    description: 'Answer a card: a button (value = option id) or a form (value = field values).',
    input: () => z.strictObject({ msg_id: id(), block_id: id(), value: z.unknown() }),
  },
  'handoffs.list': { device: 'approvals', description: 'Handoffs waiting for the owner.', input: () => z.strictObject({}) },
  'handoffs.hand_back': {
    device: 'approvals',
    description: 'Hand a conversation back to the agent with a note (it is woken).',
    input: () => z.strictObject({ conv_id: id(), agent: id().optional(), note: z.string().min(1).max(LIMITS.maxTextChars) }),
  },
  'tasks.set': {
    device: 'full',
    description: 'Move a task to a state and/or reassign it, with a note.',
    input: () =>
      z.strictObject({
        conv_id: id(),
        state: z.enum(TASK_STATES).optional(),
        assignee: id().optional(),
        note: z.string().max(LIMITS.maxTextChars).optional(),
      }),
  },
  'floor.set': {
    device: 'full',
    description: 'Give the floor to an agent (ttl_secs) or release it.',
    input: () =>
      z.strictObject({
        conv_id: id(),
        agent: id().optional(),
        ttl_secs: z.number().int().min(1).max(LIMITS.floorMaxTtlSecs).optional(),
        release: z.boolean().optional(),
      }),
  },
  'agents.list': {
    device: 'full',
    description: 'Agents with their config, key hint and whether they are waiting.',
    input: () => z.strictObject({}),
  },
  'agents.add': {
    device: 'laptop',
    description: 'Add an agent; its key is shown once, with connection snippets.',
    input: () =>
      z.strictObject({
        name: z.string().min(1).max(40),
        description: z.string().max(2000).optional(),
        instructions: z.string().max(LIMITS.maxTextChars).optional(),
        from: places().optional(),
      }),
  },
  // mcp_servers: a server's command and args are a process the agent's harness may start, so only the laptop sets them.
  'agents.update_config': {
    device: 'full',
    laptopFields: ['mcp_servers'],
    description: "Change an agent's description and role config; its version rises and the agent gets config.updated.",
    input: () =>
      z.strictObject({
        agent: id(),
        description: z.string().max(2000).optional(),
        name: z.string().max(200).optional(),
        instructions: z.string().max(LIMITS.maxTextChars).optional(),
        skills: z
          .array(z.object({ name: z.string().min(1), description: z.string().optional(), url: z.string().optional() }))
          .max(100)
          .optional(),
        mcp_servers: z
          .array(
            z.object({
              name: z.string().min(1),
              url: z.string().optional(),
              command: z.string().optional(),
              args: z.array(z.string()).optional(),
              description: z.string().optional(),
            }),
          )
          .max(100)
          .optional(),
        apis: z
          .array(
            z.object({
              name: z.string().min(1),
              base_url: z.string().optional(),
              description: z.string().optional(),
              docs_url: z.string().optional(),
            }),
          )
          .max(100)
          .optional(),
      }),
  },
  'agents.rotate_key': {
    device: 'laptop',
    description: 'Give an agent a new key (the old one stops working at once, and calls waiting under it end with 401); shown once.',
    input: () => z.strictObject({ agent: id() }),
  },
  'agents.revoke': {
    device: 'full',
    description: "Revoke an agent's key: it and the agent's scoped keys stop working at once, and calls waiting under them end with 401.",
    input: () => z.strictObject({ agent: id() }),
  },
  // owner control: pause, resume, daily caps and usage (hub/control/control.ts)
  'agents.pause': {
    device: 'full',
    description:
      'Pause an agent: its writing tools are refused with `paused` (reads still work) and its waiting get_updates returns agent.paused (with the reason) at once. Survives restarts.',
    input: () => z.strictObject({ agent: id(), reason: z.string().max(LIMITS.maxTitleChars).optional() }),
  },
  'agents.resume': {
    device: 'full',
    description: 'Resume a paused agent (paused by the owner or by a cap): it gets agent.resumed and is woken.',
    input: () => z.strictObject({ agent: id() }),
  },
  'agents.pause_all': {
    device: 'full',
    description: 'Pause every agent at once (the kill switch), with an optional reason.',
    input: () => z.strictObject({ reason: z.string().max(LIMITS.maxTitleChars).optional() }),
  },
  'agents.resume_all': { device: 'full', description: 'Resume every paused agent.', input: () => z.strictObject({}) },
  'agents.set_caps': {
    device: 'full',
    description:
      "Set an agent's daily caps (the owner's local day): cost_usd (reported in progress data.usage), messages, tool_calls; null lifts a cap, off: true lifts all. Reaching one pauses the agent with reason budget.",
    input: () =>
      z.strictObject({
        agent: id(),
        cost_usd: z.number().min(0).max(1e9).nullable().optional(),
        messages: z.number().int().min(0).max(1e9).nullable().optional(),
        tool_calls: z.number().int().min(0).max(1e9).nullable().optional(),
        off: z.boolean().optional(),
      }),
  },
  'agents.controls': {
    device: 'full',
    description: "Per agent: pause (who, why, since), daily caps, today's usage and the last 14 days of usage (oldest first).",
    input: () => z.strictObject({}),
  },
  // Scoped keys (hub/identity/agent-keys.ts).
  'agents.add_key': {
    device: 'laptop',
    description:
      'Issue an extra key for an agent with scopes (read, write, files, state, ask; default all) and an optional expiry (ms since epoch); the key is shown once.',
    input: () =>
      z.strictObject({
        agent: id(),
        name: z.string().min(1).max(60),
        scopes: z.array(z.enum(KEY_SCOPES)).min(1).max(KEY_SCOPES.length).optional(),
        expires_at: z.number().int().min(0).optional(),
        from: places().optional(),
      }),
  },
  'agents.set_from': {
    device: 'laptop',
    description:
      "Set where one key of an agent may connect from: local (this computer's loopback, the default), containers (the container bridge listener), tailnet (through the HTTPS front) and IPv4 ranges (CIDR). Without key_id: the agent's own key, which its wake runs' keys inherit. A bad place changes nothing; a range covering every address (0.0.0.0/0) is kept, with a warning in the answer.",
    input: () => z.strictObject({ agent: id(), key_id: id().optional(), from: places() }),
  },
  'agents.list_keys': {
    device: 'full',
    description: "An agent's extra keys: name, scopes, expiry, whether revoked or expired (never the key).",
    input: () => z.strictObject({ agent: id() }),
  },
  'agents.revoke_key': {
    device: 'full',
    description: 'Revoke one extra key (the agent and its other keys keep working); calls waiting under it end with 401.',
    input: () => z.strictObject({ key_id: id() }),
  },
  'progress.list': {
    device: 'full',
    description: 'Recent progress reports, newest first (all, one conversation, or one agent).',
    input: () =>
      z.strictObject({
        conv_id: id().optional(),
        agent_id: id().optional(),
        before_id: z.number().int().optional(),
        limit: z.number().int().min(1).max(500).optional(),
      }),
  },
  'progress.activity': {
    device: 'full',
    description: 'Per agent, progress counts per minute over the last minutes (for sparklines), and last seen.',
    input: () =>
      z.strictObject({
        minutes: z
          .number()
          .int()
          .min(1)
          .max(24 * 60)
          .optional(),
      }),
  },
  'files.url': {
    device: 'laptop',
    description: 'A short-lived link to a file or its thumbnail.',
    input: () => z.strictObject({ file_id: id(), variant: z.enum(['original', 'thumb']).optional() }),
  },
  'files.send': {
    device: 'full',
    description: `Send a file or image as the owner (joins the conversation if needed), processed as agents' send_file: data is its content in base64 (at most ${LIMITS.maxFileBytes / 1048576} MiB decoded; over HTTP this action's JSON body may be up to ${LIMITS.maxFileBodyBytes} bytes), its type is read from the bytes, images are re-encoded without EXIF/GPS metadata and get a thumbnail. caption is text shown with it; to wakes the named members.`,
    input: () =>
      z.strictObject({
        conv_id: id(),
        name: z.string().min(1).max(256),
        // No max here: the decoded size is checked in hub/features/files, the body size at the door (as send_file).
        data: z.string().min(1),
        mime: z.string().min(1).max(256).optional(),
        caption: z.string().max(LIMITS.maxTextChars).optional(),
        to: z.array(id()).max(LIMITS.maxListItems).optional(),
        reply_to: id().optional(),
        thread_id: id().optional(),
      }),
  },
  // review mode (hub/features/review/review.ts)
  'agents.set_review': {
    device: 'full',
    description:
      'Turn review mode on or off for an agent. While on, every write of it that others would read is held (send_message, send_card, send_file, edit_message, request_human, create_task, create_group, handoff, update_task with a note: the call answers held: true and a held_id) until the owner sends or discards each, and a named reaction is refused; items already held stay held when it is turned off.',
    input: () => z.strictObject({ agent: id(), on: z.boolean() }),
  },
  'held.list': {
    device: 'full',
    description:
      'Writes held by review mode, waiting for the owner (oldest first). kind: message, card, file, edit (edit_of: the message and the text others read now), request (request: kind, options, assignees, context), task or group (conv_id null; members, assignee), task_update (state_to, assignee) or handoff (handoff_to). text is the words under review.',
    input: () => z.strictObject({}),
  },
  'held.send': {
    device: 'full',
    description:
      'Do a held item as its agent: post it, make the edit, request, task channel, group, task update or handoff. A message it posts or edits gets provenance reviewed: true (and owner_edited: true when text changes it). text replaces the words under review (message text, card text, file caption, new text of an edit, request or task or group title, note). The agent gets held.sent (with the text as posted, and data.result for tools other than the sends) and is woken.',
    input: () => z.strictObject({ held_id: id(), text: z.string().max(LIMITS.maxTextChars).optional() }),
  },
  'held.discard': {
    device: 'full',
    description: "Drop a held item (a held file's bytes are deleted); nothing is posted. The agent gets held.discarded and is woken.",
    input: () => z.strictObject({ held_id: id() }),
  },
  // Wake runs (shared/agents/wake.ts): Perch starts an agent that is not listening when an event wakes it.
  'wake.get': {
    device: 'laptop',
    description:
      "An agent's wake action (command or webhook), whether it is on (or why Perch switched it off), its running run and runs in the last hour.",
    input: () => z.strictObject({ agent: id() }),
  },
  'wake.set': {
    device: 'laptop',
    description:
      "Set an agent's wake action: argv (a command, no shell) or shell (a shell string) with cwd, env, timeout_secs (default 900), max_runs_per_hour (default 6) and memory_ceiling_mb (optional, at least 64: a run whose process tree holds more for a few seconds is stopped, status over_memory); or webhook (a loopback URL, POSTed with an HMAC-SHA256 signature). off: true removes it. Setting it switches it back on.",
    input: () =>
      z.strictObject({
        agent: id(),
        off: z.boolean().optional(),
        argv: z.array(z.string().max(LIMITS.maxTextChars)).max(LIMITS.maxListItems).optional(),
        shell: z.string().max(LIMITS.maxTextChars).optional(),
        cwd: z.string().max(4096).optional(),
        env: z.record(z.string().max(128), z.string().max(LIMITS.maxTextChars)).optional(),
        timeout_secs: z.number().int().optional(),
        max_runs_per_hour: z.number().int().optional(),
        memory_ceiling_mb: z.number().optional(),
        webhook: z.string().max(2048).optional(),
      }),
  },
  'wake.runs': {
    device: 'full',
    description: 'Wake runs, newest first (all agents, or one): status, why it was woken, timings, exit, usage.',
    input: () => z.strictObject({ agent: id().optional(), limit: z.number().int().min(1).max(500).optional() }),
  },
  'wake.stop': {
    device: 'full',
    description:
      "Stop an agent's running wake run (SIGTERM, then SIGKILL of its process group) and any retry planned; a run waiting for a slot is cancelled (cancelled: true).",
    input: () => z.strictObject({ agent: id() }),
  },
  'wake.start_now': {
    device: 'laptop',
    description:
      "Start an agent's queued wake run now, over the limit of runs at once this one time. Refused (conflict) when it has no run waiting.",
    input: () => z.strictObject({ agent: id() }),
  },
  'wake.limits.get': {
    device: 'laptop',
    description:
      "The limits across the fleet: at_once (runs alive at the same time; at_once_default when it is the machine's default), min_free_mb (no new run starts while the machine's available memory is below it), the machine (cores, memory), the running runs (agent, since, live memory and CPU) and the queued ones (agent, since, position; the owner's own wakes first), and blocked (why queued runs do not start, when it is the memory floor).",
    input: () => z.strictObject({}),
  },
  'wake.limits.set': {
    device: 'laptop',
    description: `Set the limits across the fleet: at_once, ${WAKE_LIMIT_RANGE.atOnce.min} to ${WAKE_LIMIT_RANGE.atOnce.max} (null: the machine's default), and/or min_free_mb (0: no floor). Wakes beyond the limit wait in the queue; raising it starts them at once. A bad value changes nothing.`,
    input: () => z.strictObject({ at_once: z.number().nullable().optional(), min_free_mb: z.number().optional() }),
  },
  'wake.log': {
    device: 'laptop',
    description: 'A wake run and the newest part of its captured output (max_bytes, default 8192).',
    input: () =>
      z.strictObject({
        run_id: id(),
        max_bytes: z
          .number()
          .int()
          .min(1)
          .max(256 * 1024)
          .optional(),
      }),
  },
  // brakes (hub/control/brakes.ts)
  'conversations.resume': {
    device: 'full',
    description:
      'Resume a conversation the loop brake paused (as writing in it does): its agents may send again and are woken with conversation.resumed. resumed is false when it was not paused.',
    input: () => z.strictObject({ conv_id: id() }),
  },
  // archived conversations (hub/talk/archive.ts) and retention (hub/features/retention/retention.ts)
  'conversations.archive': {
    device: 'full',
    description:
      "Archive a finished conversation: it leaves the sidebar (listed under Archived) and the agents' list_conversations, and is read-only for agents (their writes get the code archived); the owner still reads and searches it. changed is false when it already was.",
    input: () => z.strictObject({ conv_id: id() }),
  },
  'conversations.unarchive': {
    device: 'full',
    description:
      'Bring an archived conversation back (as the owner writing in it does): agents list it and may write in it again. changed is false when it was not archived.',
    input: () => z.strictObject({ conv_id: id() }),
  },
  'retention.get': {
    device: 'full',
    description:
      "The retention rules (the hub's, conv_id null, and each conversation's own) and how the database file gives freed space back (vacuum: incremental or none; free_bytes).",
    input: () => z.strictObject({}),
  },
  'retention.set': {
    device: 'laptop',
    description: `Set the hub's retention rule (no conv_id) or one conversation's (which then follows its own, not the hub's). keep_days: delete events and messages older than that (1-${MAX_RETENTION_DAYS}, null: keep); keep_pinned, keep_requests, keep_checkpoints (agents' summaries): kept however old (default true; a pending request is always kept); archive_idle_days: archive a conversation idle that long (null: never). Fields left out keep their value. remove: true deletes the rule. export_dir (the hub's, without conv_id): an existing writable folder (absolute path) into which each pass first exports the conversations it will delete from, whole, as perch-retention-<time>.tar.gz; if that export fails the pass deletes nothing; null turns it off. Applied in small steps in the background; retention.dry_run says what would go.`,
    input: () =>
      z.strictObject({
        conv_id: id().nullable().optional(),
        keep_days: z.number().int().min(1).max(MAX_RETENTION_DAYS).nullable().optional(),
        keep_pinned: z.boolean().optional(),
        keep_requests: z.boolean().optional(),
        keep_checkpoints: z.boolean().optional(),
        archive_idle_days: z.number().int().min(1).max(MAX_RETENTION_DAYS).nullable().optional(),
        remove: z.literal(true).optional(),
        export_dir: z.string().min(1).max(4096).nullable().optional(),
      }),
  },
  'retention.dry_run': {
    device: 'full',
    description:
      'What the retention rules would remove now, per conversation and in total (messages, events, files and their bytes, summaries, conversations to archive). Changes nothing.',
    input: () => z.strictObject({ conv_id: id().optional() }),
  },
  // agents in containers: the container bridge listener, switched on the running hub (src/main/container-switch.ts)
  'containers.get': {
    device: 'laptop',
    description:
      'The container listener: whether it is on (the setting), the listeners running, the URL an agent in a container uses, the container bridges found on this computer.',
    input: () => z.strictObject({}),
  },
  'containers.set': {
    device: 'laptop',
    description:
      'Let agents in containers connect (on: true) or not: saved, and the container listener started or stopped on the running hub (/mcp only, for keys allowed containers). On a computer without a container bridge it says so and nothing listens.',
    input: () => z.strictObject({ on: z.boolean() }),
  },
  // phone approvals: remote access through an HTTPS front, paired devices, push (hub/phone/devices.ts, hub/phone/notify.ts)
  'phone.get': {
    device: 'laptop',
    description:
      'Phone settings: the public URL of the HTTPS front (tailscale serve), what pushes carry (summary or ids), the ntfy channel, and the Web Push key.',
    input: () => z.strictObject({}),
  },
  'phone.set': {
    device: 'laptop',
    description:
      'Change phone settings. public_url: the https URL of the front (null: no remote access); push_content: summary (default) or ids; ntfy: {server, topic, opaque} or null.',
    input: () =>
      z.strictObject({
        public_url: z.string().max(300).nullable().optional(),
        push_content: z.enum(PUSH_CONTENT).optional(),
        ntfy: z
          .strictObject({ server: z.string().min(1).max(300), topic: z.string().min(1).max(64), opaque: z.boolean().optional() })
          .nullable()
          .optional(),
      }),
  },
  'devices.pair_start': {
    device: 'laptop',
    description:
      'Start pairing a phone: a single-use code (5 minutes) in a link and its QR code. Needs the public URL set. scope: approvals (default) or full.',
    input: () => z.strictObject({ name: z.string().max(MAX_DEVICE_NAME_CHARS).optional(), scope: z.enum(DEVICE_SCOPES).optional() }),
  },
  'devices.pair_status': {
    device: 'laptop',
    description:
      "A pairing's state: waiting for the phone, claimed (the phrase to compare), confirmed, expired or cancelled. wait_secs waits until it changes; state (the state you last saw) ends the wait at once when it differs already.",
    input: () =>
      z.strictObject({
        pairing_id: id(),
        wait_secs: z.number().int().min(0).max(30).optional(),
        state: z.enum(['waiting', 'claimed', 'confirmed', 'expired', 'cancelled']).optional(),
      }),
  },
  'devices.pair_confirm': {
    device: 'laptop',
    description: 'Confirm a claimed pairing once both screens show the same phrase: the phone gets its credential.',
    input: () => z.strictObject({ pairing_id: id(), phrase: z.string().max(100).optional() }),
  },
  'devices.pair_cancel': {
    device: 'laptop',
    description: 'Cancel a pairing (the code stops working).',
    input: () => z.strictObject({ pairing_id: id() }),
  },
  'devices.list': {
    device: 'laptop',
    description: 'Paired devices with scope, last use and whether they get pushes (revoked ones too).',
    input: () => z.strictObject({}),
  },
  'devices.revoke': {
    device: 'laptop',
    description: 'Revoke a device: its credential and its push subscription stop at once.',
    input: () => z.strictObject({ device_id: id() }),
  },
  'devices.audit': {
    device: 'laptop',
    description: 'What devices did through the front, newest first (one device or all).',
    input: () => z.strictObject({ device_id: id().optional(), limit: z.number().int().min(1).max(500).optional() }),
  },
  'devices.test_push': {
    device: 'laptop',
    description: 'Send a test push to a device (Web Push, and ntfy when set); answers what each channel did.',
    input: () => z.strictObject({ device_id: id() }),
  },
  'agents.set_brakes': {
    device: 'full',
    description: `Set an agent's budget: messages it may send per conversation per hour (1 to ${BRAKES.budgetMax}), "off", or "default" (${BRAKES.budgetPerHour}). The other brakes (loop, duplicate, notice) are fixed.`,
    input: () =>
      z.strictObject({
        agent: id(),
        budget: z.union([z.number().int().min(1).max(BRAKES.budgetMax), z.literal('off'), z.literal('default')]),
      }),
  },
  'rules.list': {
    device: 'full',
    description: "Standing rules for agents' own permission prompts (`perch hook permission-request`): every rule, or one agent's.",
    input: () => z.strictObject({ agent: id().optional() }),
  },
  'rules.add': {
    device: 'full',
    description:
      "Always allow or always deny an agent's permission prompts of one tool (e.g. Bash; a Cursor MCP tool is MCP:<tool>@<server>), or only its commands that start with command_prefix. Rules read the command's words as the shell splits them, quotes removed: an allow prefix covers the commands that start with its words and ANY arguments after them, but never a command with quotes, backslashes, ; & | ` $ ( ) < > * ? [ { ~ or a line break, or with an option after the prefix that runs other code (--script-shell, git -c / -C, --upload-pack, --exec …), so an allow whose command_prefix has such syntax is refused; a deny prefix matches its first word followed by its other words in order anywhere after it (git -C . push is git push) in any of the command's simple commands. Rules decide only prompts filed by perch hook permission-request or perch channel (the hook door), shown whole, in the agent's direct conversation with you: such a prompt is then decided at once, recorded as decided by you with the rule in its comment, and not notified; any matching deny wins over an allow. An allow rule is added on the laptop only: a paired device may add deny rules (403 forbidden for an allow). Each rule records who added it (added_by). Give agent and tool, or answer a prompt \"always\" with its request_id instead: the rule is for that agent and tool (command_prefix, if given, must cover its command), and the prompt, if still pending, is decided by it at once (request in the answer). The same rule again answers added: false.",
    input: () =>
      z.strictObject({
        agent: id().optional(),
        tool: z.string().min(1).max(200).optional(),
        request_id: id().optional(),
        command_prefix: z.string().min(1).max(1000).optional(),
        behavior: z.enum(['allow', 'deny']),
      }),
  },
  'rules.remove': {
    device: 'full',
    description: 'Remove a standing rule: the prompts it matched go to you again.',
    input: () => z.strictObject({ rule_id: id() }),
  },
} as const);

export type OwnerAction = keyof typeof OWNER_ACTIONS;

export function isOwnerAction(action: string): action is OwnerAction {
  return Object.hasOwn(OWNER_ACTIONS, action);
}

/** Which devices may call this action (DEVICE_REACH); an unknown action is laptop-only. */
export function deviceReachOf(action: string): DeviceReach {
  return isOwnerAction(action) ? OWNER_ACTIONS[action].device : 'laptop';
}

/** The input fields of an action that only the laptop may send (a device sending one is refused); none for most. */
export function deviceLaptopFields(action: string): readonly string[] {
  return isOwnerAction(action) ? OWNER_ACTIONS[action].laptopFields : [];
}

/** The owner actions a device of this scope may call, in contract order. */
export function deviceActions(scope: DeviceScope): OwnerAction[] {
  return (Object.keys(OWNER_ACTIONS) as OwnerAction[]).filter((a) => {
    const reach = OWNER_ACTIONS[a].device;
    return reach === 'approvals' || (reach === 'full' && scope === 'full');
  });
}

/** The largest HTTP body an action takes (bytes): LIMITS.maxBodyBytes, but a file's base64 for files.send (as send_file's). */
export function ownerBodyLimit(action: string): number {
  return action === 'files.send' ? LIMITS.maxFileBodyBytes : LIMITS.maxBodyBytes;
}
/** What a caller sends for an action. */
export type OwnerInput<A extends OwnerAction> = z.input<(typeof OWNER_ACTIONS)[A]['input']>;
/** What the action's handler receives: the input after its schema parsed it. */
export type OwnerArgs<A extends OwnerAction> = z.output<(typeof OWNER_ACTIONS)[A]['input']>;
/** What an action answers with (the value of {ok: true, value}); the server's handlers and the UI share it. */
export type OwnerResult<A extends OwnerAction> = OwnerResults[A];

/** The answer over HTTP and IPC: the action's result, or an error the owner can act on. */
export type OwnerReply<T = unknown> = { ok: true; value: T } | { ok: false; error: { code: string; message: string; next_step: string } };

// ---- results ----------------------------------------------------------------------------------

export interface HubInfo {
  owner: UserRef;
  version: string;
  mcp_url: string;
  base_url: string;
  tool_schema_version: string;
  agents: number;
  /** Calls of agents waiting for news now (get_updates, get_request), not those of read-only keys. */
  waiting_agents: number;
  /** Every waiting call now, read-only keys' too. */
  waiting_calls: number;
  /** The database connection's commit durability (normal: survives a hub crash; full: also a power cut). */
  durability: { mode: 'normal' | 'full' | 'other'; synchronous: number };
}

export interface Reaction {
  key: string;
  count: number;
  users: string[];
  mine: boolean;
}

/** A message as the owner sees it: the view plus reactions (history attaches them; live events update them). */
export type Message = MessageView & { reactions?: Reaction[] };

export interface HistoryPage {
  conv_id: string;
  events: EventView[];
  first_seq: number | null;
  last_seq: number | null;
  more: boolean;
  conversation_last_seq: number;
  visible_from_seq: number;
  /** Read receipts: how far each member (and named instance) confirmed, furthest first. */
  reads: ReadReceipt[];
}

export interface ThreadPage {
  conv_id: string;
  thread_id: string;
  root: Message;
  replies: Message[];
  more: boolean;
  last_seq: number | null;
}

export interface SearchResult {
  query: string;
  messages: Message[];
  complete: boolean;
}

/** A request as the Approvals inbox shows it. */
export type RequestItem = OwnerRequestView;

export interface AgentKeyResult {
  agent: AgentSummary;
  key: string;
  snippets: Record<string, string>;
  /** agents.add: set when its places are kept but likely a mistake (a range covering every address). */
  warning?: string;
}

export interface ActivityRow {
  agent: { id: string; name: string };
  per_minute: number[];
  errors_per_minute: number[];
  last: ProgressView | null;
  waiting: boolean;
  revoked: boolean;
}

export interface Activity {
  minutes: number;
  until: number;
  agents: ActivityRow[];
}

export interface HandoffItem {
  conv_id: string;
  agent: UserRef;
  to: UserRef;
  note: string;
  at: number;
  title: string;
}

/** An agent paused or resumed (owner control); changed is false when it already was. */
export interface PauseResult {
  agent: { id: string; name: string };
  paused: PauseInfo | null;
  changed: boolean;
}

/** What each owner action answers with. A missing action is a compile error (OwnerResult indexes it). */
export interface OwnerResults {
  'hub.info': HubInfo;
  'hub.storage': { storage: StorageStatus };
  'conversations.list': { conversations: ConversationView[] };
  'conversations.get': { conversation: ConversationView };
  'conversations.history': HistoryPage;
  'conversations.thread': ThreadPage;
  'conversations.search': SearchResult;
  'conversations.open_direct': { conversation: ConversationView };
  'conversations.create_group': { conversation: ConversationView };
  'conversations.create_task': { conversation: ConversationView };
  'conversations.add_member': { conversation: ConversationView };
  'conversations.mark_read': { conv_id: string; read_seq: number };
  'messages.send': { msg_id: string; conv_id: string; seq: number; created_at: number; thread_id?: string; to: string[]; woken: string[] };
  'messages.edit': { msg_id: string; conv_id: string; seq: number; edited_at: number };
  'messages.recall': { msg_id: string; conv_id: string; seq: number; recalled: true };
  'messages.react': { msg_id: string; key: string; changed: boolean };
  'messages.pin': { msg_id: string; pinned: boolean; changed: boolean };
  'messages.pins': { conv_id: string; pins: Array<{ message: Message; pinned_by: UserRef; pinned_at: number }> };
  'messages.hide': { msg_id: string; conv_id: string; hidden: boolean; changed: boolean };
  'notes.send': { agent: string; conv_id: string; seq: number; at: number };
  'requests.list': { requests: RequestItem[] };
  'requests.decide': { request: RequestItem };
  'cards.answer': {
    msg_id: string;
    conv_id: string;
    seq: number;
    block_id: string;
    value: unknown;
    closed: boolean;
    response_count: number;
  };
  'handoffs.list': { handoffs: HandoffItem[] };
  'handoffs.hand_back': { conv_id: string; handoff_id: number; agent: UserRef; seq: number; woken: string[] };
  'tasks.set': TaskUpdateResult;
  'floor.set': { conv_id: string; holder: UserRef | null; until: number | null };
  'agents.list': { agents: AgentSummary[] };
  'agents.add': AgentKeyResult;
  'agents.update_config': { agent: AgentSummary };
  'agents.rotate_key': AgentKeyResult;
  'agents.revoke': { agent: AgentSummary };
  'agents.pause': PauseResult;
  'agents.resume': PauseResult;
  'agents.pause_all': { agents: PauseResult[] };
  'agents.resume_all': { agents: PauseResult[] };
  'agents.set_caps': { agent: { id: string; name: string }; caps: Caps; today: UsageDay; paused: PauseInfo | null };
  'agents.controls': { agents: AgentControlView[]; today: string };
  'agents.add_key': { key: AgentKeyView; secret: string; snippets: Record<string, string>; warning?: string };
  'agents.list_keys': { keys: AgentKeyView[] };
  'agents.revoke_key': { key: AgentKeyView };
  'agents.set_from': { agent: string; key_id: string | null; key_name: string; from: string[]; warning?: string };
  'progress.list': { progress: ProgressView[] };
  'progress.activity': Activity;
  'files.url': FileLink;
  'files.send': SentFile;
  'agents.set_review': { agent: AgentSummary; changed: boolean };
  'held.list': { items: HeldItem[] };
  'held.send': HeldSendResult;
  'held.discard': { held_id: string; state: 'discarded' };
  'wake.get': { wake: WakeState };
  'wake.set': { wake: WakeState };
  'wake.runs': { runs: WakeRunView[] };
  'wake.stop': { agent: string; stopped: boolean; run_id: string | null; cancelled: boolean };
  'wake.start_now': { agent: string; started: boolean; run_id: string | null };
  'wake.limits.get': { limits: WakeLimits };
  'wake.limits.set': { limits: WakeLimits };
  'wake.log': { run: WakeRunView; tail: string };
  'conversations.resume': { conv_id: string; resumed: boolean; conversation: ConversationView };
  'conversations.archive': { conv_id: string; archived: boolean; changed: boolean; conversation: ConversationView };
  'conversations.unarchive': { conv_id: string; archived: boolean; changed: boolean; conversation: ConversationView };
  'retention.get': RetentionStatus;
  'retention.set': { rule: RetentionRule | null; removed: boolean };
  'retention.dry_run': RetentionPlan;
  'agents.set_brakes': { agent: string; brakes: AgentBrakes };
  'rules.list': { rules: PermissionRuleView[] };
  'rules.add': { rule: PermissionRuleView; added: boolean; request?: RequestItem };
  'rules.remove': { rule: PermissionRuleView };
  'containers.get': { containers: ContainersState };
  'containers.set': { containers: ContainersState };
  'phone.get': { phone: PhoneSettings };
  'phone.set': { phone: PhoneSettings };
  'devices.pair_start': PairingStart;
  'devices.pair_status': { pairing: PairingView };
  'devices.pair_confirm': { pairing: PairingView; device: DeviceView };
  'devices.pair_cancel': { pairing: PairingView };
  'devices.list': { devices: DeviceView[] };
  'devices.revoke': { device: DeviceView };
  'devices.audit': { entries: DeviceAuditEntry[] };
  'devices.test_push': {
    device: DeviceView;
    web_push: 'sent' | 'no_subscription' | 'gone' | 'failed';
    ntfy: 'sent' | 'off' | 'failed';
    detail: string | null;
  };
}

export {
  OWNER_API_PREFIX,
  OWNER_EVENTS_PATH,
  OWNER_LOGIN_PATH,
  OWNER_SESSION_PATH,
  OWNER_LOGOUT_PATH,
  OWNER_SESSION_STORAGE_KEY,
} from './owner-paths';

export { PROGRESS_KINDS };
