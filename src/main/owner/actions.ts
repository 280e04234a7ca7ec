// The owner API's actions: each one a thin call into hub services, with the owner as the actor.
import type { Hub } from '../hub/hub';
import { HubError, isHubError } from '../../shared/errors';
import { visibleDeep, visibleText } from '../../shared/text';
import { tooDeep } from '../../shared/json-depth';
import { LIMITS } from '../../shared/limits';
import { OWNER_ACTIONS, type OwnerAction } from '../../shared/owner-api';
import { TOOL_SCHEMA_VERSION } from '../../shared/catalog';
import { PERCH_VERSION } from '../../shared/version';
import { addMember, conversationView, createGroup, createTask, joinConversation, listAllConversations, openDirect } from '../hub/conversations';
import { editMessage, getHistory, getThread, listPins, pin, react, recallMessage, search, sendMessage } from '../hub/messages';
import { addAgent, agentSummary, findAgent, listAgents, revokeAgent, rotateKey, updateConfig } from '../hub/identities';
import { listProgress } from '../hub/progress';
import { conversationById, member, setReadSeq } from '../store/conversations';
import { progressActivity } from '../store/progress';
import { durabilityOf } from '../store/durability';
import { connectionSnippets } from './snippets';
import { allActiveHandoffs } from '../store/handoffs';
import { handBack } from '../hub/handoffs';
import { setTaskState } from '../hub/tasks';
import { ownerFloor } from '../hub/floor';
import { decideRequest, listRequests } from '../hub/requests';
import { answerCard } from '../hub/cards';
import { ownerFileUrl, readFile, verifyFileToken } from '../hub/files';
import { setFileReader } from './files-door';


export type ActionHandler = (hub: Hub, input: any) => unknown;

const actions = new Map<string, ActionHandler>();

/** Contract modules add owner-side actions here (requests, cards, handoffs, tasks, floor, files). */
export function registerOwnerActions(map: Partial<Record<OwnerAction, ActionHandler>>): void {
  for (const [k, v] of Object.entries(map)) actions.set(k, v!);
}

export function ownerActionNames(): string[] {
  return Object.keys(OWNER_ACTIONS).filter((a) => actions.has(a));
}

/**
 * Validates and runs one owner action. Its answer (and error) is what the owner reads, over IPC and
 * HTTP alike: every string in it passes through visibleText (no bidi overrides or invisible characters).
 */
export async function runOwnerAction(hub: Hub, action: string, raw: unknown): Promise<unknown> {
  try {
    return visibleDeep(await runOwnerActionRaw(hub, action, raw));
  } catch (err) {
    if (!isHubError(err)) throw err;
    throw new HubError(err.code, visibleText(err.message), visibleText(err.nextStep), err.details && visibleDeep(err.details));
  }
}

async function runOwnerActionRaw(hub: Hub, action: string, raw: unknown): Promise<unknown> {
  const spec = (OWNER_ACTIONS as Record<string, { input: { safeParse(v: unknown): any } }>)[action];
  const fn = actions.get(action);
  if (!spec || !fn) {
    throw new HubError('not_found', `No owner action ${JSON.stringify(action)}.`, 'See `perch owner --help` or docs/owner-api.md for the actions.');
  }
  const deep = tooDeep(raw, LIMITS.maxJsonDepth); // before zod or anything else walks it
  if (deep !== undefined) {
    throw new HubError('invalid_argument', `Invalid input for ${action}: ${deep}: arrays and objects are nested more than ${LIMITS.maxJsonDepth} levels deep.`, 'Nest the input less deeply.');
  }
  const parsed = spec.input.safeParse(raw ?? {});
  if (!parsed.success) {
    const detail = parsed.error.issues.map((i: { path: unknown[]; message: string }) => `${i.path.length ? i.path.join('.') : '(input)'}: ${i.message}`).join('; ');
    throw new HubError('invalid_argument', `Invalid input for ${action}: ${detail}`, `Check the input of ${action} in docs/owner-api.md.`);
  }
  try {
    return await fn(hub, parsed.data);
  } catch (err) {
    // A full or failing disk: storage_full (nothing was saved), not a failure of the hub.
    throw hub.storageFailure(err) ?? err;
  }
}

/** The owner joins a conversation before speaking in it (the owner may read everything, but speaks as a member). */
function ensureOwnerMember(hub: Hub, convId: string): void {
  hub.write(() => {
    const conv = conversationById(hub.db, convId);
    if (!conv) throw new HubError('not_found', `No conversation ${convId}.`, 'Pick a conversation from the list.');
    if (member(hub.db, convId, hub.ownerId)) return;
    joinConversation(hub, hub.ownerId, convId, hub.ownerId, { role: 'owner' });
  });
}

function requireConversation(hub: Hub, convId: string) {
  const conv = conversationById(hub.db, convId);
  if (!conv) throw new HubError('not_found', `No conversation ${convId}.`, 'Pick a conversation from the list.');
  return conv;
}

