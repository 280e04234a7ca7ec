// The types the UI reads, all defined in src/shared: the owner API's results (shared/api/owner-api.ts,
// which the server's action handlers are typed by too, so the two cannot drift) and the domain types.
export type {
  ConversationView,
  MessageView,
  ProgressView,
  RequestKind,
  RequestState,
  TaskState,
  UserRef,
  StorageStatus,
  TaskUpdateResult,
} from '../shared/types';
export type { EventView, EventViewOf, LiveItem, HubLive } from '../shared/api/event-log';
export type { AgentSummary } from '../shared/agents/agents';

// ---- owner API results ----------------------------------------------------------------------

export type {
  HubInfo,
  Reaction,
  Message,
  HistoryPage,
  ThreadPage,
  SearchResult,
  RequestItem,
  AgentKeyResult,
  ActivityRow,
  Activity,
  HandoffItem,
  OwnerResults,
} from '../shared/api/owner-api';

// ---- requests, cards, files -----------------------------------------------------------------

export type { Decision, RequestOutcome, RequestMessagePayload } from '../shared/features/requests';
export type { ButtonOption, FormField, CardBlock, Card, CardResponse, CardPayload } from '../shared/features/cards';
export type { FilePayload, FileLink } from '../shared/features/files';
export type { HeldItem, HeldSendResult } from '../shared/features/review';
