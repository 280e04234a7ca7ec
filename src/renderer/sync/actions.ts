// The owner's actions, as the components call them: each runs one owner API action (a refusal becomes a
// notice) and writes what it answers to the stores; plus the composer's and sidebar's own state.
import type { OwnerInput } from '../../shared/api/owner-api';
import { isPermissionPrompt } from '../../shared/features/permission-prompts';
import { api } from '../transport';
import type { AgentKeyResult, ConversationView, Decision, TaskState } from '../model';
import { conversationsStore } from '../stores/conversations';
import { requestsStore } from '../stores/requests';
import { uiStore } from '../stores/ui';
import { attempt, toast } from './common';
import { loadAgents, refreshConversationSoon } from './loaders';
import { clearRequestDraft, mergeDecidedRequest, selectRequest } from './requests';
import { decideAfterUndoWindow } from './undo';
import { messageHidden } from './timeline';
import { openView } from './router';

export function sendMessage(input: { conv_id: string; text: string; to?: string[]; reply_to?: string; thread_id?: string }) {
  return attempt('Not sent', () => api('messages.send', input));
}

export function sendNote(agent: string, text: string, convId?: string) {
  return attempt('Note not sent', async () => {
    const r = await api('notes.send', convId ? { agent, text, conv_id: convId } : { agent, text });
    toast(`Private note sent to ${r.agent}.`);
    return r;
  });
}

/** The message the composer replies to (null: none). */
export function setReplyTo(msgId: string | null): void {
  uiStore.setState({ replyTo: msgId });
}

/** The conversation list's filter text. */
export function setFilter(filter: string): void {
  uiStore.setState({ filter });
}

export const editMessage = (msgId: string, text: string) => attempt('Not edited', () => api('messages.edit', { msg_id: msgId, text }));
export const recallMessage = (msgId: string) => attempt('Not recalled', () => api('messages.recall', { msg_id: msgId }));
export const react = (convId: string, msgId: string, key: string, on: boolean) =>
  attempt('Reaction not saved', () => api('messages.react', { conv_id: convId, msg_id: msgId, key, on }));
/** Hides a message from the owner's own view (any message, an agent's too), or shows it again. */
export const hideMessage = (msgId: string, on: boolean) =>
  attempt(on ? 'Not hidden' : 'Not shown', async () => {
    const r = await api('messages.hide', { msg_id: msgId, on });
    messageHidden(r.msg_id, r.hidden);
    return r;
  });
export const pin = (convId: string, msgId: string, on: boolean) =>
  attempt(on ? 'Not pinned' : 'Not unpinned', () => api('messages.pin', { conv_id: convId, msg_id: msgId, on }));

export function decideRequest(requestId: string, decision: Decision, extra: { answer?: string; choice?: string; comment?: string } = {}) {
  return attempt('Decision not saved', async () => {
    const input: { request_id: string; decision: Decision; answer?: string; choice?: string; comment?: string } = {
      request_id: requestId,
      decision,
    };
    if (extra.answer !== undefined) input.answer = extra.answer;
    if (extra.choice !== undefined) input.choice = extra.choice;
    if (extra.comment?.trim()) input.comment = extra.comment;
    const r = await api('requests.decide', input);
    mergeDecidedRequest(r.request);
    return r;
  });
}

const DECISION_WORD: Record<Decision, string> = { approve: 'Approve', reject: 'Reject', answer: 'Answer', choose: 'Choose' };

/**
 * Decides with what the owner typed in the request's comment / answer fields (read now, when the owner decides).
 * The hub hears of it when the undo window closes (undo.ts); the request leaves the inbox meanwhile.
 */
export function decideWithDraft(requestId: string, decision: Decision, choice?: string): void {
  const draft = requestsStore.getState().drafts[requestId] ?? {};
  const r = requestsStore.getState().byId[requestId];
  const what = decision === 'choose' && choice ? `Choose “${choice}” for` : DECISION_WORD[decision];
  decideAfterUndoWindow(
    requestId,
    `${what} “${r?.title ?? requestId}”`,
    () =>
      decideRequest(requestId, decision, {
        comment: draft.comment,
        ...(decision === 'answer' ? { answer: draft.answer ?? '' } : {}),
        ...(decision === 'choose' ? { choice } : {}),
      }).then((res) => {
        if (res) clearRequestDraft(requestId);
        return res;
      }),
    () => selectRequest(requestId),
    isPermissionPrompt(r?.context), // a harness's prompt: its agent is blocked until this is sent
  );
}

export const answerCard = (msgId: string, blockId: string, value: unknown) =>
  attempt('Answer not sent', () => api('cards.answer', { msg_id: msgId, block_id: blockId, value }));

export function handBack(convId: string, agentId: string, note: string) {
  return attempt('Not handed back', async () => {
    const r = await api('handoffs.hand_back', { conv_id: convId, agent: agentId, note });
    toast(`Handed back to ${r.agent.name}.`);
    refreshConversationSoon(convId);
    return r;
  });
}

export function setTask(convId: string, change: { state?: TaskState; assignee?: string; note?: string }) {
  return attempt('Task not updated', async () => {
    const r = await api('tasks.set', { conv_id: convId, ...change });
    conversationsStore.setState((s) => ({ byId: { ...s.byId, [convId]: { ...r.task, unread: s.byId[convId]?.unread ?? 0 } } }));
    return r;
  });
}

