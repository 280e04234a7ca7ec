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
  recordPermissionRuleUse,
  samePermissionRule,
  type PermissionRuleRow,
} from '../../../store/tables/agents/permission-rules';
import { notePromptShape, setDecidedByRule } from '../../../store/tables/agents/rule-suggestions';
import {
  PERMISSION_PROMPT_SOURCE,
  RULE_LIFETIMES,
  RULE_SCOPES,
  commandOf,
  promptTitle,
  ruleText,
  type PermissionRuleView,
  type RuleLifetime,
  type RuleScope,
} from '../../../../shared/features/permission-prompts';
import { checkPrefix, decideByRules } from '../../../../shared/shell/rules';
import { readCommands } from '../../../../shared/shell/commands';
import { promptShape } from '../../../../shared/shell/shapes';
import { ensureShellParser, parseShell } from '../rules/shell-parser';
import { appendPerchEvent } from '../../core/ledger-chain';
import type { DecidedOn, PerchEvent } from '../../../../shared/ledger/harness-events';

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
    any_options: r.any_options === 1,
    exact: r.exact === 1,
    from_request_id: r.from_request_id,
    decided_count: r.decided_count,
    last_used_at: r.last_used_at,
    scope: r.scope,
    folder: r.folder,
    lifetime: r.lifetime,
    expires_at: r.expires_at,
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
  /** An allow prefix also covers options it does not name. */
  any_options?: boolean;
  /** An allow covers only the command it names (no argument after it). */
  exact?: boolean;
  scope?: RuleScope;
  /** For scope folder: the folder (an absolute path). */
  folder?: string;
  lifetime?: RuleLifetime;
  /** For lifetime session: the harness session. */
  session_id?: string;
  from_request_id?: string;
}

const DAY_MS = 24 * 3600 * 1000;

function invalid(message: string, next: string): never {
  throw new HubError('invalid_argument', message, next);
}

