// Standing rules for agents' own permission prompts: the owner answers "always allow / always deny this tool
// (or this command prefix) for this agent" once (owner actions rules.list, rules.add, rules.remove), and a later
// prompt it matches is decided at once when the hook files it (createRequest, hub/features/requests/requests.ts): the
// request is recorded already decided, by the owner, with the rule in its comment, and nobody is notified.
// A request counts as a prompt only as the hook door files it (mcp/hook-door.ts: `perch hook permission-request`
// and `perch channel` post the prompt there, and the hub builds its title and context, shared/api/prompt-filing.ts):
// marked by that door server-side (never by anything in request_human's input), in the agent's direct
// conversation with the owner, kind approve for the owner, context.source permission_prompt, the title derived
// from the tool and its input, and shown whole (a prompt cut to its head and tail is always the owner's). So an
// agent cannot dress another question up as an allowed prompt: the approval it gets says what was allowed.
import type { TalkHub } from '../../talk/services';
import { newId } from '../../core/hub';
import { HubError } from '../../../../shared/errors';
import { promptCut, promptRequestOf, type PromptFiling } from '../../../../shared/api/prompt-filing';
import { openDirect } from '../../talk/conversations';
import type { ConversationRow } from '../../../store/tables/talk/conversations';
import type { PromptDoor } from '../../identity/key-waits';
import { findAgent } from '../../identity/identities';
import {
  deletePermissionRule,
  insertPermissionRule,
  listPermissionRules,
  permissionRuleById,
  permissionRulesFor,
  samePermissionRule,
  type PermissionRuleRow,
} from '../../../store/tables/agents/permission-rules';
import {
  PERMISSION_PROMPT_SOURCE,
  commandOf,
  decidingRule,
  neverAllowed,
  promptTitle,
  ruleText,
  type PermissionRuleView,
} from '../../../../shared/features/permission-prompts';

const MAX_TOOL_CHARS = 200;
const MAX_PREFIX_CHARS = 1000;

function ruleView(hub: TalkHub, r: PermissionRuleRow): PermissionRuleView {
  const a = hub.ref(r.agent_id);
  const added_by =
    r.added_by === null
      ? null
      : r.added_by === 'laptop'
        ? { via: 'laptop' as const }
        : { via: 'device' as const, device_id: r.added_by, name: r.added_by_name ?? '' };
  return {
    rule_id: r.id,
    agent: { id: a.id, name: a.name },
    tool: r.tool,
    command_prefix: r.command_prefix,
    behavior: r.behavior,
    created_at: r.created_at,
    added_by,
  };
}

/** Who adds a rule: the laptop, or a paired device (which adds deny rules only). */
export type RuleAuthor = 'laptop' | { device: { id: string; name: string } };

/**
 * An allow rule is added on the laptop only: a paired device (even with the full scope) may add deny rules and
 * decide single prompts, but an allow it added would outlive the device (a stolen phone, then revoked).
 */
export function requireMayAdd(behavior: 'allow' | 'deny', by: RuleAuthor): void {
  if (behavior === 'allow' && by !== 'laptop') {
    throw new HubError(
      'forbidden',
      `A paired device (${by.device.name}) may not add an allow rule: standing allows are added on the laptop only (a device may add deny rules and approve single prompts).`,
      'Approve this prompt once, or add the allow rule on the laptop (the Perch window or `perch owner`).',
    );
  }
}

export interface AddRuleInput {
  agent: string;
  tool: string;
  command_prefix?: string;
  behavior: 'allow' | 'deny';
}

