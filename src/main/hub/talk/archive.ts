// Archived conversations: the owner (never an agent) puts a finished conversation away, and can bring it back.
// An archived conversation
//  - leaves the agents' list_conversations and their search across conversations (store/tables/talk/conversations.ts
//    conversationsOf), and the owner's sidebar (the UI lists it under "Archived"; the owner's search still finds it);
//  - stays readable: get_history, get_thread, list_pins, get_context and get_updates work as before;
//  - is read-only for agents: any writing tool that names it (conv_id, or a msg_id or request_id in it) is refused with
//    the code `archived` by the agent gates (hub/talk/gates.ts AGENT_GATES 'archived', archivedRefusal below);
//  - comes back when the owner unarchives it, or when the owner writes in it (a message or a file: the write unarchives
//    it in the same transaction, conversation.unarchived with reason owner_wrote), so the owner is never refused.
// Archiving and unarchiving are events in the conversation's log (conversation.archived / .unarchived), so every
// open window and the members' get_updates learn of it; nobody is woken by them.
import type { Hub } from '../core/hub';
import type { ControlServices } from '../control/services';
import { HubError } from '../../../shared/errors';
import { TOOL_BY_NAME, type ToolName } from '../../../shared/api/catalog';
import {
  archivedCount,
  conversationAndMember,
  conversationById,
  setArchived,
  type ConversationRow,
} from '../../store/tables/talk/conversations';
import { OutsideMemo, type OutsideWrites } from '../core/outside-writes';
import { messageById } from '../../store/tables/talk/messages';
import { requestById } from '../../store/tables/talk/requests';

/** The hub as this module reaches it: the services it uses (the whole set: src/main/hub/services.ts). */
type ArchiveHub = Hub<ControlServices & { archivedCount: OutsideMemo<number> }>;

/** The cache of the archived count, as the composition root makes it. */
export function archivedCountCache(outside: OutsideWrites): OutsideMemo<number> {
  return new OutsideMemo(outside);
}

export interface ArchiveResult {
  conv_id: string;
  archived: boolean;
  /** false when it already was (archived) or was not (unarchived). */
  changed: boolean;
}

function requireArchivable(hub: ArchiveHub, convId: string): ConversationRow {
  const conv = conversationById(hub.db, convId);
  if (!conv)
    throw new HubError('not_found', `No conversation ${convId}.`, 'Pick a conversation from the list (perch owner conversations.list).');
  if (conv.kind === 'inbox') {
    throw new HubError(
      'invalid_argument',
      `${convId} is an agent's notes channel; it cannot be archived.`,
      'Archive a direct conversation, a group or a task.',
    );
  }
  return conv;
}

/** The owner (or an idle retention rule, by 'retention') archives a conversation. In the caller's transaction, or its own. */
export function archiveConversation(
  hub: ArchiveHub,
  convId: string,
  by: 'owner' | 'retention' = 'owner',
  idleDays?: number,
): ArchiveResult {
  return hub.services.archivedCount.changing(() =>
    hub.write(() => {
      requireArchivable(hub, convId);
      const changed = setArchived(hub.db, convId, hub.now(), by);
      if (changed) {
        hub.emit(convId, 'conversation.archived', by === 'owner' ? hub.ownerId : null, {
          data: { by, ...(idleDays !== undefined ? { idle_days: idleDays } : {}) },
        });
      }
      return { conv_id: convId, archived: true, changed };
    }),
  );
}

/** The owner brings an archived conversation back. */
export function unarchiveConversation(hub: ArchiveHub, convId: string, reason: 'unarchive' | 'owner_wrote' = 'unarchive'): ArchiveResult {
  return hub.services.archivedCount.changing(() =>
    hub.write(() => {
      requireArchivable(hub, convId);
      const changed = setArchived(hub.db, convId, null, null);
      if (changed) hub.emit(convId, 'conversation.unarchived', hub.ownerId, { data: { by: 'owner', reason } });
      return { conv_id: convId, archived: false, changed };
    }),
  );
}

/** A person writes in a conversation (hub/talk/messages.ts): an archived one comes back first, in the same write. */
export function personWritesIn(hub: ArchiveHub, conv: ConversationRow): void {
  if (conv.archived_at != null) unarchiveConversation(hub, conv.id, 'owner_wrote');
}

/** The refusal an agent gets for writing in an archived conversation. */
export function archivedError(convId: string): HubError {
  return new HubError(
    'archived',
    `Conversation ${convId} is archived by your owner: it is read-only for agents.`,
    'Reading it still works (get_history). To go on, write in another conversation (create_task or create_group with your owner), and ask your owner there to unarchive this one if you need it.',
    { conv_id: convId },
  );
}

/**
 * The conversation a call names: conv_id, else the conversation of its msg_id or request_id. Only a conversation the
 * agent is a member of counts (others get their not_found / not_member from the handler, as before).
 */
function namedConversation(hub: ArchiveHub, agentId: string, args: Readonly<Record<string, unknown>>): ConversationRow | undefined {
  let convId: string | undefined;
  if (typeof args.conv_id === 'string') convId = args.conv_id;
  else if (typeof args.msg_id === 'string') convId = messageById(hub.db, args.msg_id)?.conv_id;
  else if (typeof args.request_id === 'string') convId = requestById(hub.db, args.request_id)?.conv_id;
  if (convId === undefined) return undefined;
  const found = conversationAndMember(hub.db, convId, agentId);
  return found?.member ? found.conv : undefined;
}

/**
 * The archived gate (hub/talk/gates.ts): an agent's writing tool (not readOnly in the catalog) that names an archived
 * conversation it is a member of is refused with `archived`. get_updates writes only the caller's own position, and
 * names no conversation, so it passes.
 */
export function archivedRefusal(
  hub: ArchiveHub,
  agentId: string,
  tool: ToolName,
  args: Readonly<Record<string, unknown>> | undefined,
): HubError | undefined {
  if (!args || TOOL_BY_NAME.get(tool)?.readOnly) return undefined;
  if (hub.services.archivedCount.get('n', () => archivedCount(hub.db)) === 0) return undefined; // none archived: nothing to read
  const conv = namedConversation(hub, agentId, args);
  return conv && conv.archived_at != null ? archivedError(conv.id) : undefined;
}
