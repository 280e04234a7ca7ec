// What the owner API returns, as the UI reads it. Shapes follow src/main/owner/actions.ts and the hub
// services it calls; the domain types themselves come from src/shared.
import type { AgentSummary } from '../shared/agents';
import type { OwnerAction } from '../shared/owner-api';
import type { OwnerRequestView } from '../shared/requests';
import type { FileLink } from '../shared/files';
import type { StorageStatus, TaskUpdateResult } from '../shared/types';
import type {
  ConversationView, EventView, MessageView, ProgressView, RequestKind, RequestState, TaskState, UserRef,
} from '../shared/types';

export type { AgentSummary, ConversationView, EventView, MessageView, ProgressView, RequestKind, RequestState, TaskState, UserRef };

export type { LiveItem } from '../shared/types';

export interface HubInfo {
  owner: UserRef;
  version: string;
  mcp_url: string;
  base_url: string;
  tool_schema_version: string;
  agents: number;
  waiting_agents: number;
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

// ---- requests -------------------------------------------------------------------------------

export type { Decision, RequestOutcome, RequestMessagePayload } from '../shared/requests';
/** A request as the Approvals inbox shows it. */
export type RequestItem = OwnerRequestView;

// ---- cards ------------------------------------------------------------------------------------

export type { ButtonOption, FormField, CardBlock, Card, CardResponse, CardPayload } from '../shared/cards';

// ---- files ------------------------------------------------------------------------------------

export type { FilePayload, FileLink } from '../shared/files';

// ---- agents, progress, handoffs --------------------------------------------------------------

export interface AgentKeyResult {
  agent: AgentSummary;
  key: string;
  snippets: Record<string, string>;
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

export type { StorageStatus, TaskUpdateResult } from '../shared/types';

/** What each owner action answers with (the value of {ok: true, value}). */
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
  'messages.send': { msg_id: string; conv_id: string; seq: number; created_at: number; thread_id?: string; woken: string[] };
  'messages.edit': { msg_id: string; conv_id: string; seq: number; edited_at: number };
  'messages.recall': { msg_id: string; conv_id: string; seq: number; recalled: true };
  'messages.react': { msg_id: string; key: string; changed: boolean };
  'messages.pin': { msg_id: string; pinned: boolean; changed: boolean };
  'messages.pins': { conv_id: string; pins: Array<{ message: Message; pinned_by: UserRef; pinned_at: number }> };
  'notes.send': { agent: string; conv_id: string; seq: number; at: number };
  'requests.list': { requests: RequestItem[] };
  'requests.decide': { request: RequestItem };
  'cards.answer': { msg_id: string; conv_id: string; seq: number; block_id: string; value: unknown; closed: boolean; response_count: number };
  'handoffs.list': { handoffs: HandoffItem[] };
  'handoffs.hand_back': { conv_id: string; handoff_id: number; agent: UserRef; seq: number; woken: string[] };
  'tasks.set': TaskUpdateResult;
  'floor.set': { conv_id: string; holder: UserRef | null; until: number | null };
  'agents.list': { agents: AgentSummary[] };
  'agents.add': AgentKeyResult;
  'agents.update_config': { agent: AgentSummary };
  'agents.rotate_key': AgentKeyResult;
  'agents.revoke': { agent: AgentSummary };
  'progress.list': { progress: ProgressView[] };
  'progress.activity': Activity;
  'files.url': FileLink;
}

// Every action of the contract has a result type here (a compile error names the one missing).
type Missing = Exclude<OwnerAction, keyof OwnerResults>;
export const _everyActionTyped: [Missing] extends [never] ? true : Missing = true;
