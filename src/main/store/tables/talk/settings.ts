import { sql, type Db } from '../../db/db';
import type { EventWithMessage } from './events';
import { MESSAGE_JSON } from './events';

export function getSetting(db: Db, key: string): string | undefined {
  return sql<{ value: string }>(db, 'SELECT value FROM settings WHERE key = ?').get(key)?.value;
}

export function setSetting(db: Db, key: string, value: string): void {
  sql(db, 'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
}

export function eventByGid(db: Db, gid: number): EventWithMessage | undefined {
  return sql<EventWithMessage>(db, `SELECT e.*, ${MESSAGE_JSON} FROM events e LEFT JOIN messages m ON m.id = e.msg_id WHERE e.gid = ?`).get(
    gid,
  );
}
