// The agent contract's tools as hub services: one handler per tool, with idempotent retries.
// This module knows nothing of MCP or HTTP; the MCP door validates arguments and calls callAgentTool (hub/tools/tools.ts).
import crypto from 'node:crypto';
import type { FeaturesHub } from '../features/services';
import { HubError } from '../../../shared/errors';
import { LIMITS } from '../../../shared/limits';
import { toolSchemaVersion, type ToolName } from '../../../shared/api/catalog';
import { idempotentResult, saveIdempotentResult } from '../../store/tables/talk/messages';
import { resolveUser } from '../talk/access';
import { addMember, createGroup, listConversations, openDirect } from '../talk/conversations';
import { editMessage, getHistory, getThread, listPins, react, recallMessage, search, sendMessage } from '../talk/messages';
import { getUpdates } from '../talk/delivery';
import { reportProgress } from '../features/progress/progress';
import { agentBrakes } from '../control/brakes';
import type { AgentConfig } from '../../../shared/agents/agents';
import { PERCH_VERSION } from '../../../shared/version';
import { reviewStatus } from '../features/review/review';
import { controlForAgent } from '../control/control';
import { presenceOf } from '../control/presence';
import type { PlaceName } from '../../../shared/agents/places';
import type { AgentCtx, ToolHandler, ToolHandlers } from '../identity/tool-handler';
import { whoamiSessions } from '../talk/agent-sessions';
import { canonicalJson } from '../../../shared/text/canonical-json';

const ID_FIELDS = ['client_msg_id', 'client_req_id', 'operation_id'] as const;

/**
 * Runs one tool's handler for an agent. Writes carrying an id run at most once: a retry returns the
 * first result. hub/tools/tools.ts looks the handler up (callAgentTool) and calls this.
 */
export async function runToolHandler(
  ctx: AgentCtx<FeaturesHub>,
  name: ToolName,
  h: ToolHandler<ToolName, unknown, FeaturesHub>,
  args: Record<string, unknown>,
): Promise<unknown> {
  const { hub, agentId } = ctx;
  const idField = ID_FIELDS.find((f) => typeof args[f] === 'string');
  if (!idField) {
    const prepared = h.prepare ? await h.prepare(ctx, args as never) : undefined;
    return h.run(ctx, args as never, prepared);
  }
  const opId = args[idField] as string;
  const rest = { ...args };
  delete rest[idField];
  const inputHash = crypto.createHash('sha256').update(canonicalJson(rest)).digest('base64url');
  const replay = (): unknown | undefined => {
    const prior = idempotentResult(hub.db, agentId, name, opId);
    if (!prior) return undefined;
    if (prior.input_hash !== inputHash) {
      throw new HubError(
        'idempotency_conflict',
        `${idField} ${JSON.stringify(opId)} was used before with a different input.`,
        `Retry with the original input, or use a new ${idField} for a different action.`,
      );
    }
    return JSON.parse(prior.result);
  };
  const early = replay();
  if (early !== undefined) return early;
  const prepared = h.prepare ? await h.prepare(ctx, args as never) : undefined;
  return hub.write(() => {
    const again = replay();
    if (again !== undefined) return again;
    const result = h.run(ctx, args as never, prepared);
    saveIdempotentResult(hub.db, agentId, name, opId, inputHash, JSON.stringify(result), hub.now());
    return result;
  });
}

/** whoami's connected_from: where the agent's latest request came from (the door noted it when the key logged in). */
function connectedFrom(hub: FeaturesHub, agentId: string): { connected_from?: { place: PlaceName; via: string; address: string } } {
  const from = presenceOf(hub, agentId).from;
  return from ? { connected_from: { place: from.place as PlaceName, via: from.via, address: from.address } } : {};
}

// ---- identity and messaging -----------------------------------------------------------------

