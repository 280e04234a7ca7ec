// The gates of an agent's call, in order, in one place. Every tool call of an agent (hub/tools/tools.ts
// callAgentTool, whichever door it came through) passes AGENT_GATES before its handler runs (the MCP door
// asks the 'key' stage before it reads the arguments); the first gate that refuses answers the call with its error (codes and messages are part of the agent contract: tests check them).
// Adding a gate is one line in AGENT_GATES; what a gate needs of a tool comes from the catalog's declaration of it
// (src/shared/catalog.ts: scope, readOnly), never from the tool's code.
//
// The whole order of an agent's write, and where each part runs:
//   scope      the key's scopes against the tool's (ToolSpec.scope)          forbidden    AGENT_GATES (hub/identity/agent-keys.ts)
//   paused     a paused agent's writing tools are refused                     paused       AGENT_GATES (hub/control/control.ts)
//   archived   (no archived state yet: an archived agent is refused here)     -            AGENT_GATES
//   review     review mode holds the words for the owner instead of posting  (held)       the tools the tool map wraps with
//                                                                                          reviewable() (hub/features/review.ts)
//   may-speak  notes channel, ended task, handoff, someone else's floor       forbidden,   in the write, once the conversation
//                                                                             silenced     is read (hub/talk/access.ts requireMaySpeak)
//   brakes     loop, duplicate, budget, notice                                brake        in the write, with the words
//                                                                                          (hub/control/brakes.ts brakeCheck)
// review, may-speak and brakes need the conversation and the words a call carries, read in the call's transaction
// (a held send runs may-speak and brakes too, so holding is no way round them).
import type { Hub } from '../core/hub';
import type { HubError } from '../../../shared/errors';
import { TOOL_BY_NAME, type ToolName } from '../../../shared/catalog';
import { MAIN_KEY, scopeRefusal, type KeyAuth } from '../identity/agent-keys';
import { refuseIfPaused } from '../control/control';

/** One call of an agent as the gates see it. */
export interface GateCall {
  hub: Hub;
  agentId: string;
  tool: ToolName;
  /** The key it came with (absent: the agent's own key, every scope). */
  key?: KeyAuth;
}

/**
 * A named gate: check throws its refusal (a HubError) when the call may not go on. stage 'key': it reads only the
 * key and the tool, so the MCP door asks it before it reads the arguments (a call its key may not make is refused
 * whatever its arguments); 'call': the agent's state.
 */
export interface Gate {
  name: 'scope' | 'paused' | 'archived';
  stage: 'key' | 'call';
  check: (call: GateCall) => void;
}

/** The gates every agent call passes, in order. */
export const AGENT_GATES: readonly Gate[] = [
  {
    stage: 'key',
    name: 'scope', // scoped keys: the tool's scope (catalog) against the key's (hub/identity/agent-keys.ts)
    check: ({ tool, key }) => {
      const refused = scopeRefusal(key ?? MAIN_KEY, TOOL_BY_NAME.get(tool)!.scope, tool);
      if (refused) throw refused;
    },
  },
  {
    stage: 'call',
    name: 'paused', // owner control: a paused agent's writing tools are refused (hub/control/control.ts)
    check: ({ hub, agentId, tool }) => refuseIfPaused(hub, agentId, tool),
  },
  {
    stage: 'call',
    name: 'archived', // no archived state yet: an archived agent (or conversation) will be refused here
    check: () => undefined,
  },
];

/** The first gate (of these stages) that refuses the call, and its error; undefined when every gate lets it through. */
export function gateRefusal(call: GateCall, stages: ReadonlyArray<Gate['stage']> = ['key', 'call']): { gate: Gate['name']; error: HubError } | undefined {
  for (const g of AGENT_GATES) {
    if (!stages.includes(g.stage)) continue;
    try {
      g.check(call);
    } catch (err) {
      return { gate: g.name, error: err as HubError };
    }
  }
  return undefined;
}
