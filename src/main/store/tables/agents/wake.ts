// Wake actions and wake runs (hub/wake-runs/wake-runs.ts decides; this only reads and writes rows).
import { sql, type Db } from '../../db/db';

export interface WakeActionRow {
  agent_id: string;
  action: string;
  enabled: number;
  off_reason: string | null;
  consecutive_failures: number;
  webhook_secret: string | null;
  updated_at: number;
}

export interface WakeRunRow {
  id: string;
  agent_id: string;
  kind: string;
  status: string;
  woken_at: number;
  started_at: number;
  running_at: number | null;
  first_call_at: number | null;
  ended_at: number | null;
  exit_code: number | null;
  signal: string | null;
  error: string | null;
  why: string;
  usage: string | null;
  pid: number | null;
  log_file: string | null;
  peak_rss_bytes?: number | null;
  cpu_secs?: number | null;
}

export function wakeActionOf(db: Db, agentId: string): WakeActionRow | undefined {
  return sql<WakeActionRow>(db, 'SELECT * FROM wake_actions WHERE agent_id = ?').get(agentId);
}

/** The agents whose wake action is on. */
export function enabledWakeAgents(db: Db): string[] {
  return sql<{ agent_id: string }>(db, 'SELECT agent_id FROM wake_actions WHERE enabled = 1')
    .all()
    .map((r) => r.agent_id);
}

export function putWakeAction(db: Db, row: WakeActionRow): void {
  sql(
    db,
    `INSERT INTO wake_actions (agent_id, action, enabled, off_reason, consecutive_failures, webhook_secret, updated_at)
           VALUES (@agent_id, @action, @enabled, @off_reason, @consecutive_failures, @webhook_secret, @updated_at)
           ON CONFLICT (agent_id) DO UPDATE SET action = excluded.action, enabled = excluded.enabled, off_reason = excluded.off_reason,
             consecutive_failures = excluded.consecutive_failures, webhook_secret = excluded.webhook_secret, updated_at = excluded.updated_at`,
  ).run(row);
}

export function deleteWakeAction(db: Db, agentId: string): boolean {
  return sql(db, 'DELETE FROM wake_actions WHERE agent_id = ?').run(agentId).changes > 0;
}

export function setWakeFailures(db: Db, agentId: string, failures: number, off: { reason: string } | null, at: number): void {
  if (off)
    sql(db, 'UPDATE wake_actions SET consecutive_failures = ?, enabled = 0, off_reason = ?, updated_at = ? WHERE agent_id = ?').run(
      failures,
      off.reason,
      at,
      agentId,
    );
  else sql(db, 'UPDATE wake_actions SET consecutive_failures = ? WHERE agent_id = ?').run(failures, agentId);
}

export function insertWakeRun(db: Db, r: WakeRunRow): void {
  sql(
    db,
    `INSERT INTO wake_runs (id, agent_id, kind, status, woken_at, started_at, running_at, first_call_at, ended_at, exit_code, signal, error, why, usage, pid, log_file)
           VALUES (@id, @agent_id, @kind, @status, @woken_at, @started_at, @running_at, @first_call_at, @ended_at, @exit_code, @signal, @error, @why, @usage, @pid, @log_file)`,
  ).run(r);
}

/**
 * Drops an agent's ended runs beyond its newest `keep` (by start), and answers the log files they had: wake runs would
 * otherwise grow without end (a row and a log file each). Running runs are never dropped.
 */
export function pruneWakeRuns(db: Db, agentId: string, keep: number): string[] {
  const old = sql<{ id: string; log_file: string | null }>(
    db,
    `SELECT id, log_file FROM wake_runs WHERE agent_id = ? AND status != 'running'
       AND id NOT IN (SELECT id FROM wake_runs WHERE agent_id = ? ORDER BY started_at DESC LIMIT ?)`,
  ).all(agentId, agentId, keep);
  const del = sql(db, 'DELETE FROM wake_runs WHERE id = ?');
  for (const r of old) del.run(r.id);
  return old.flatMap((r) => (r.log_file ? [r.log_file] : []));
}

export function updateWakeRun(db: Db, id: string, patch: Partial<Omit<WakeRunRow, 'id'>>): void {
  const keys = Object.keys(patch).filter((k) => /^[a-z_]+$/.test(k));
  if (!keys.length) return;
  sql(db, `UPDATE wake_runs SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({ ...patch, id });
}

export function wakeRunById(db: Db, id: string): WakeRunRow | undefined {
  return sql<WakeRunRow>(db, 'SELECT * FROM wake_runs WHERE id = ?').get(id);
}

/** The newest runs (of one agent, or of all), newest first. */
export function listWakeRuns(db: Db, agentId: string | null, limit: number): WakeRunRow[] {
  return agentId
    ? sql<WakeRunRow>(db, 'SELECT * FROM wake_runs WHERE agent_id = ? ORDER BY started_at DESC LIMIT ?').all(agentId, limit)
    : sql<WakeRunRow>(db, 'SELECT * FROM wake_runs ORDER BY started_at DESC LIMIT ?').all(limit);
}

export function runsStartedSince(db: Db, agentId: string, since: number): number[] {
  return sql<{ started_at: number }>(db, 'SELECT started_at FROM wake_runs WHERE agent_id = ? AND started_at >= ? ORDER BY started_at')
    .all(agentId, since)
    .map((r) => r.started_at);
}

/** What the record of a run the hub stopped (or a killed hub left) says. */
export const INTERRUPTED_ERROR = 'The hub stopped while it ran.';

/** Runs still marked running (left by a hub that stopped without ending them): they become interrupted. */
export function interruptLeftoverRuns(db: Db, at: number): number {
  return sql(db, `UPDATE wake_runs SET status = 'interrupted', ended_at = ?, error = ? WHERE status = 'running'`).run(at, INTERRUPTED_ERROR)
    .changes;
}

/**
 * Waking events for the user after gid afterGid (what its runs have not confirmed yet), newest first (a run's
 * reasons lead with what woke it last): events of its conversations (from the seq its membership may see) whose
 * wake list names it.
 */
export function unconfirmedWakes(
  db: Db,
  userId: string,
  afterGid: number,
  limit: number,
): Array<{ gid: number; conv_id: string; seq: number; type: string; actor_id: string | null }> {
  return sql<{ gid: number; conv_id: string; seq: number; type: string; actor_id: string | null }>(
    db,
    `SELECT e.gid, e.conv_id, e.seq, e.type, e.actor_id
       FROM members mb
       JOIN events e ON e.conv_id = mb.conv_id AND e.gid > ? AND e.seq >= mb.from_seq AND e.wake IS NOT NULL
      WHERE mb.user_id = ? AND EXISTS (SELECT 1 FROM json_each(e.wake) WHERE value = mb.user_id)
      ORDER BY e.gid DESC
      LIMIT ?`,
  ).all(afterGid, userId, limit);
}
