// Owner control of agents: pauses, daily caps and daily usage counters.
import { sql, type Db } from '../../db/db';
import type { UsageDay } from '../../../../shared/agents/control';

export interface ControlRow {
  user_id: string;
  paused_at: number | null;
  paused_by: string | null;
  paused_reason: string | null;
  paused_detail: string | null;
  cap_cost_usd: number | null;
  cap_messages: number | null;
  cap_tool_calls: number | null;
}

export function allControls(db: Db): ControlRow[] {
  return sql<ControlRow>(db, 'SELECT * FROM agent_controls').all();
}

export function setPause(db: Db, userId: string, p: { at: number; by: string; reason: string | null; detail: string | null } | null): void {
  sql(
    db,
    `INSERT INTO agent_controls (user_id, paused_at, paused_by, paused_reason, paused_detail) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (user_id) DO UPDATE SET paused_at = excluded.paused_at, paused_by = excluded.paused_by,
             paused_reason = excluded.paused_reason, paused_detail = excluded.paused_detail`,
  ).run(userId, p?.at ?? null, p?.by ?? null, p?.reason ?? null, p?.detail ?? null);
}

export function setCaps(
  db: Db,
  userId: string,
  caps: { cost_usd: number | null; messages: number | null; tool_calls: number | null },
): void {
  sql(
    db,
    `INSERT INTO agent_controls (user_id, cap_cost_usd, cap_messages, cap_tool_calls) VALUES (?, ?, ?, ?)
           ON CONFLICT (user_id) DO UPDATE SET cap_cost_usd = excluded.cap_cost_usd, cap_messages = excluded.cap_messages,
             cap_tool_calls = excluded.cap_tool_calls`,
  ).run(userId, caps.cost_usd, caps.messages, caps.tool_calls);
}

/** A usage_daily row: one agent's UsageDay (shared/agents/control.ts). */
export type UsageRow = UsageDay & { user_id: string };

/** Adds a delta to one agent's day (a small upsert: one row per agent per day). */
export function addUsage(db: Db, d: UsageRow): void {
  sql(
    db,
    `INSERT INTO usage_daily (user_id, day, input_tokens, output_tokens, cost_usd, messages, tool_calls)
           VALUES (@user_id, @day, @input_tokens, @output_tokens, @cost_usd, @messages, @tool_calls)
           ON CONFLICT (user_id, day) DO UPDATE SET input_tokens = input_tokens + excluded.input_tokens,
             output_tokens = output_tokens + excluded.output_tokens, cost_usd = cost_usd + excluded.cost_usd,
             messages = messages + excluded.messages, tool_calls = tool_calls + excluded.tool_calls`,
  ).run(d);
}

export function usageOn(db: Db, userId: string, day: string): UsageRow | undefined {
  return sql<UsageRow>(db, 'SELECT * FROM usage_daily WHERE user_id = ? AND day = ?').get(userId, day);
}

/** Every agent's usage on the days from fromDay (YYYY-MM-DD, inclusive). */
export function usageSince(db: Db, fromDay: string): UsageRow[] {
  return sql<UsageRow>(db, 'SELECT * FROM usage_daily WHERE day >= ? ORDER BY user_id, day').all(fromDay);
}