/** rules.add: a standing rule; the same rule again is returned as it is (added: false). The UI, `perch rules` and a prompt's "always" all come here. */
export function addPermissionRule(hub: TalkHub, input: AddRuleInput, by: RuleAuthor): { rule: PermissionRuleView; added: boolean } {
  return hub.write(() => {
    requireMayAdd(input.behavior, by);
    const agent = findAgent(hub, input.agent);
    const tool = typeof input.tool === 'string' ? input.tool.trim() : '';
    if (!tool || tool.length > MAX_TOOL_CHARS) {
      invalid(
        `tool: the harness's tool name (e.g. Bash, Edit), 1 to ${MAX_TOOL_CHARS} characters.`,
        'Name the tool as the prompt shows it.',
      );
    }
    if (input.behavior !== 'allow' && input.behavior !== 'deny') invalid('behavior: must be allow or deny.', 'Say allow or deny.');
    let prefix: string | null = null;
    if (input.command_prefix !== undefined) {
      prefix = typeof input.command_prefix === 'string' ? input.command_prefix.trim().replace(/[ \t]+/g, ' ') : '';
      if (!prefix || prefix.length > MAX_PREFIX_CHARS) {
        invalid(
          `command_prefix: the start of the command, 1 to ${MAX_PREFIX_CHARS} characters.`,
          'Leave it out for every prompt of the tool.',
        );
      }
      const why = checkPrefix(prefix, input.behavior);
      if (why) invalid(`command_prefix: ${why}.`, 'Write the program and its first words as plain words, e.g. npm test or git status.');
    }
    const anyOptions = input.any_options === true;
    if (anyOptions && (input.behavior !== 'allow' || prefix === null)) {
      invalid('any_options: only an allow rule with a command_prefix can be widened to any options.', 'Leave any_options out.');
    }
    const exact = input.exact === true;
    if (exact && (input.behavior !== 'allow' || prefix === null || anyOptions)) {
      invalid('exact: only an allow rule with a command_prefix, not widened to any options, can be exact.', 'Leave exact out.');
    }
    const scope = input.scope ?? 'agent';
    if (!RULE_SCOPES.includes(scope)) invalid(`scope: one of ${RULE_SCOPES.join(', ')}.`, 'Leave it out for this agent only.');
    let folder: string | null = null;
    if (scope === 'folder') {
      folder = typeof input.folder === 'string' ? input.folder.replace(/\/+$/, '') : '';
      if (!folder.startsWith('/') || folder.split('/').some((p) => p === '.' || p === '..') || folder.length > 1000) {
        invalid(
          "folder: the absolute folder the agents work in (the hook's cwd), without . or .. parts.",
          'Give the folder, e.g. /home/me/project.',
        );
      }
    } else if (input.folder !== undefined) invalid('folder: only with scope folder.', 'Leave folder out, or say scope folder.');
    const lifetime = input.lifetime ?? 'always';
    if (!RULE_LIFETIMES.includes(lifetime)) invalid(`lifetime: one of ${RULE_LIFETIMES.join(', ')}.`, 'Leave it out for always.');
    const sessionId = lifetime === 'session' ? (input.session_id ?? '') : null;
    if (sessionId === '') invalid('lifetime session: the prompt has no harness session to tie the rule to.', 'Say today or always.');
    const at = hub.now();
    const row = {
      agent_id: agent.id,
      tool,
      command_prefix: prefix,
      behavior: input.behavior,
      any_options: anyOptions ? (1 as const) : (0 as const),
      exact: exact ? (1 as const) : (0 as const),
      scope,
      folder,
      lifetime,
      session_id: sessionId,
    };
    const same = samePermissionRule(hub.db, row);
    if (same) return { rule: ruleView(hub, same), added: false };
    const rule = {
      id: newId('pr'),
      ...row,
      created_at: at,
      added_by: by === 'laptop' ? 'laptop' : by.device.id,
      added_by_name: by === 'laptop' ? null : by.device.name,
      from_request_id: input.from_request_id ?? null,
      // A session rule lives at most a day too (a harness session that is never closed must not keep it forever).
      expires_at: lifetime === 'always' ? null : at + DAY_MS,
    };
    insertPermissionRule(hub.db, rule);
    const view = ruleView(hub, { ...rule, decided_count: 0, last_used_at: null });
    appendPerchEvent(hub, rule.agent_id, ruleEvent('rule_added', view, by)); // the flight recorder
    return { rule: view, added: true };
  });
}

/** rules.import: every rule of an export file, all or none (the same checks as rules.add); the ones already there are kept. */
export function importPermissionRules(hub: TalkHub, rules: readonly AddRuleInput[], by: RuleAuthor): { added: number; kept: number } {
  return hub.write(() => {
    let added = 0;
    rules.forEach((r, i) => {
      try {
        if (addPermissionRule(hub, r, by).added) added++;
      } catch (e) {
        if (e instanceof HubError) throw new HubError(e.code, `rules[${i}]: ${e.message}`, `${e.nextStep} Nothing was imported.`);
        throw e;
      }
    });
    return { added, kept: rules.length - added };
  });
}

/** rules.list: every standing rule, or one agent's. */
export function listPermissionRuleViews(hub: TalkHub, agent?: string): PermissionRuleView[] {
  const agentId = agent === undefined ? undefined : findAgent(hub, agent).id;
  return listPermissionRules(hub.db, agentId).map((r) => ruleView(hub, r));
}

/** rules.remove: later prompts it matched go to the owner again. */
export function removePermissionRule(hub: TalkHub, ruleId: string, by: RuleAuthor = 'laptop'): { rule: PermissionRuleView } {
  return hub.write(() => {
    const r = permissionRuleById(hub.db, ruleId);
    if (!r) throw new HubError('not_found', `No standing rule ${ruleId}.`, 'See rules.list for the rules and their ids.');
    deletePermissionRule(hub.db, r.id);
    const view = ruleView(hub, r);
    appendPerchEvent(hub, r.agent_id, ruleEvent('rule_removed', view, by));
    return { rule: view };
  });
}