registerOwnerActions({
  'hub.info': (hub) => ({
    owner: hub.ref(hub.ownerId),
    version: PERCH_VERSION,
    mcp_url: `${hub.baseUrl}/mcp`,
    base_url: hub.baseUrl,
    tool_schema_version: TOOL_SCHEMA_VERSION,
    agents: listAgents(hub).length,
    waiting_agents: hub.bus.waitingCount(),
    durability: durabilityOf(hub.db),
  }),
  'hub.storage': (hub) => ({ storage: hub.storage }),
  'conversations.list': (hub) => ({ conversations: listAllConversations(hub) }),
  'conversations.get': (hub, a) => ({ conversation: conversationView(hub, requireConversation(hub, a.conv_id), hub.ownerId) }),
  'conversations.history': (hub, a) => getHistory(hub, hub.ownerId, a.conv_id, a, true),
  'conversations.thread': (hub, a) => getThread(hub, hub.ownerId, a.conv_id, a.thread_id, a, true),
  'conversations.search': (hub, a) => search(hub, hub.ownerId, a, true),
  'conversations.open_direct': (hub, a) => ({ conversation: openDirect(hub, hub.ownerId, a.user) }),
  'conversations.create_group': (hub, a) => ({ conversation: createGroup(hub, hub.ownerId, a.title, a.members) }),
  'conversations.create_task': (hub, a) => ({ conversation: createTask(hub, hub.ownerId, a.title, a.members, a.assignee) }),
  'conversations.add_member': (hub, a) => {
    ensureOwnerMember(hub, a.conv_id);
    return { conversation: addMember(hub, hub.ownerId, a.conv_id, a.user, a.history) };
  },
  'conversations.mark_read': (hub, a) => {
    requireConversation(hub, a.conv_id);
    hub.write(() => setReadSeq(hub.db, a.conv_id, hub.ownerId, a.seq));
    return { conv_id: a.conv_id, read_seq: a.seq };
  },
  'messages.send': (hub, a) => {
    ensureOwnerMember(hub, a.conv_id);
    return sendMessage(hub, hub.ownerId, a);
  },
  'messages.edit': (hub, a) => editMessage(hub, hub.ownerId, a.msg_id, a.text),
  'messages.recall': (hub, a) => recallMessage(hub, hub.ownerId, a.msg_id),
  'messages.react': (hub, a) => {
    ensureOwnerMember(hub, a.conv_id);
    return react(hub, hub.ownerId, a.conv_id, a.msg_id, a.key, a.on);
  },
  'messages.pin': (hub, a) => {
    ensureOwnerMember(hub, a.conv_id);
    return pin(hub, hub.ownerId, a.conv_id, a.msg_id, a.on);
  },
  'messages.pins': (hub, a) => listPins(hub, hub.ownerId, a.conv_id, undefined, true),
  'notes.send': (hub, a) =>
    hub.write(() => {
      const agent = findAgent(hub, a.agent);
      if (a.conv_id) requireConversation(hub, a.conv_id);
      const { seq, at } = hub.emit(agent.inbox_id!, 'owner.note', hub.ownerId, { data: { text: a.text, about_conv_id: a.conv_id ?? null }, wake: [agent.id] });
      return { agent: agent.name, conv_id: agent.inbox_id, seq, at };
    }),
  'agents.list': (hub) => ({ agents: listAgents(hub) }),
  'agents.add': (hub, a) => {
    const { agent, key } = addAgent(hub, a);
    return { agent, key, snippets: connectionSnippets(`${hub.baseUrl}/mcp`, agent.name, key) };
  },
  'agents.update_config': (hub, a) => {
    const { agent, ...patch } = a;
    return { agent: updateConfig(hub, agent, patch) };
  },
  'agents.rotate_key': (hub, a) => {
    const { agent, key } = rotateKey(hub, a.agent);
    return { agent, key, snippets: connectionSnippets(`${hub.baseUrl}/mcp`, agent.name, key) };
  },
  'agents.revoke': (hub, a) => ({ agent: revokeAgent(hub, a.agent) }),
  'progress.list': (hub, a) => ({ progress: listProgress(hub, a) }),
  'progress.activity': (hub, a) => {
    const minutes = a.minutes ?? 30;
    const now = hub.now();
    const since = now - minutes * 60_000;
    const rows = progressActivity(hub.db, since);
    const firstMinute = Math.floor(since / 60_000);
    const agents = listAgents(hub).map((ag) => {
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
      return { agent: { id: ag.id, name: ag.name }, per_minute: buckets, errors_per_minute: errors, last: last ?? null, waiting: hub.bus.isWaiting(ag.id), revoked: ag.revoked };
    });
    return { minutes, until: now, agents };
  },
});

export { agentSummary };

// ---- handoffs, tasks, floor -------------------------------------------------------------

registerOwnerActions({
  'handoffs.list': (hub) => ({
    handoffs: allActiveHandoffs(hub.db).map((h) => ({
      conv_id: h.conv_id,
      agent: hub.ref(h.agent_id),
      to: hub.ref(h.to_user),
      note: h.note,
      at: h.at,
      title: conversationView(hub, conversationById(hub.db, h.conv_id)!, hub.ownerId).title,
    })),
  }),
  'handoffs.hand_back': (hub, a) => handBack(hub, hub.ownerId, a),
  'tasks.set': (hub, a) => setTaskState(hub, hub.ownerId, a),
  'floor.set': (hub, a) => ownerFloor(hub, hub.ownerId, a),
});

// ---- requests, cards, files ---------------------------------------------------------------

setFileReader({ verify: verifyFileToken, read: readFile });

registerOwnerActions({
  'requests.list': (hub, a) => ({ requests: listRequests(hub, { state: a.state }) }),
  'requests.decide': (hub, a) => ({ request: decideRequest(hub, hub.ownerId, a) }),
  'cards.answer': (hub, a) => answerCard(hub, hub.ownerId, a),
  'files.url': (hub, a) => ownerFileUrl(hub, a.file_id, a.variant ?? 'original'),
});
