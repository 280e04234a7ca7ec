// Standing rules suggested from the owner's own decisions: when the owner approved the same prompt shape (the rule
// prefix that covers it, shared/shell/shapes.ts) of an agent at least SUGGEST_AFTER times in SUGGEST_WINDOW_DAYS days and
// never rejected it, Perch offers "Always allow `npm test` for kit?". Never for what the parser cannot read, a prompt too
// long to show (neither has a shape), or a shape the owner rejected; a dismissed one is not offered again; accepting
// adds an allow rule, so it is done on the laptop only (requireMayAdd).
import type { TalkHub } from '../../talk/services';
import { HubError } from '../../../../shared/errors';
import { findAgent } from '../../identity/identities';
import type { PermissionRuleView } from '../../../../shared/features/permission-prompts';
import { checkPrefix, decideByRules } from '../../../../shared/shell/rules';
import { listPermissionRules } from '../../../store/tables/agents/permission-rules';
import { setSuggestionState, shapeCounts, suggestionStates } from '../../../store/tables/agents/rule-suggestions';
import { addPermissionRule, requireMayAdd, type RuleAuthor } from '../requests/permission-rules';
import { addRuleOrAnswer } from '../requests/permission-answers';
import type { OwnerRequestView } from '../../../../shared/features/requests';
import type { FeaturesHub } from '../services';
import { parseShell } from './shell-parser';

export const SUGGEST_AFTER = 3;
export const SUGGEST_WINDOW_DAYS = 14;
const DAY_MS = 24 * 3600 * 1000;

export interface RuleSuggestion {
  agent: { id: string; name: string };
  tool: string;
  /** The command prefix the rule would have (`npm test`). */
  shape: string;
  /** How many of its prompts of that shape the owner approved in the window. */
  approved: number;
  last_at: number;
}

/** rules.suggestions: the suggestions standing now (the most approved first). */
export function listRuleSuggestions(hub: TalkHub, agent?: string): RuleSuggestion[] {
  const agentId = agent === undefined ? undefined : findAgent(hub, agent).id;
  const settled = new Set(suggestionStates(hub.db).map((s) => `${s.agent_id}\n${s.tool}\t${s.shape}`));
  const rules = listPermissionRules(hub.db).map((r) => ({ ...r, any_options: r.any_options === 1, exact: r.exact === 1 }));
  const out: RuleSuggestion[] = [];
  for (const c of shapeCounts(hub.db, hub.now() - SUGGEST_WINDOW_DAYS * DAY_MS, SUGGEST_AFTER, agentId)) {
    if (c.rejected > 0 || settled.has(`${c.requester_id}\n${c.prompt_shape}`)) continue;
    const tab = c.prompt_shape.indexOf('\t');
    const tool = c.prompt_shape.slice(0, tab);
    const shape = c.prompt_shape.slice(tab + 1);
    if (checkPrefix(shape, 'allow')) continue;
    // Already decided by a rule of the agent: nothing to suggest.
    const mine = rules.filter((r) => r.agent_id === c.requester_id && r.scope === 'agent' && r.lifetime === 'always');
    if (decideByRules(mine, tool, shape, parseShell).decision !== 'owner') continue;
    const a = hub.ref(c.requester_id);
    out.push({ agent: { id: a.id, name: a.name }, tool, shape, approved: c.approved, last_at: c.last_at });
  }
  return out.sort((x, y) => y.approved - x.approved || y.last_at - x.last_at);
}

function requireSuggestion(hub: TalkHub, input: { agent: string; tool: string; shape: string }): RuleSuggestion {
  const agentId = findAgent(hub, input.agent).id;
  const s = listRuleSuggestions(hub).find((x) => x.agent.id === agentId && x.tool === input.tool && x.shape === input.shape);
  if (!s) {
    throw new HubError(
      'not_found',
      `No standing suggestion to always allow ${input.tool} \`${input.shape}\` for ${input.agent}.`,
      'See rules.suggestions for the suggestions there are (a dismissed or accepted one is gone).',
    );
  }
  return s;
}

/**
 * rules.suggestion_accept: the allow rule is added (on the laptop only) and the suggestion is gone; with the request_id
 * of a pending prompt of that shape (the card that offered it), the prompt is decided by the rule at once.
 */
export function acceptRuleSuggestion(
  hub: FeaturesHub,
  input: { agent: string; tool: string; shape: string; request_id?: string },
  by: RuleAuthor,
): { rule: PermissionRuleView; added: boolean; request?: OwnerRequestView } {
  return hub.write(() => {
    requireMayAdd('allow', by);
    const s = requireSuggestion(hub, input);
    const out =
      input.request_id !== undefined
        ? addRuleOrAnswer(
            hub,
            { request_id: input.request_id, agent: s.agent.id, tool: s.tool, command_prefix: s.shape, behavior: 'allow', exact: true },
            by,
          )
        : addPermissionRule(hub, { agent: s.agent.id, tool: s.tool, command_prefix: s.shape, behavior: 'allow', exact: true }, by);
    setSuggestionState(hub.db, { agent_id: s.agent.id, tool: s.tool, shape: s.shape, state: 'accepted', at: hub.now() });
    return out;
  });
}

/** rules.suggestion_dismiss: never offered again. */
export function dismissRuleSuggestion(hub: TalkHub, input: { agent: string; tool: string; shape: string }): { dismissed: RuleSuggestion } {
  return hub.write(() => {
    const s = requireSuggestion(hub, input);
    setSuggestionState(hub.db, { agent_id: s.agent.id, tool: s.tool, shape: s.shape, state: 'dismissed', at: hub.now() });
    return { dismissed: s };
  });
}
