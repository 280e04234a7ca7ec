// Standing rules for agents' own permission prompts (rules.list), as the owner last read them.
import { create } from 'zustand';
import type { PermissionRuleView, RuleSuggestionView } from '../../shared/features/permission-prompts';

export interface RulesStoreState {
  list: PermissionRuleView[];
  loaded: boolean;
  /** Rules Perch suggests from the owner's own approvals (rules.suggestions). */
  suggestions: RuleSuggestionView[];
}

export const rulesStore = create<RulesStoreState>(() => ({ list: [], loaded: false, suggestions: [] }));
export const useRules = rulesStore;
