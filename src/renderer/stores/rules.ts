// Standing rules for agents' own permission prompts (rules.list), as the owner last read them.
import { create } from 'zustand';
import type { PermissionRuleView } from '../../shared/features/permission-prompts';

export interface RulesStoreState {
  list: PermissionRuleView[];
  loaded: boolean;
}

export const rulesStore = create<RulesStoreState>(() => ({ list: [], loaded: false }));
export const useRules = rulesStore;
