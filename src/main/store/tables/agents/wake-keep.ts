// What wake runs keep across a restart of the hub, in the settings table: the queue of runs waiting for a slot, in
// the order they start (wake_queue), and where each running command run lives in the OS (wake_place:<run id>: its
// root's pid and start time, its cgroup), so that a hub started after one that was killed can end what is left of
// its runs, and only those (hub/wake-runs/wake-runs.ts).
import fs from 'node:fs';
import { sql, type Db } from '../../db/db';
import { getSetting, setSetting } from '../talk/settings';

const QUEUE = 'wake_queue';
const PLACE = 'wake_place:';

export interface StoredQueuedRun {
  agentId: string;
  since: number;
  wokenAt: number;
  byOwner: boolean;
}

/** The stored queue, in order (entries that do not read as one are left out). */
export function storedWakeQueue(db: Db): StoredQueuedRun[] {
  const text = getSetting(db, QUEUE);
  if (!text) return [];
  try {
    const list = JSON.parse(text) as unknown;
    if (!Array.isArray(list)) return [];
    return list.filter(
      (q): q is StoredQueuedRun =>
        !!q &&
        typeof q === 'object' &&
        typeof (q as StoredQueuedRun).agentId === 'string' &&
        typeof (q as StoredQueuedRun).since === 'number' &&
        typeof (q as StoredQueuedRun).wokenAt === 'number' &&
        typeof (q as StoredQueuedRun).byOwner === 'boolean',
    );
  } catch {
    return [];
  }
}

export function storeWakeQueue(db: Db, queue: readonly StoredQueuedRun[]): void {
  if (queue.length === 0) sql(db, 'DELETE FROM settings WHERE key = ?').run(QUEUE);
  else
    setSetting(
      db,
      QUEUE,
      JSON.stringify(queue.map((q) => ({ agentId: q.agentId, since: q.since, wokenAt: q.wokenAt, byOwner: q.byOwner }))),
    );
}

const identities = new WeakMap<Db, string | null>();

/**
 * Which database file this is, as the OS knows it (device and inode), or null where it has none (in memory) or cannot
 * be read. A copy of a data dir is another file: the runs its places name were started by the hub of the original.
 */
export function databaseIdentity(db: Db): string | null {
  if (identities.has(db)) return identities.get(db)!;
  let id: string | null = null;
  try {
    if (db.name && !db.memory) {
      const st = fs.statSync(db.name);
      id = `${st.dev}:${st.ino}`;
    }
  } catch {
    id = null;
  }
  identities.set(db, id);
  return id;
}

/** Where a running run lives (JSON, the launcher's RunPlace), or null once it ended. */
export function setRunPlace(db: Db, runId: string, place: string | null): void {
  if (place === null) sql(db, 'DELETE FROM settings WHERE key = ?').run(PLACE + runId);
  else setSetting(db, PLACE + runId, place);
}

export function runPlaceOf(db: Db, runId: string): string | undefined {
  return getSetting(db, PLACE + runId);
}

/**
 * Runs a previous hub left: marked running (it was killed), or with a place still stored (it was killed while its
 * runs stopped), oldest first.
 */
export function leftoverRuns(db: Db): Array<{ id: string; agent_id: string; woken_at: number; status: string }> {
  return sql<{ id: string; agent_id: string; woken_at: number; status: string }>(
    db,
    `SELECT id, agent_id, woken_at, status FROM wake_runs
      WHERE status = 'running' OR id IN (SELECT substr(key, ${PLACE.length + 1}) FROM settings WHERE key LIKE 'wake\\_place:%' ESCAPE '\\')
      ORDER BY started_at`,
  ).all();
}

/** The places of runs that are no longer running (their end was recorded without it, or they were dropped). */
export function dropStalePlaces(db: Db): void {
  sql(
    db,
    `DELETE FROM settings WHERE key LIKE 'wake\\_place:%' ESCAPE '\\'
       AND substr(key, ${PLACE.length + 1}) NOT IN (SELECT id FROM wake_runs WHERE status = 'running')`,
  ).run();
}
