// Files and images sent in conversations; their bytes live in the same SQLite file.
import { sql, type Db } from '../../db/db';

export interface FileRow {
  id: string;
  conv_id: string;
  msg_id: string | null;
  uploader_id: string;
  name: string;
  mime: string;
  size: number;
  sha256: string;
  is_image: number;
  width: number | null;
  height: number | null;
  data: Buffer;
  thumb: Buffer | null;
  thumb_mime: string | null;
  created_at: number;
}

/** A file without its bytes (cheap to read for checks). */
export type FileMeta = Omit<FileRow, 'data' | 'thumb'> & { thumb_size: number | null };

export function insertFile(db: Db, f: FileRow): void {
  sql(
    db,
    `INSERT INTO files (id, conv_id, msg_id, uploader_id, name, mime, size, sha256, is_image, width, height, data, thumb, thumb_mime, created_at)
           VALUES (@id, @conv_id, @msg_id, @uploader_id, @name, @mime, @size, @sha256, @is_image, @width, @height, @data, @thumb, @thumb_mime, @created_at)`,
  ).run(f);
}

export function fileMeta(db: Db, id: string): FileMeta | undefined {
  return sql<FileMeta>(
    db,
    `SELECT id, conv_id, msg_id, uploader_id, name, mime, size, sha256, is_image, width, height, thumb_mime, created_at,
            length(thumb) AS thumb_size
       FROM files WHERE id = ?`,
  ).get(id);
}

/** The stored bytes of a file: the original or its thumbnail. */
export function fileBytes(db: Db, id: string, variant: 'original' | 'thumb'): Buffer | undefined {
  const row =
    variant === 'thumb'
      ? sql<{ b: Buffer | null }>(db, 'SELECT thumb AS b FROM files WHERE id = ?').get(id)
      : sql<{ b: Buffer | null }>(db, 'SELECT data AS b FROM files WHERE id = ?').get(id);
  return row?.b ?? undefined;
}

/** Deletes the files attached to a message (e.g. when it is recalled). Returns how many. */
export function deleteFilesOfMessage(db: Db, msgId: string): number {
  return sql(db, 'DELETE FROM files WHERE msg_id = ?').run(msgId).changes;
}