/** A rule's change as the flight recorder keeps it (hub/core/ledger-chain.ts): its id, what it says, where it was done. */
function ruleEvent(event: 'rule_added' | 'rule_removed', r: PermissionRuleView, by: RuleAuthor): PerchEvent {
  const on: DecidedOn = by === 'laptop' ? { via: 'laptop' } : { via: 'device', device_id: by.device.id, name: by.device.name };
  const where = r.scope === 'agent' ? '' : r.scope === 'folder' ? ` (every agent in ${r.folder ?? '?'})` : ' (every agent)';
  return { event, rule_id: r.rule_id, rule: `${ruleText(r)}${where}`, on };
}

/** Whether a rule applies to a prompt of this agent, from this folder, in this harness session (its scope and lifetime). */
function ruleApplies(r: PermissionRuleRow, agentId: string, cwd: unknown, sessionId: unknown): boolean {
  if (r.lifetime === 'session' && r.session_id !== sessionId) return false;
  if (r.scope === 'agent') return r.agent_id === agentId;
  if (r.scope === 'every') return true;
  return (
    typeof cwd === 'string' && r.folder !== null && (cwd === r.folder || cwd.startsWith(`${r.folder}/`)) && !cwd.split('/').includes('..')
  );
}

/**
 * The standing rule that decides this new request at once, if it is a permission prompt as the hook files it
 * (see the top of this file) and the rules of the owner decide its tool and command (shared/shell/rules.ts). The
 * prompt's shape is noted for suggestions, and a deciding rule's use is counted.
 */
export function standingDecision(
  hub: TalkHub,
  requesterId: string,
  req: {
    requestId: string;
    conv: ConversationRow;
    door: PromptDoor | undefined;
    kind: string;
    title: string;
    context: unknown;
    assignees: readonly string[];
  },
): { behavior: 'allow' | 'deny'; comment: string; ruleId: string } | undefined {
  if (!req.door) return undefined;
  if (req.conv.kind !== 'direct' || req.conv.direct_key !== [requesterId, hub.ownerId].sort().join(':')) return undefined;
  if (req.kind !== 'approve' || req.assignees.length !== 1 || req.assignees[0] !== hub.ownerId) return undefined;
  if (promptCut(req.context)) return undefined;
  const ctx = req.context;
  if (!ctx || typeof ctx !== 'object' || Array.isArray(ctx)) return undefined;
  const c = ctx as Record<string, unknown>;
  if (c.source !== PERMISSION_PROMPT_SOURCE || typeof c.tool_name !== 'string') return undefined;
  if (req.title !== promptTitle(c.tool_name, c.tool_input)) return undefined;
  const command = commandOf(c.tool_input);
  const run = command === undefined ? undefined : readCommands(command, parseShell);
  const shape = run && promptShape(run);
  if (shape) notePromptShape(hub.db, req.requestId, c.tool_name, shape);
  const rules = permissionRulesFor(hub.db, requesterId, c.tool_name, hub.now()).filter((r) =>
    ruleApplies(r, requesterId, c.cwd, c.session_id),
  );
  const d = decideByRules(
    rules.map((r) => ({ ...r, any_options: r.any_options === 1, exact: r.exact === 1 })),
    c.tool_name,
    command,
    parseShell,
    run,
  );
  if (d.decision === 'owner') return undefined;
  recordPermissionRuleUse(hub.db, d.rule.id, hub.now());
  setDecidedByRule(hub.db, req.requestId, d.rule.id);
  return { behavior: d.decision, comment: `standing rule ${d.rule.id}: ${ruleText(d.rule)}`, ruleId: d.rule.id };
}

/**
 * What the agent's standing rules say of one tool call that is not filed as a prompt (Gemini CLI's BeforeTool: its
 * own approval cannot be answered from outside, so the door checks the rules before the tool runs): the deciding rule,
 * its use counted, or undefined when none decides (the owner would). The same rules, scopes and shell reading as a
 * filed prompt's (standingDecision).
 */
