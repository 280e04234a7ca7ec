// Hub services only the owner (the one human) uses, beyond what the agent tools share with the owner:
// the hub's facts, joining a conversation to speak in it, read marks, private notes to an agent, and files.
// The owner door (owner/actions.ts) calls these; it reaches the store only through the hub.
import type { FeaturesHub } from '../services';
import { HubError } from '../../../../shared/errors';
import { toolSchemaVersion } from '../../../../shared/api/catalog';
import { PERCH_VERSION } from '../../../../shared/version';
import type { ConversationView } from '../../../../shared/types';
import type { HubInfo } from '../../../../shared/api/owner-api';
import { conversationById, member, setReadSeq, type ConversationRow } from '../../../store/tables/talk/conversations';
import { durabilityOf } from '../../../store/db/durability';
import { conversationView, joinConversation } from '../../talk/conversations';
import { findAgent } from '../../identity/identities';
import { listAgents } from '../../control/agents';
import { prepareFile, storeFile, type SendFileInput, type SentFile } from '../files/files';

/** Who the owner is, where the hub listens, and how it runs. */
export function hubInfo(hub: FeaturesHub): HubInfo {
  return {
    owner: hub.ref(hub.ownerId),
    version: PERCH_VERSION,
    mcp_url: `${hub.doors.baseUrl}/mcp`,
    base_url: hub.doors.baseUrl,
    tool_schema_version: toolSchemaVersion(),
    agents: listAgents(hub).length,
    waiting_agents: hub.bus.waitingCount(),
    waiting_calls: hub.bus.allWaits(),
    durability: durabilityOf(hub.db),
  };
}

/** A conversation by id, or not_found (the owner may read every conversation). */
export function requireConversation(hub: FeaturesHub, convId: string): ConversationRow {
  const conv = conversationById(hub.db, convId);
  if (!conv) throw new HubError('not_found', `No conversation ${convId}.`, 'Pick a conversation from the list.');
  return conv;
}

/** One conversation as the owner sees it. */
export function ownerConversation(hub: FeaturesHub, convId: string): ConversationView {
  return conversationView(hub, requireConversation(hub, convId), hub.ownerId);
}

/** The owner joins a conversation before speaking in it (the owner may read everything, but speaks as a member). */
export function ensureOwnerMember(hub: FeaturesHub, convId: string): void {
  hub.write(() => {
    requireConversation(hub, convId);
    if (member(hub.db, convId, hub.ownerId)) return;
    joinConversation(hub, hub.ownerId, convId, hub.ownerId, { role: 'owner' });
  });
}

/** The owner has read a conversation up to seq. */
export function markRead(hub: FeaturesHub, convId: string, seq: number): { conv_id: string; read_seq: number } {
  requireConversation(hub, convId);
  hub.write(() => setReadSeq(hub.db, convId, hub.ownerId, seq));
  return { conv_id: convId, read_seq: seq };
}

/** A private note from the owner to one agent, in its inbox (only it sees it; it is woken). */
export function sendNote(
  hub: FeaturesHub,
  input: { agent: string; text: string; conv_id?: string },
): { agent: string; conv_id: string; seq: number; at: number } {
  return hub.write(() => {
    const agent = findAgent(hub, input.agent);
    if (input.conv_id) requireConversation(hub, input.conv_id);
    const { seq, at } = hub.emit(agent.inbox_id!, 'owner.note', hub.ownerId, {
      data: { text: input.text, about_conv_id: input.conv_id ?? null },
      wake: [agent.id],
    });
    return { agent: agent.name, conv_id: agent.inbox_id!, seq, at };
  });
}

/**
 * A file or image from the owner (files.send): decoded, checked and cleaned exactly as an agent's send_file
 * (hub/features/files/files.ts: the type read from the bytes, EXIF/GPS dropped, a thumbnail), then stored with its message in
 * one write, the owner joining the conversation in the same write. Refused input (an unknown conversation,
 * bad base64, too large, a disguised image) changes nothing.
 */
export async function sendOwnerFile(
  hub: FeaturesHub,
  input: Pick<SendFileInput, 'conv_id' | 'data' | 'name' | 'mime' | 'caption' | 'reply_to'> & { to?: string[]; thread_id?: string },
): Promise<SentFile> {
  requireConversation(hub, input.conv_id); // before the expensive decode
  const prepared = await prepareFile(input);
  return hub.write(() => {
    ensureOwnerMember(hub, input.conv_id);
    const { conv_id, caption, to, reply_to, thread_id } = input;
    return storeFile(hub, hub.ownerId, { conv_id, caption, to, reply_to, thread_id }, prepared);
  });
}
