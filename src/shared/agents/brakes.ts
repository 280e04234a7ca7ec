// Brakes on agents' sends (people are never slowed): their numbers and the shapes the owner and agents see.
// The counting lives in src/main/hub/control/brakes.ts.

/** The brakes' numbers. budgetPerHour is the default; the owner may change it per agent. */
export const BRAKES = {
  /** loop: this many turns (a turn = a change of speaking agent) with no person taking part … */
  loopTurns: 30,
  /** … within this window … */
  loopWindowMs: 2 * 60 * 60 * 1000,
  /** … and at least this many agents took … */
  loopMinAgents: 2,
  /** … at least this many of those turns each. */
  loopMinTurnsEach: 3,
  /** duplicate: an agent may send the same text this many times in a conversation since a person last took part. */
  duplicateMax: 2,
  /** budget: messages an agent may send in one conversation per budgetWindowMs (default; per agent settable). */
  budgetPerHour: 60,
  budgetWindowMs: 60 * 60 * 1000,
  /** Highest budget the owner may set (or 'off'). */
  budgetMax: 1_000_000,
} as const;

/** The first word of a brake refusal's reason. */
export const BRAKE_WORDS = ['loop', 'duplicate', 'budget', 'notice'] as const;
export type BrakeWord = (typeof BRAKE_WORDS)[number];

/** An agent's budget setting: a number of messages per hour per conversation, 'off', or the default. */
export type BudgetSetting = number | 'off' | 'default';

/** A conversation paused by the loop brake (ConversationView.paused). Only a person lifts it. */
export interface ConversationPause {
  reason: string;
  at: number;
  /** The agents that traded the turns. */
  agents: string[];
}

/** An agent's brakes as whoami and the owner's agents.brakes report them. */
export interface AgentBrakes {
  /** Messages per hour per conversation (null: no budget, the owner turned it off). */
  budget_per_hour: number | null;
  budget_is_default: boolean;
  loop: { turns: number; within_secs: number; min_agents: number; min_turns_each: number };
  duplicate_max: number;
  notice: string;
}