export async function rulesDecide(
  hub: TalkHub,
  agentId: string,
  call: { tool_name: string; tool_input: unknown; cwd?: unknown; session_id?: unknown },
): Promise<{ behavior: 'allow' | 'deny'; comment: string; ruleId: string } | undefined> {
  await ensureShellParser();
  const rules = permissionRulesFor(hub.db, agentId, call.tool_name, hub.now()).filter((r) =>
    ruleApplies(r, agentId, call.cwd, call.session_id),
  );
  if (rules.length === 0) return undefined;
  const command = commandOf(call.tool_input);
  const run = command === undefined ? undefined : readCommands(command, parseShell);
  const d = decideByRules(
    rules.map((r) => ({ ...r, any_options: r.any_options === 1, exact: r.exact === 1 })),
    call.tool_name,
    command,
    parseShell,
    run,
  );
  if (d.decision === 'owner') return undefined;
  hub.write(() => recordPermissionRuleUse(hub.db, d.rule.id, hub.now()));
  return { behavior: d.decision, comment: `standing rule ${d.rule.id}: ${ruleText(d.rule)}`, ruleId: d.rule.id };
}

/**
 * The request_human input for a harness's prompt filed through the hook door (mcp/hook-door.ts): in the agent's
 * direct conversation with the owner, for the owner, the title and context built by the hub from the tool and its
 * input (shared/api/prompt-filing.ts). The door runs it as request_human with its door marker (Caller.door).
 */
export async function promptRequestInput(
  hub: TalkHub,
  agentId: string,
  f: PromptFiling,
): Promise<{ conv_id: string; kind: 'approve'; title: string; context: Record<string, unknown>; ttl_secs?: number }> {
  // The parser loads in the background after the hub starts: a prompt filed before it has loaded waits for it, so the
  // rules decide it as they would later (standingDecision, which request_human runs with this input, reads it).
  await ensureShellParser();
  const conv = openDirect(hub, agentId, hub.ownerId);
  const { title, context } = promptRequestOf(f);
  // What Perch cannot tell about the command, for the card ("Perch cannot tell what this runs: …").
  const command = context.cut ? undefined : commandOf(f.tool_input);
  if (command !== undefined) {
    const run = readCommands(command, parseShell);
    if (run.unresolved.length) context.cannot_tell = run.unresolved[0];
    // The prefix the card offers for "Always …": the prompt's shape (shared/shell/shapes.ts), which covers it.
    const shape = promptShape(run);
    if (shape) context.rule_prefix = shape;
  }
  return { conv_id: conv.conv_id, kind: 'approve', title, context, ...(f.ttl_secs !== undefined ? { ttl_secs: f.ttl_secs } : {}) };
}

/**
 * The owner's standing deny rule for a tool call a harness asks about before it runs (OpenCode's plugin, which has no
 * permission prompt Perch can answer): the deny rule of the agent's rules that decides the call (shared/shell/rules.ts,
 * as for a filed prompt), or undefined. An allow rule, or none, leaves the call to the harness's own permissions. A
 * command Perch cannot read while a deny rule could cover it (which a card would put to the owner) is denied too.
 */
export async function standingDenial(
  hub: TalkHub,
  agentId: string,
  call: { tool_name: string; tool_input: unknown; cwd?: string; session_id?: string },
): Promise<{ ruleId?: string; comment: string } | undefined> {
  const rules = permissionRulesFor(hub.db, agentId, call.tool_name, hub.now()).filter(
    (r) => r.behavior === 'deny' && ruleApplies(r, agentId, call.cwd, call.session_id),
  );
  if (rules.length === 0) return undefined;
  await ensureShellParser();
  const command = commandOf(call.tool_input);
  const d = decideByRules(
    rules.map((r) => ({ ...r, any_options: r.any_options === 1, exact: r.exact === 1 })),
    call.tool_name,
    command,
    parseShell,
    command === undefined ? undefined : readCommands(command, parseShell),
  );
  // A command where a denied one could hide goes to the owner on a card; with no card to file, it is blocked.
  if (d.decision === 'owner')
    return d.unresolved === undefined
      ? undefined
      : { comment: `Perch cannot tell what this runs (${d.unresolved}), and a standing rule denies part of it` };
  if (d.decision !== 'deny') return undefined;
  recordPermissionRuleUse(hub.db, d.rule.id, hub.now());
  return { ruleId: d.rule.id, comment: `standing rule ${d.rule.id}: ${ruleText(d.rule)}` };
}