export function setFloor(convId: string, change: { agent?: string; ttl_secs?: number; release?: boolean }) {
  return attempt('Floor not changed', async () => {
    const r = await api('floor.set', { conv_id: convId, ...change });
    refreshConversationSoon(convId);
    return r;
  });
}

export function createConversation(kind: 'direct' | 'group' | 'task', input: { title: string; members: string[]; assignee?: string }) {
  return attempt('Not created', async () => {
    let conv: ConversationView;
    if (kind === 'direct') conv = (await api('conversations.open_direct', { user: input.members[0]! })).conversation;
    else if (kind === 'group')
      conv = (await api('conversations.create_group', { title: input.title, members: input.members })).conversation;
    else
      conv = (
        await api(
          'conversations.create_task',
          input.assignee
            ? { title: input.title, members: input.members, assignee: input.assignee }
            : { title: input.title, members: input.members },
        )
      ).conversation;
    conversationsStore.setState((s) => ({ byId: { ...s.byId, [conv.conv_id]: conv } }));
    openView({ name: 'conversation', convId: conv.conv_id });
    return conv;
  });
}

export const addMember = (convId: string, user: string) =>
  attempt('Not added', async () => {
    const r = await api('conversations.add_member', { conv_id: convId, user });
    conversationsStore.setState((s) => ({ byId: { ...s.byId, [convId]: r.conversation } }));
    return r;
  });

export async function openDirectWith(agentName: string): Promise<void> {
  await createConversation('direct', { title: '', members: [agentName] });
}

export function addAgent(input: { name: string; description?: string; instructions?: string }): Promise<AgentKeyResult | undefined> {
  return attempt('Agent not added', async () => {
    const r = await api('agents.add', input);
    void loadAgents();
    return r;
  });
}

export function rotateKey(agent: string): Promise<AgentKeyResult | undefined> {
  return attempt('Key not rotated', async () => {
    const r = await api('agents.rotate_key', { agent });
    void loadAgents();
    return r;
  });
}

export const revokeAgent = (agent: string) =>
  attempt('Not revoked', async () => {
    const r = await api('agents.revoke', { agent });
    void loadAgents();
    return r;
  });

export type ConfigPatch = Omit<OwnerInput<'agents.update_config'>, 'agent'>;
export const updateAgentConfig = (agent: string, patch: ConfigPatch) =>
  attempt('Config not saved', async () => {
    const r = await api('agents.update_config', { agent, ...patch });
    void loadAgents();
    toast(`Saved ${r.agent.name}'s config (version ${r.agent.config_version}).`);
    return r;
  });

export async function searchMessages(query: string) {
  return attempt('Search failed', () => api('conversations.search', { query, limit: 50 }));
}

// ---- brakes (hub/control/brakes.ts) ----------------------------------------------------------------------

/** The owner lifts a conversation's loop pause: its agents may send again and are woken. */
export function resumeConversation(convId: string) {
  return attempt('Not resumed', async () => {
    const r = await api('conversations.resume', { conv_id: convId });
    conversationsStore.setState((s) => ({ byId: { ...s.byId, [convId]: { ...r.conversation, unread: s.byId[convId]?.unread ?? 0 } } }));
    toast(r.resumed ? 'Resumed: the agents may talk here again.' : 'This conversation was not paused.');
    return r;
  });
}

// ---- archived conversations (hub/talk/archive.ts) ------------------------------------------------------------

/** The owner archives or unarchives a conversation; other windows follow through the live event. */
export function setArchived(convId: string, archived: boolean) {
  return attempt(archived ? 'Not archived' : 'Not unarchived', async () => {
    const r = await api(archived ? 'conversations.archive' : 'conversations.unarchive', { conv_id: convId });
    conversationsStore.setState((s) => ({ byId: { ...s.byId, [convId]: { ...r.conversation, unread: s.byId[convId]?.unread ?? 0 } } }));
    toast(archived ? 'Archived: agents can read it but not write in it. It is listed under Archived.' : 'Unarchived: back in the list.');
    return r;
  });
}

/** The owner sets an agent's budget: messages per conversation per hour, 'off', or 'default'. */
export function setAgentBudget(agent: string, budget: number | 'off' | 'default') {
  return attempt('Budget not changed', async () => {
    const r = await api('agents.set_brakes', { agent, budget });
    await loadAgents();
    toast(
      `Budget of ${r.agent}: ${r.brakes.budget_per_hour === null ? 'off' : `${r.brakes.budget_per_hour} messages per conversation per hour`}.`,
    );
    return r;
  });
}

// ---- scoped keys of an agent (agents.add_key / list_keys / revoke_key) ----------------------------------

export const listAgentKeys = (agent: string) => attempt('Keys not loaded', async () => (await api('agents.list_keys', { agent })).keys);
export const addAgentKey = (input: OwnerInput<'agents.add_key'>) => attempt('Key not issued', () => api('agents.add_key', input));
export const revokeAgentKey = (keyId: string) =>
  attempt('Key not revoked', async () => {
    const r = await api('agents.revoke_key', { key_id: keyId });
    toast(`Revoked key ${r.key.name}; it no longer works.`);
    return r.key;
  });