/** rules.add: a standing rule for one agent; the same rule again is returned as it is (added: false). */
export function addPermissionRule(hub: TalkHub, input: AddRuleInput, by: RuleAuthor): { rule: PermissionRuleView; added: boolean } {
  return hub.write(() => {
    requireMayAdd(input.behavior, by);
    const agent = findAgent(hub, input.agent);
    const tool = typeof input.tool === 'string' ? input.tool.trim() : '';
    if (!tool || tool.length > MAX_TOOL_CHARS) {
      throw new HubError(
        'invalid_argument',
        `tool: the harness's tool name (e.g. Bash, Edit), 1 to ${MAX_TOOL_CHARS} characters.`,
        'Name the tool as the prompt shows it.',
      );
    }
    if (input.behavior !== 'allow' && input.behavior !== 'deny') {
      throw new HubError('invalid_argument', 'behavior: must be allow or deny.', 'Say allow or deny.');
    }
    let prefix: string | null = null;
    if (input.command_prefix !== undefined) {
      prefix = typeof input.command_prefix === 'string' ? input.command_prefix.trim() : '';
      if (!prefix || prefix.length > MAX_PREFIX_CHARS) {
        throw new HubError(
          'invalid_argument',
          `command_prefix: the start of the command, 1 to ${MAX_PREFIX_CHARS} characters.`,
          'Leave it out for every prompt of the tool.',
        );
      }
      // An allow never matches a command with quotes, expansion or shell control syntax, so such a prefix would allow nothing.
      const never = input.behavior === 'allow' ? neverAllowed(prefix) : undefined;
      if (never) {
        throw new HubError(
          'invalid_argument',
          `command_prefix: an allow rule's prefix must be plain words, and this one has ${never}, so it could never match.`,
          'Allow the plain command only (no quotes, backslashes, ; & | ` $ ( ) < > * ? [ { ~), or make it a deny rule.',
        );
      }
    }
    const row = { agent_id: agent.id, tool, command_prefix: prefix, behavior: input.behavior };
    const same = samePermissionRule(hub.db, row);
    if (same) return { rule: ruleView(hub, same), added: false };
    const rule: PermissionRuleRow = {
      id: newId('pr'),
      ...row,
      created_at: hub.now(),
      added_by: by === 'laptop' ? 'laptop' : by.device.id,
      added_by_name: by === 'laptop' ? null : by.device.name,
    };
    insertPermissionRule(hub.db, rule);
    return { rule: ruleView(hub, rule), added: true };
  });
}

/** rules.list: every standing rule, or one agent's. */
export function listPermissionRuleViews(hub: TalkHub, agent?: string): PermissionRuleView[] {
  const agentId = agent === undefined ? undefined : findAgent(hub, agent).id;
  return listPermissionRules(hub.db, agentId).map((r) => ruleView(hub, r));
}

/** rules.remove: later prompts it matched go to the owner again. */
export function removePermissionRule(hub: TalkHub, ruleId: string): { rule: PermissionRuleView } {
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
export function standingDecision(
  hub: TalkHub,
  requesterId: string,
  req: { conv: ConversationRow; door: PromptDoor | undefined; kind: string; title: string; context: unknown; assignees: readonly string[] },
): { behavior: 'allow' | 'deny'; comment: string } | undefined {
  if (!req.door) return undefined;
  if (req.conv.kind !== 'direct' || req.conv.direct_key !== [requesterId, hub.ownerId].sort().join(':')) return undefined;
  if (req.kind !== 'approve' || req.assignees.length !== 1 || req.assignees[0] !== hub.ownerId) return undefined;
  if (promptCut(req.context)) return undefined;
  const ctx = req.context;
  if (!ctx || typeof ctx !== 'object' || Array.isArray(ctx)) return undefined;
  const c = ctx as Record<string, unknown>;
  if (c.source !== PERMISSION_PROMPT_SOURCE || typeof c.tool_name !== 'string') return undefined;
  if (req.title !== promptTitle(c.tool_name, c.tool_input)) return undefined;
  const rule = decidingRule(permissionRulesFor(hub.db, requesterId, c.tool_name), c.tool_name, commandOf(c.tool_input));
  if (!rule) return undefined;
  return { behavior: rule.behavior, comment: `standing rule ${rule.id}: ${ruleText(rule)}` };
}

/**
 * The request_human input for a harness's prompt filed through the hook door (mcp/hook-door.ts): in the agent's
 * direct conversation with the owner, for the owner, the title and context built by the hub from the tool and its
 * input (shared/api/prompt-filing.ts). The door runs it as request_human with its door marker (Caller.door).
 */
export function promptRequestInput(
  hub: TalkHub,
  agentId: string,
  f: PromptFiling,
): { conv_id: string; kind: 'approve'; title: string; context: Record<string, unknown>; ttl_secs?: number } {
  const conv = openDirect(hub, agentId, hub.ownerId);
  const { title, context } = promptRequestOf(f);
  return { conv_id: conv.conv_id, kind: 'approve', title, context, ...(f.ttl_secs !== undefined ? { ttl_secs: f.ttl_secs } : {}) };
}
