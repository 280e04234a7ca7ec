// Every agent tool's handler, in ONE typed map: a tool of the catalog (src/shared/api/catalog.ts) without a
// handler here, or a misspelt name, is a compile error. Each handler lives in its feature module
// (go-to-definition on a key leads there); the MCP door calls callAgentTool.
import { isReadOnlyKey } from '../../../shared/agents/scoped-keys';
import { HubError } from '../../../shared/errors';
import type { ToolName } from '../../../shared/api/catalog';
import type { FeaturesHub } from '../features/services';
import type { Caller } from '../identity/key-waits';
import { coreTools, runToolHandler } from './agent-tools';
import type { ToolHandler, ToolHandlers } from '../identity/tool-handler';
import { requestTools } from '../features/requests/requests';
import { cardTools } from '../features/cards/cards';
import { handoffTools } from '../features/coordination/handoffs';
import { taskTools } from '../features/coordination/tasks';
import { claimTools } from '../features/coordination/claims';
import { floorTools } from '../features/coordination/floor';
import { stateTools } from '../features/memory/state';
import { contextTools } from '../features/memory/context';
import { fileTools } from '../features/files/files';
import { reviewable } from '../features/review/review';
import { countToolCall } from '../control/control';
import { gateRefusal } from '../talk/gates';
import { notePresence } from '../control/presence';

export const toolHandlers = {
  // identity and messaging (hub/tools/agent-tools.ts)
  whoami: coreTools.whoami,
  get_config: coreTools.get_config,
  list_conversations: coreTools.list_conversations,
  get_updates: coreTools.get_updates,
  send_message: reviewable('send_message', coreTools.send_message), // review mode holds sends (hub/features/review/review.ts)
  edit_message: reviewable('edit_message', coreTools.edit_message), // review mode (hub/features/review/review-calls.ts)
  recall_message: coreTools.recall_message,
  find_user: coreTools.find_user,
  open_direct: coreTools.open_direct,
  create_group: reviewable('create_group', coreTools.create_group), // review mode (hub/features/review/review-calls.ts)
  add_member: coreTools.add_member,
  get_history: coreTools.get_history,
  get_thread: coreTools.get_thread,
  search: coreTools.search,
  progress: coreTools.progress,
  react: reviewable('react', coreTools.react), // review mode (hub/features/review/review-calls.ts)
  unreact: coreTools.unreact,
  list_pins: coreTools.list_pins,
  // asking the owner (hub/features/requests/requests.ts)
  request_human: reviewable('request_human', requestTools.request_human), // review mode (hub/features/review/review-calls.ts)
  get_request: requestTools.get_request,
  cancel_request: requestTools.cancel_request,
  // tasks, claims, floor (hub/features/coordination/tasks.ts, hub/features/coordination/claims.ts, hub/features/coordination/floor.ts)
  create_task: reviewable('create_task', taskTools.create_task), // review mode (hub/features/review/review-calls.ts)
  update_task: reviewable('update_task', taskTools.update_task), // review mode (hub/features/review/review-calls.ts)
  claim: claimTools.claim,
  release_claim: claimTools.release_claim,
  floor_grant: floorTools.floor_grant,
  floor_release: floorTools.floor_release,
  // memory: summaries, context, checkpoints (hub/features/memory/context.ts, hub/features/memory/state.ts)
  put_summary: contextTools.put_summary,
  get_context: contextTools.get_context,
  state_get: stateTools.state_get,
  state_put: stateTools.state_put,
  state_list: stateTools.state_list,
  state_delete: stateTools.state_delete,
  // handoffs, cards, files (hub/features/coordination/handoffs.ts, hub/features/cards/cards.ts, hub/features/files/files.ts)
  handoff: reviewable('handoff', handoffTools.handoff), // review mode (hub/features/review/review-calls.ts)
  send_card: reviewable('send_card', cardTools.send_card), // review mode (hub/features/review/review.ts)
  send_file: reviewable('send_file', fileTools.send_file), // review mode (hub/features/review/review.ts)
  file_url: fileTools.file_url,
} satisfies ToolHandlers<ToolName, FeaturesHub>;

/** What a tool's handler answers (the structuredContent of its MCP result, less request_id): its catalog output schema's type. */
export type { ToolResult } from '../../../shared/api/catalog';

/** The tools with a handler: every tool of the catalog (the map above is checked against it). */
export function implementedTools(): Set<ToolName> {
  return new Set(Object.keys(toolHandlers) as ToolName[]);
}

/** Runs one tool for an agent (arguments already validated by the tool's schema); caller: its signal and key (hub/identity/key-waits.ts). */
export function callAgentTool(
  hub: FeaturesHub,
  agentId: string,
  name: ToolName,
  args: Record<string, unknown>,
  caller: Caller = {},
): Promise<unknown> {
  const h = Object.hasOwn(toolHandlers, name) ? (toolHandlers[name] as ToolHandler<ToolName, unknown, FeaturesHub>) : undefined;
  if (!h) return Promise.reject(new HubError('unknown_tool', `Tool ${name} is not available.`, 'Call tools/list to see the tools.'));
  // The gates before the handler (stages key and call: scope, paused, archived), in the order of AGENT_GATES (hub/talk/gates.ts).
  const refused = gateRefusal({ hub, agentId, tool: name, key: caller.key, args });
  // When it last called and last worked, for the owner's agent state (hub/control/presence.ts); a call its key may
  // not make at all is not the agent working, and a read-only key's call is not the agent at all (shared/agents/scoped-keys.ts).
  const present = refused?.gate !== 'scope' && !isReadOnlyKey(caller.key);
  if (present) notePresence(hub, agentId, name);
  if (refused) return Promise.reject(refused.error);
  // owner control: each agent's tool calls and messages are counted per day, and its caps checked (hub/control/control.ts)
  return runToolHandler({ ...caller, hub, agentId }, name, h, args).then((r) => {
    if (name === 'get_updates' && present) notePresence(hub, agentId, name); // a long wait ended: it was there until now
    countToolCall(hub, agentId, name);
    return r;
  });
}
