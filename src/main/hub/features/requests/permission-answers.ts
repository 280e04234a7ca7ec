// The owner answers one of an agent's permission prompts "always": rules.add with the prompt's request_id adds the
// standing rule for that agent and tool (hub/features/requests/permission-rules.ts) and, while the prompt is pending,
// decides it by the rule at once (hub/features/requests/owner-decisions.ts), so the waiting hook gets the answer too.
import type { FeaturesHub } from '../services';
import { HubError } from '../../../../shared/errors';
import type { OwnerRequestView } from '../../../../shared/features/requests';
import {
  PERMISSION_PROMPT_SOURCE,
  commandOf,
  ruleMatches,
  ruleText,
  type PermissionRuleView,
} from '../../../../shared/features/permission-prompts';
import { promptCut } from '../../../../shared/api/prompt-filing';
import { addPermissionRule, requireMayAdd, type RuleAuthor } from './permission-rules';
import { decideRequest, getRequestForOwner } from './owner-decisions';

export interface RuleAddInput {
  agent?: string;
  tool?: string;
  request_id?: string;
  command_prefix?: string;
  behavior: 'allow' | 'deny';
}

/** rules.add: a rule from agent and tool, or from a prompt (request_id), which it then decides if still pending. */
export function addRuleOrAnswer(
  hub: FeaturesHub,
  input: RuleAddInput,
  by: RuleAuthor,
): { rule: PermissionRuleView; added: boolean; request?: OwnerRequestView } {
  if (input.request_id === undefined) {
    if (input.agent === undefined || input.tool === undefined) {
      throw new HubError(
        'invalid_argument',
        'rules.add needs agent and tool, or the request_id of a permission prompt.',
        'Name the agent and the tool (e.g. Bash), or answer a prompt with its request_id.',
      );
    }
    return addPermissionRule(
      hub,
      { agent: input.agent, tool: input.tool, command_prefix: input.command_prefix, behavior: input.behavior },
      by,
    );
  }
  return hub.write(() => {
    requireMayAdd(input.behavior, by);
    const req = getRequestForOwner(hub, input.request_id!);
    const ctx = (req.context && typeof req.context === 'object' ? req.context : {}) as Record<string, unknown>;
    if (!req.door || ctx.source !== PERMISSION_PROMPT_SOURCE || typeof ctx.tool_name !== 'string' || req.requester.kind !== 'agent') {
      throw new HubError(
        'invalid_argument',
        `request_id: ${req.request_id} is not an agent's permission prompt (filed by perch hook permission-request or perch channel).`,
        'Add the rule with agent and tool instead.',
      );
    }
    if (promptCut(ctx)) {
      throw new HubError(
        'invalid_argument',
        `request_id: ${req.request_id} was too long to show whole; a standing rule never decides such a prompt.`,
        'Decide this prompt once (requests.decide), or add the rule with agent and tool.',
      );
    }
    if (input.agent !== undefined && input.agent !== req.requester.name && input.agent !== req.requester.id) {
      throw new HubError(
        'invalid_argument',
        `agent: the prompt ${req.request_id} is ${req.requester.name}'s, not ${input.agent}'s.`,
        'Leave agent out with request_id.',
      );
    }
    if (input.tool !== undefined && input.tool !== ctx.tool_name) {
      throw new HubError(
        'invalid_argument',
        `tool: the prompt ${req.request_id} is for ${ctx.tool_name}, not ${input.tool}.`,
        'Leave tool out with request_id.',
      );
    }
    const prefix = input.command_prefix?.trim();
    const draft = { tool: ctx.tool_name, command_prefix: prefix === undefined ? null : prefix, behavior: input.behavior };
    if (prefix !== undefined && !ruleMatches(draft, ctx.tool_name, commandOf(ctx.tool_input))) {
      throw new HubError(
        'invalid_argument',
        `command_prefix: "${prefix}" does not cover this prompt's command${input.behavior === 'allow' ? ' (an allow never covers quotes, backslashes, ; & | ` $ ( ) < > * ? [ { ~, a line break, or an option that runs other code such as --script-shell or git -c)' : ''}.`,
        "Give the start of the prompt's command, or leave command_prefix out for every prompt of the tool.",
      );
    }
    const out = addPermissionRule(
      hub,
      { agent: req.requester.id, tool: ctx.tool_name, command_prefix: prefix, behavior: input.behavior },
      by,
    );
    if (req.state !== 'pending') return out;
    const decided = decideRequest(hub, hub.ownerId, {
      request_id: req.request_id,
      decision: input.behavior === 'allow' ? 'approve' : 'reject',
      comment: `standing rule ${out.rule.rule_id}: ${ruleText(out.rule)}`,
    });
    return { ...out, request: decided };
  });
}
