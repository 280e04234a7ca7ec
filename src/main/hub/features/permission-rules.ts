// Standing rules for agents' own permission prompts: the owner answers "always allow / always deny this tool
// (or this command prefix) for this agent" once (owner actions rules.list, rules.add, rules.remove), and a later
// prompt it matches is decided at once when the hook files it (createRequest, hub/features/requests.ts): the
// request is recorded already decided, by the owner, with the rule in its comment, and nobody is notified.
// A request counts as a prompt only as the hook files it: kind approve for the owner, context.source
// permission_prompt, and the title the hook derives from the tool and its input (shared/permission-prompts.ts),
// so an agent cannot dress another question up as an allowed prompt: the approval it gets says what was allowed.
import type { Hub } from '../core/hub';
import { newId } from '../core/hub';
import { HubError } from '../../../shared/errors';
import { findAgent } from '../identity/identities';
import {
  deletePermissionRule, insertPermissionRule, listPermissionRules, permissionRuleById, permissionRulesFor, samePermissionRule,
  type PermissionRuleRow,
} from '../../store/permission-rules';
import { PERMISSION_PROMPT_SOURCE, commandOf, decidingRule, neverAllowed, promptTitle, ruleText, type PermissionRuleView } from '../../../shared/permission-prompts';

const MAX_TOOL_CHARS = 200;
const MAX_PREFIX_CHARS = 1000;

function ruleView(hub: Hub, r: PermissionRuleRow): PermissionRuleView {
  const a = hub.ref(r.agent_id);
  return { rule_id: r.id, agent: { id: a.id, name: a.name }, tool: r.tool, command_prefix: r.command_prefix, behavior: r.behavior, created_at: r.created_at };
}

export interface AddRuleInput {
  agent: string;
  tool: string;
  command_prefix?: string;
  behavior: 'allow' | 'deny';
}

/** rules.add: a standing rule for one agent; the same rule again is returned as it is (added: false). */
export function addPermissionRule(hub: Hub, input: AddRuleInput): { rule: PermissionRuleView; added: boolean } {
  return hub.write(() => {
    const agent = findAgent(hub, input.agent);
    const tool = typeof input.tool === 'string' ? input.tool.trim() : '';
    if (!tool || tool.length > MAX_TOOL_CHARS) {
      throw new HubError('invalid_argument', `tool: the harness's tool name (e.g. Bash, Edit), 1 to ${MAX_TOOL_CHARS} characters.`, 'Name the tool as the prompt shows it.');
    }
    if (input.behavior !== 'allow' && input.behavior !== 'deny') {
      throw new HubError('invalid_argument', 'behavior: must be allow or deny.', 'Say allow or deny.');
    }
    let prefix: string | null = null;
    if (input.command_prefix !== undefined) {
      prefix = typeof input.command_prefix === 'string' ? input.command_prefix.trim() : '';
      if (!prefix || prefix.length > MAX_PREFIX_CHARS) {
        throw new HubError('invalid_argument', `command_prefix: the start of the command, 1 to ${MAX_PREFIX_CHARS} characters.`, 'Leave it out for every prompt of the tool.');
      }
      // An allow never matches a command with quotes, expansion or shell control syntax, so such a prefix would allow nothing.
      const never = input.behavior === 'allow' ? neverAllowed(prefix) : undefined;
      if (never) {
        throw new HubError('invalid_argument', `command_prefix: an allow rule's prefix must be plain words, and this one cannot match anything: ${never}.`, 'Allow the plain command only (no quotes, backslashes, ; & | ` $ ( ) < > * ? [ { ~), or make it a deny rule.');
      }
    }
    const row = { agent_id: agent.id, tool, command_prefix: prefix, behavior: input.behavior };
    const same = samePermissionRule(hub.db, row);
    if (same) return { rule: ruleView(hub, same), added: false };
    const rule: PermissionRuleRow = { id: newId('pr'), ...row, created_at: hub.now() };
    insertPermissionRule(hub.db, rule);
    return { rule: ruleView(hub, rule), added: true };
  });
}

/** rules.list: every standing rule, or one agent's. */
export function listPermissionRuleViews(hub: Hub, agent?: string): PermissionRuleView[] {
  const agentId = agent === undefined ? undefined : findAgent(hub, agent).id;
  return listPermissionRules(hub.db, agentId).map((r) => ruleView(hub, r));
}

/** rules.remove: later prompts it matched go to the owner again. */
export function removePermissionRule(hub: Hub, ruleId: string): { rule: PermissionRuleView } {
  return hub.write(() => {
    const r = permissionRuleById(hub.db, ruleId);
    if (!r) throw new HubError('not_found', `No standing rule ${ruleId}.`, 'See rules.list for the rules and their ids.');
    deletePermissionRule(hub.db, r.id);
    return { rule: ruleView(hub, r) };
  });
}

/**
 * The standing rule that decides this new request at once, if it is a permission prompt as the hook files it
 * (see the top of this file) and a rule of the requester matches its tool and command.
 */
export function standingDecision(hub: Hub, requesterId: string, req: { kind: string; title: string; context: unknown; assignees: readonly string[] }): { behavior: 'allow' | 'deny'; comment: string } | undefined {
  if (req.kind !== 'approve' || req.assignees.length !== 1 || req.assignees[0] !== hub.ownerId) return undefined;
  const ctx = req.context;
  if (!ctx || typeof ctx !== 'object' || Array.isArray(ctx)) return undefined;
  const c = ctx as Record<string, unknown>;
  if (c.source !== PERMISSION_PROMPT_SOURCE || typeof c.tool_name !== 'string') return undefined;
  if (req.title !== promptTitle(c.tool_name, c.tool_input)) return undefined;
  const rule = decidingRule(permissionRulesFor(hub.db, requesterId, c.tool_name), c.tool_name, commandOf(c.tool_input));
  if (!rule) return undefined;
  return { behavior: rule.behavior, comment: `standing rule ${rule.id}: ${ruleText(rule)}` };
}
