// The owner answers one of an agent's permission prompts "always": rules.add with the prompt's request_id adds the
// standing rule for that agent and tool (hub/features/requests/permission-rules.ts) and, while the prompt is pending,
// decides it by the rule at once (hub/features/requests/owner-decisions.ts), so the waiting hook gets the answer too.
import type { FeaturesHub } from '../services';
import { HubError } from '../../../../shared/errors';
import type { OwnerRequestView } from '../../../../shared/features/requests';
import {
  PERMISSION_PROMPT_SOURCE,
  commandOf,
  ruleText,
  type PermissionRuleView,
  type RuleLifetime,
  type RuleScope,
} from '../../../../shared/features/permission-prompts';
import { decideByRules } from '../../../../shared/shell/rules';
import { setDecidedByRule } from '../../../store/tables/agents/rule-suggestions';
import { recordPermissionRuleUse } from '../../../store/tables/agents/permission-rules';
import { parseShell } from '../rules/shell-parser';
import { promptCut } from '../../../../shared/api/prompt-filing';
import { addPermissionRule, requireMayAdd, type RuleAuthor } from './permission-rules';
import { decideRequest, getRequestForOwner } from './owner-decisions';

export interface RuleAddInput {
  agent?: string;
  tool?: string;
  request_id?: string;
  command_prefix?: string;
  behavior: 'allow' | 'deny';
  any_options?: boolean;
  exact?: boolean;
  scope?: RuleScope;
  folder?: string;
  lifetime?: RuleLifetime;
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
    if (input.lifetime === 'session') {
      throw new HubError(
        'invalid_argument',
        'lifetime session: only a rule added from a prompt (request_id) knows its harness session.',
        'Say today or always.',
      );
    }
    return addPermissionRule(
      hub,
      {
        agent: input.agent,
        tool: input.tool,
        command_prefix: input.command_prefix,
        behavior: input.behavior,
        any_options: input.any_options,
        exact: input.exact,
        scope: input.scope,
        folder: input.folder,
        lifetime: input.lifetime,
      },
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
    const prefix = input.command_prefix?.trim().replace(/[ \t]+/g, ' ');
    const draft = {
      tool: ctx.tool_name,
      command_prefix: prefix === undefined ? null : prefix,
      behavior: input.behavior,
      any_options: input.any_options,
      exact: input.exact,
    };
    if (prefix !== undefined && decideByRules([draft], ctx.tool_name, commandOf(ctx.tool_input), parseShell).decision !== input.behavior) {
      throw new HubError(
        'invalid_argument',
        `command_prefix: "${prefix}" does not cover this prompt's command${input.behavior === 'allow' ? ' (an allow covers only literal simple commands that start with its words, with no option it does not name, no wrapper, -c string, substitution or redirection to a file)' : ''}.`,
        "Give the start of the prompt's command, or leave command_prefix out for every prompt of the tool.",
      );
    }
    const cwd = typeof ctx.cwd === 'string' ? ctx.cwd : undefined;
    if (input.scope === 'folder' && input.folder === undefined && cwd === undefined) {
      throw new HubError(
        'invalid_argument',
        `scope folder: the prompt ${req.request_id} did not say which folder its agent works in.`,
        'Give folder, or choose another scope.',
      );
    }
    const out = addPermissionRule(
      hub,
      {
        agent: req.requester.id,
        tool: ctx.tool_name,
        command_prefix: prefix,
        behavior: input.behavior,
        any_options: input.any_options,
        exact: input.exact,
        scope: input.scope,
        folder: input.scope === 'folder' ? (input.folder ?? cwd) : undefined,
        lifetime: input.lifetime,
        session_id: typeof ctx.session_id === 'string' ? ctx.session_id : undefined,
        from_request_id: req.request_id,
      },
      by,
    );
    if (req.state !== 'pending') return out;
    const decided = decideRequest(hub, hub.ownerId, {
      request_id: req.request_id,
      decision: input.behavior === 'allow' ? 'approve' : 'reject',
      comment: `standing rule ${out.rule.rule_id}: ${ruleText(out.rule)}`,
    });
    setDecidedByRule(hub.db, req.request_id, out.rule.rule_id);
    recordPermissionRuleUse(hub.db, out.rule.rule_id, hub.now());
    return { ...out, request: decided };
  });
}