export const coreTools = {
  whoami: {
    run: ({ hub, agentId, key }, a) => {
      const me = hub.user(agentId);
      const owner = hub.owner;
      return {
        ...whoamiSessions(hub, agentId, a, key), // instance names and this key's scopes (hub/talk/agent-sessions.ts)
        agent: { id: me.id, name: me.name, kind: me.kind, description: me.description },
        owner: { id: owner.id, name: owner.name, kind: owner.kind },
        config_version: me.config_version,
        limits: LIMITS,
        tool_schema_version: toolSchemaVersion(),
        review_mode: reviewStatus(hub, agentId), // review mode (hub/features/review/review.ts)
        brakes: agentBrakes(hub, agentId), // hub/control/brakes.ts
        server: { name: 'perch', version: PERCH_VERSION },
        ...controlForAgent(hub, agentId), // owner control: paused (+ why), daily caps, today's usage (hub/control/control.ts)
        ...connectedFrom(hub, agentId), // where it connects from: local, containers, tailnet (hub/control/presence.ts)
        next_steps: [
          'get_config: read your role and instructions.',
          'list_conversations, then get_updates with wait_secs in a loop; pass back the ack you received.',
          'request_human before anything irreversible or costly.',
        ],
      };
    },
  },
  get_config: {
    run: ({ hub, agentId }) => {
      const me = hub.user(agentId);
      const c = JSON.parse(me.config) as AgentConfig;
      return {
        version: me.config_version,
        role: { name: c.name, description: c.description, instructions: c.instructions },
        skills: c.skills,
        mcp_servers: c.mcp_servers,
        apis: c.apis,
      };
    },
  },
  find_user: {
    run: ({ hub }, a) => {
      const u = resolveUserByName(hub, a.name);
      return { user: { id: u.id, name: u.name, kind: u.kind, description: u.description, is_owner: u.id === hub.ownerId } };
    },
  },
  list_conversations: {
    run: ({ hub, agentId }) => ({ conversations: listConversations(hub, agentId) }),
  },
  get_updates: {
    run: (ctx, a) => getUpdates(ctx.hub, ctx.agentId, a, ctx),
  },
  send_message: {
    run: ({ hub, agentId }, a) => sendMessage(hub, agentId, a),
  },
  edit_message: {
    run: ({ hub, agentId }, a) => editMessage(hub, agentId, a.msg_id, a.text),
  },
  recall_message: {
    run: ({ hub, agentId }, a) => recallMessage(hub, agentId, a.msg_id),
  },
  open_direct: {
    run: ({ hub, agentId }, a) => ({ conversation: openDirect(hub, agentId, a.user) }),
  },
  create_group: {
    run: ({ hub, agentId }, a) => ({ conversation: createGroup(hub, agentId, a.title, a.members) }),
  },
  add_member: {
    run: ({ hub, agentId }, a) => ({ conversation: addMember(hub, agentId, a.conv_id, a.user, a.history) }),
  },
  get_history: {
    run: ({ hub, agentId }, a) => getHistory(hub, agentId, a.conv_id, a),
  },
  get_thread: {
    run: ({ hub, agentId }, a) => getThread(hub, agentId, a.conv_id, a.thread_id, a),
  },
  search: {
    run: ({ hub, agentId }, a) => search(hub, agentId, a),
  },
  progress: {
    run: ({ hub, agentId }, a) => reportProgress(hub, agentId, a),
  },
  react: {
    run: ({ hub, agentId }, a) => react(hub, agentId, a.conv_id, a.msg_id, a.key, true),
  },
  unreact: {
    run: ({ hub, agentId }, a) => react(hub, agentId, a.conv_id, a.msg_id, a.key, false),
  },
  list_pins: {
    run: ({ hub, agentId }, a) => listPins(hub, agentId, a.conv_id, a.limit),
  },
} satisfies ToolHandlers<
  | 'whoami'
  | 'get_config'
  | 'find_user'
  | 'list_conversations'
  | 'get_updates'
  | 'send_message'
  | 'edit_message'
  | 'recall_message'
  | 'open_direct'
  | 'create_group'
  | 'add_member'
  | 'get_history'
  | 'get_thread'
  | 'search'
  | 'progress'
  | 'react'
  | 'unreact'
  | 'list_pins',
  FeaturesHub
>;

function resolveUserByName(hub: FeaturesHub, name: string) {
  const u = resolveUser(hub, name);
  if (u.name !== name) throw new HubError('not_found', `No user named "${name}".`, 'Use the exact user name.');
  return u;
}
