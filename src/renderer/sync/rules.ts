// Standing rules for agents' own permission prompts: list them, answer a prompt "always" (rules.add with its
// request_id: the rule is added and the prompt decided by it at once), remove one.
import { api } from '../transport';
import { rulesStore } from '../stores/rules';
import { ruleText, type RuleSuggestionView } from '../../shared/features/permission-prompts';
import { attempt, toast } from './common';
import { mergeDecidedRequest } from './requests';

export const loadRules = () =>
  attempt('Rules not loaded', async () => {
    const { rules } = await api('rules.list', {});
    rulesStore.setState({ list: rules, loaded: true });
    return rules;
  });

let rulesRefresh: ReturnType<typeof setTimeout> | undefined;

/** A prompt decided by a standing rule changes that rule's count: the loaded list is read again (once per burst). */
export function refreshRulesSoon(ms = 200): void {
  if (rulesRefresh || !rulesStore.getState().loaded) return;
  rulesRefresh = setTimeout(() => {
    rulesRefresh = undefined;
    void loadRules();
  }, ms);
}

/** "Always allow / deny": a rule for the prompt's agent and tool (only commands that start with prefix, when given). */
export function answerAlways(
  requestId: string,
  behavior: 'allow' | 'deny',
  commandPrefix?: string,
  more: { any_options?: boolean; scope?: 'agent' | 'folder' | 'every'; lifetime?: 'session' | 'today' | 'always' } = {},
) {
  return attempt('Rule not added', async () => {
    const prefix = commandPrefix?.trim();
    const extra = Object.fromEntries(Object.entries(more).filter(([, v]) => v !== undefined));
    const r = await api('rules.add', { request_id: requestId, behavior, ...(prefix ? { command_prefix: prefix } : {}), ...extra });
    if (r.request) mergeDecidedRequest(r.request);
    rulesStore.setState((s) => ({ list: [...s.list.filter((x) => x.rule_id !== r.rule.rule_id), r.rule] }));
    toast(`${r.added ? 'Rule added' : 'Rule kept'} for ${r.rule.agent.name}: ${ruleText(r.rule)}.`);
    return r;
  });
}

export function removeRule(ruleId: string) {
  return attempt('Rule not removed', async () => {
    const r = await api('rules.remove', { rule_id: ruleId });
    rulesStore.setState((s) => ({ list: s.list.filter((x) => x.rule_id !== ruleId) }));
    toast(`Rule removed: ${r.rule.agent.name}'s ${r.rule.tool} prompts come to you again.`);
    return r;
  });
}

/** The suggestions standing now (rules.suggestions); the cards of their shape offer them. */
export const loadSuggestions = () =>
  attempt('Suggestions not loaded', async () => {
    const { suggestions } = await api('rules.suggestions', {});
    rulesStore.setState({ suggestions });
    return suggestions;
  });

/** Accepts a suggestion: the allow rule is added; with a pending prompt of its shape, that prompt is decided by it. */
export function acceptSuggestion(s: RuleSuggestionView, requestId?: string) {
  return attempt('Suggestion not accepted', async () => {
    const r = await api('rules.suggestion_accept', {
      agent: s.agent.id,
      tool: s.tool,
      shape: s.shape,
      ...(requestId ? { request_id: requestId } : {}),
    });
    if (r.request) mergeDecidedRequest(r.request);
    rulesStore.setState((st) => ({
      list: [r.rule, ...st.list.filter((x) => x.rule_id !== r.rule.rule_id)],
      suggestions: st.suggestions.filter((x) => x !== s),
    }));
    toast(`Rule added for ${r.rule.agent.name}: ${ruleText(r.rule)}.`);
    return r;
  });
}

export function dismissSuggestion(s: RuleSuggestionView) {
  return attempt('Suggestion not dismissed', async () => {
    await api('rules.suggestion_dismiss', { agent: s.agent.id, tool: s.tool, shape: s.shape });
    rulesStore.setState((st) => ({ suggestions: st.suggestions.filter((x) => x !== s) }));
  });
}
