// The gates of an agent's call, in order, in one place: AGENT_GATES below is the whole list, each gate named, and its
// order is the order an agent meets them. Adding a gate is one line in it. The first gate that refuses answers the
// call with its error (codes and messages are part of the agent contract: tests check them, test/hub/gates.test.ts).
// What a gate needs of a tool comes from the catalog's declaration of it (src/shared/api/catalog.ts: scope, readOnly),
// never from the tool's code.
//
// A gate's stage says what it reads, and so where it is asked (each stage is asked by passGates or gateRefusal at one
// kind of place):
//   key           the key and the tool: the MCP door asks it before it reads the arguments (src/main/mcp/endpoint.ts),
//                 and the hub for every call, whichever door it came through (hub/tools/tools.ts callAgentTool)
//   call          the agent's state: callAgentTool, before the tool's handler runs
//   hold          the handler of a tool that carries the agent's words (the tool map wraps them with reviewable(),
//                 hub/features/review/review.ts), after its prepare: a gate answering 'hold' has the words held for the owner
//                 instead of posted; the held path then passes the write stages below too, so holding is no way round them
//   conversation  in the write's transaction, once the conversation and the caller's membership are read
//                 (hub/talk/messages.ts, hub/features/{cards,files,requests,review}.ts)
//   words         in the write's transaction, with the words, once they are checked (hub/talk/messages.ts
//                 insertMessageWithEvent, hub/features/review/review.ts)
// The write stages run for people too (the owner's sends use the same writes); their gates let a person through.
import type { TalkHub } from './services';
import type { HubError } from '../../../shared/errors';
import { TOOL_BY_NAME, type ToolName } from '../../../shared/api/catalog';
import type { MessageRow } from '../../store/tables/talk/messages';
import { MAIN_KEY, scopeRefusal, type KeyAuth } from '../identity/agent-keys';
import { refuseIfPaused } from '../control/control';
import { reviewOn } from '../control/review-switch';
import { brakeCheck, type BrakeInput } from '../control/brakes';
import { requireMaySpeak, type Access } from './access';
import { archivedRefusal } from './archive';

/** One call of an agent as the key, call and hold stages see it. */
export interface GateCall {
  hub: TalkHub;
  agentId: string;
  tool: ToolName;
  /** The key it came with (absent: the agent's own key, every scope). */
  key?: KeyAuth;
  /** The call's arguments, checked by the tool's schema (stage call; the key stage is asked before they are read). */
  args?: Readonly<Record<string, unknown>>;
}

/** One write as the conversation stage sees it: who writes (an agent, or the owner: people pass the same writes), where (access: the conversation and the writer's membership). */
export interface GateWrite {
  hub: TalkHub;
  userId: string;
  access: Access;
}

/** One write as the words stage sees it: also the words, and the message they reply to (if reply_to named one, already read). */
export interface GateWords extends GateWrite {
  words: BrakeInput;
  replied?: MessageRow;
}

interface StageInput {
  key: GateCall;
  call: GateCall;
  hold: GateCall;
  conversation: GateWrite;
  words: GateWords;
}
export type GateStage = keyof StageInput;

/** A gate's answer: it throws its refusal (a HubError); 'hold' (stage hold) holds the words for the owner; else the call goes on. */
type Verdict = void | 'hold';

/** A named gate of one stage (see the top of this file). */
export type Gate = { [S in GateStage]: { name: string; stage: S; check: (input: StageInput[S]) => Verdict } }[GateStage];

const gate = <S extends GateStage, N extends string>(stage: S, name: N, check: (input: StageInput[S]) => Verdict) => ({
  stage,
  name,
  check,
});

/** Every gate of an agent's call, in order. */
export const AGENT_GATES = [
  // scoped keys: the tool's scope (catalog) against the key's (hub/identity/agent-keys.ts); code forbidden
  gate('key', 'scope', ({ tool, key }) => {
    const refused = scopeRefusal(key ?? MAIN_KEY, TOOL_BY_NAME.get(tool)!.scope, tool);
    if (refused) throw refused;
  }),
  // owner control: a paused agent's writing tools are refused (hub/control/control.ts); code paused
  gate('call', 'paused', ({ hub, agentId, tool }) => refuseIfPaused(hub, agentId, tool)),
  // archived conversations (hub/talk/archive.ts): a writing tool (not readOnly) that names an archived conversation the
  // agent is in (conv_id, or the conversation of its msg_id or request_id) is refused; code archived. Before review, so
  // nothing is held for a conversation that is read-only
  gate('call', 'archived', ({ hub, agentId, tool, args }) => {
    const refused = archivedRefusal(hub, agentId, tool, args);
    if (refused) throw refused;
  }),
  // review mode (owner control): the words are held for the owner instead of posted (hub/features/review/review.ts reviewable)
  gate('hold', 'review', ({ hub, agentId }) => (reviewOn(hub, agentId) ? 'hold' : undefined)),
  // notes channel (forbidden), ended task, handoff, someone else's floor (silenced) (hub/talk/access.ts)
  gate('conversation', 'may-speak', ({ hub, userId, access }) => requireMaySpeak(hub, userId, access)),
  // loop, duplicate, budget, notice; code brake (hub/control/brakes.ts); a person's send is never braked (not asked)
  gate('words', 'brakes', ({ hub, userId, access, words, replied }) => brakeCheck(hub, userId, access.conv.id, words, replied)),
] as const satisfies readonly Gate[];

/** The gates' names, from the list. */
export type GateName = (typeof AGENT_GATES)[number]['name'];

/** The stages in the order a call meets them: the list's order must agree (a gate placed against it fails at load). */
const STAGES: readonly GateStage[] = ['key', 'call', 'hold', 'conversation', 'words'];
const BY_STAGE = new Map<GateStage, Gate[]>();
(AGENT_GATES as readonly Gate[]).forEach((g, i, all) => {
  if (i > 0 && STAGES.indexOf(g.stage) < STAGES.indexOf(all[i - 1]!.stage)) {
    throw new Error(
      `AGENT_GATES: gate ${g.name} (stage ${g.stage}) is placed after a gate of a later stage; a stage's gates are asked together, in the stages' order`,
    );
  }
  BY_STAGE.set(g.stage, [...(BY_STAGE.get(g.stage) ?? []), g]);
});

/** Asks one stage's gates, in order: throws the first refusal; 'hold' when a gate holds the words. */
export function passGates<S extends GateStage>(stage: S, input: StageInput[S]): Verdict {
  for (const g of BY_STAGE.get(stage) ?? []) {
    if ((g.check as (i: StageInput[S]) => Verdict)(input) === 'hold') return 'hold';
  }
}

/** The first gate of these stages (key and call: the ones before a handler) that refuses the call, and its error; undefined when every one lets it through. */
export function gateRefusal(
  call: GateCall,
  stages: ReadonlyArray<'key' | 'call'> = ['key', 'call'],
): { gate: GateName; error: HubError } | undefined {
  for (const stage of stages) {
    for (const g of BY_STAGE.get(stage) ?? []) {
      try {
        (g.check as (c: GateCall) => Verdict)(call);
      } catch (err) {
        return { gate: g.name as GateName, error: err as HubError };
      }
    }
  }
  return undefined;
}
