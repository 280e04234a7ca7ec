// What each owner action answers with (src/shared/api/owner-api.ts declares the actions): the server's handlers and
// the UI share these types.
import type { CostLine, PerchEventView, ToolCallView } from '../ledger/views';
import type { ConversationView, MessageView, ProgressView, StorageStatus, TaskUpdateResult, UserRef } from '../types';
import type { EventView } from './event-log';
import type { AgentSummary } from '../agents/agents';
import type { OwnerRequestView } from '../features/requests';
import type { FileLink, SentFile } from '../features/files';
import type { HeldItem, HeldSendResult } from '../features/review';
import type { WakeLimits, WakeRunView, WakeState } from '../agents/wake';
import type { AgentControlView, CapCost, Caps, PauseInfo, UsageDay } from '../agents/control';
import type { ReadReceipt } from '../agents/agent-sessions';
import type { AgentKeyView } from '../agents/scoped-keys';
import type { PermissionRuleView, RuleSuggestionView } from '../features/permission-prompts';
import type { RetentionPlan, RetentionRule, RetentionStatus } from '../features/retention';
import type { ContainersState } from '../agents/places';
import type { AgentBrakes } from '../agents/brakes';
import type { DeviceAuditEntry, DeviceView, PairingStart, PairingView, PhoneSettings } from '../features/devices';

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
  'agents.set_caps': { agent: { id: string; name: string }; caps: Caps; today: UsageDay; cap_cost: CapCost; paused: PauseInfo | null };
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
  'ledger.calls': { calls: ToolCallView[] };
  'ledger.costs': { costs: CostLine[]; today: string };
  'ledger.events': { events: PerchEventView[] };
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
  'rules.import': { added: number; kept: number };
  'rules.suggestions': { suggestions: RuleSuggestionView[] };
  'rules.suggestion_accept': { rule: PermissionRuleView; added: boolean; request?: RequestItem };
  'rules.suggestion_dismiss': { dismissed: RuleSuggestionView };
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
