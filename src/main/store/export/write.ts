// perch export: the hub's history (or some conversations of it) as one portable export (docs/archive-format.md).
// The database is opened read-only on a connection of its own and read in one read transaction, so the export is
// one consistent snapshot whether or not a hub is writing meanwhile (WAL). Rows are iterated one at a time and
// written through streams that are waited on when full: memory stays bounded whatever the size of the hub.
// JSON-lines entries and transcripts are staged in a private folder beside the output (store/backup/staging.ts: mkdtemp,
// 0700, its files opened O_EXCL|O_NOFOLLOW; their sizes and hashes go in the manifest, which comes first); files'
// bytes are hashed on a first pass and streamed on a second. The export itself is written into that folder too and
// renamed into place once whole: nothing is ever written through a name someone could plant beside the output, and
// the folder of an export that was killed is swept by the next export into the same folder.
import Database from 'better-sqlite3';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { PERCH_VERSION } from '../../../shared/version';
import { HubError } from '../../../shared/errors';
import { quotedInput } from '../../../shared/text/text';
import { LATEST_VERSION } from '../migrations';
import { closestName } from '../../../shared/agents/agents';
import { EXPORT_FORMAT, EXPORT_KINDS, EXPORT_VERSION, SAFE_ID, kindQuery, type Manifest, type ManifestEntry } from './kinds';
import { TarWriter } from './tar';
import { importLimitNote } from './read';
import { createNewWriteStream, makeStaging } from '../backup/staging';
import { NoSpaceError, databaseBytes, freeBytes, isNoSpace } from '../backup/disk-space';
import { transcriptHeader, transcriptLine, transcriptName, type TranscriptEvent, type TranscriptFile } from './transcript';

export interface ExportScope {
  /** Only these conversations. */
  conversations?: string[];
  /** Only the conversations this agent (by name) is a member of; its checkpoints too. */
  agent?: string;
  /** Only conversations with activity at or after this time (ms); each is exported whole. */
  since?: number;
}

export interface ExportProgress {
  /** What is being written (a kind, "files", "transcripts"). */
  phase: string;
  done: number;
  total: number;
}

export interface ExportResult {
  file: string;
  bytes: number;
  counts: Record<string, number>;
  /** Set when perch import would refuse the archive as written (more rows than one archive may hold). */
  import_note?: string;
}

type Db = Database.Database;

/** The name prefix of an export's staging folder (beside the output): `.perch-export-<pid>-XXXXXX`. */
export const STAGING_PREFIX = '.perch-export-';

/** The name prefix of the temporary folder the hub writes an owner's Export… into (under the system temp dir). */
export const OWNER_EXPORT_PREFIX = 'perch-export-';

/**
 * A private temporary folder for an export the hub streams to the owner: `perch-export-<pid>-XXXXXX`, 0700, under
 * the system temp dir; those that a hub killed mid-export left there are swept first (store/backup/staging.ts).
 */
export function ownerExportFolder(): string {
  return makeStaging(os.tmpdir(), OWNER_EXPORT_PREFIX);
}

/** A staged entry: its bytes are in a file of the staging folder. */
interface Staged extends ManifestEntry {
  file: string;
}

/** Writes lines to a staging file, hashing them, waiting when the stream is full. */
class StagedWriter {
  private readonly out: fs.WriteStream;
  private readonly hash = crypto.createHash('sha256');
  private size = 0;
  rows = 0;
  constructor(
    readonly name: string,
    readonly file: string,
  ) {
    this.out = createNewWriteStream(file);
  }

  async write(text: string): Promise<void> {
    const b = Buffer.from(text, 'utf8');
    this.hash.update(b);
    this.size += b.length;
    if (!this.out.write(b)) await once(this.out, 'drain');
  }

  async close(): Promise<Staged> {
    this.out.end();
    await once(this.out, 'finish');
    return { name: this.name, file: this.file, size: this.size, sha256: this.hash.digest('hex'), rows: this.rows };
  }
}

/**
 * Gives the event loop a turn every few milliseconds of work: inside a hub (the owner's Export…) requests are
 * answered between the steps of an export; in the CLI it costs nothing.
 */
function breather(): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < 4) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        since = performance.now();
        resolve();
      }),
    );
  };
}

function bad(message: string, next = 'Nothing was written.'): HubError {
  return new HubError('invalid_argument', message, next);
}

/** The conversation ids the scope selects (undefined: the whole hub) and the users that go with them. */
function resolveScope(db: Db, scope: ExportScope): { convs?: string[]; users?: string[]; stateUsers?: string[] } {
  if (!scope.conversations?.length && !scope.agent && scope.since === undefined) return {};
  let convs = db.prepare('SELECT id FROM conversations ORDER BY id').pluck().all() as string[];
  let agentId: string | undefined;
  if (scope.conversations?.length) {
    const known = new Set(convs);
    const missing = scope.conversations.filter((c) => !known.has(c));
    if (missing.length)
      throw bad(
        `No conversation ${missing.map((m) => JSON.stringify(m)).join(', ')} in this hub; nothing was written.`,
        'List them with `perch owner conversations.list`.',
      );
    const wanted = new Set(scope.conversations);
    convs = convs.filter((c) => wanted.has(c));
  }
  if (scope.agent) {
    agentId = db.prepare("SELECT id FROM users WHERE name = ? AND kind = 'agent'").pluck().get(scope.agent) as string | undefined;
    if (!agentId) {
      const near = closestName(scope.agent, db.prepare("SELECT name FROM users WHERE kind = 'agent'").pluck().all() as string[]);
      throw bad(
        `No agent named ${quotedInput(scope.agent)} in this hub${near ? ` (did you mean ${near}?)` : ''}; nothing was written.`,
        'See the names with `perch agent list`.',
      );
    }
    const of = new Set(db.prepare('SELECT conv_id FROM members WHERE user_id = ?').pluck().all(agentId) as string[]);
    convs = convs.filter((c) => of.has(c));
  }
  if (scope.since !== undefined) {
    const recent = new Set(db.prepare('SELECT id FROM conversations WHERE last_event_at >= ?').pluck().all(scope.since) as string[]);
    convs = convs.filter((c) => recent.has(c));
  }
  const convJson = JSON.stringify(convs);
  const users = db
    .prepare(
      `SELECT id FROM users WHERE kind = 'human' OR id = @agent
      OR id IN (SELECT user_id FROM members WHERE conv_id IN (SELECT value FROM json_each(@convs)))
      OR id IN (SELECT sender_id FROM messages WHERE conv_id IN (SELECT value FROM json_each(@convs)))
      ORDER BY id`,
    )
    .pluck()
    .all({ convs: convJson, agent: agentId ?? null }) as string[];
  return { convs, users, stateUsers: agentId ? [agentId] : [] };
}

/**
 * Writes the export of `dbFile` (a Perch database, read-only) to `out` (replaced only once the export is
 * whole). `progress` is called now and then with how far it is.
 */
export async function writeExport(
  dbFile: string,
  out: string,
  scope: ExportScope = {},
  progress: (p: ExportProgress) => void = () => {},
): Promise<ExportResult> {
  let db: Db;
  try {
    db = new Database(dbFile, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw bad(
      `Cannot open ${dbFile} (${(err as Error).message}); nothing was written.`,
      'Check --data-dir: it names the folder that holds perch.sqlite.',
    );
  }
  const outDir = path.dirname(path.resolve(out));
  let staging: string | undefined;
  try {
    db.pragma('busy_timeout = 5000');
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version !== LATEST_VERSION) {
      throw bad(
        `${dbFile} has schema version ${version}; this build exports version ${LATEST_VERSION}. Nothing was written.`,
        version < LATEST_VERSION ? 'Start the hub once (perch serve) to upgrade the file, then export again.' : 'Update Perch first.',
      );
    }
    db.exec('BEGIN'); // one read transaction: every read below sees the same snapshot
    db.prepare('SELECT 1 FROM users LIMIT 1').get(); // starts it now
    const sel = resolveScope(db, scope);
    const scoped = sel.convs !== undefined;
    const params = scoped ? { convs: JSON.stringify(sel.convs), users: JSON.stringify(sel.users) } : {};
    try {
      fs.mkdirSync(outDir, { recursive: true });
      staging = makeStaging(outDir, STAGING_PREFIX);
    } catch (err) {
      throw bad(
        `Cannot write in ${outDir} (${(err as Error).message}); nothing was written.`,
        'Pick another --out FILE, in a folder you may write to.',
      );
    }

    // Totals for the progress figures.
    const totals = EXPORT_KINDS.map(
      (k) =>
        db
          .prepare(
            `SELECT count(*) FROM ${k.table}${scoped ? ` WHERE ${k.name.startsWith('state_') ? 'user_id IN (SELECT value FROM json_each(@users))' : k.scoped}` : ''}`,
          )
          .pluck()
          .get(scoped ? { ...params, users: JSON.stringify(k.name.startsWith('state_') ? sel.stateUsers : sel.users) } : {}) as number,
    );
    const total = totals.reduce((a, b) => a + b, 0) * 2; // rows, then the transcripts and files' bytes
    let done = 0;
    let lastTick = 0;
    const tick = (phase: string, force = false) => {
      const now = Date.now();
      if (force || now - lastTick >= 200) {
        lastTick = now;
        progress({ phase, done: Math.min(done, total), total });
      }
    };

    const breathe = breather();
    const staged: Staged[] = [];
    const counts: Record<string, number> = {};
    for (const k of EXPORT_KINDS) {
      const w = new StagedWriter(`${k.name}.jsonl`, path.join(staging, `${k.name}.jsonl`));
      const kindParams = scoped && k.name.startsWith('state_') ? { ...params, users: JSON.stringify(sel.stateUsers) } : params;
      for (const row of db.prepare(kindQuery(k, scoped)).iterate(kindParams) as IterableIterator<Record<string, unknown>>) {
        await w.write(`${JSON.stringify(row)}\n`);
        w.rows++;
        done++;
        await breathe();
        if ((done & 1023) === 0) tick(k.name);
      }
      counts[k.name] = w.rows;
      staged.push(await w.close());
      tick(k.name, true);
    }

    // Files' bytes: hashed now, streamed into the export below (the same snapshot).
    const fileQuery = `SELECT id, data, thumb FROM files${scoped ? ' WHERE conv_id IN (SELECT value FROM json_each(@convs))' : ''} ORDER BY id`;
    const fileEntries: ManifestEntry[] = [];
    for (const f of db.prepare(fileQuery).iterate(params) as IterableIterator<{ id: string; data: Buffer; thumb: Buffer | null }>) {
      if (!SAFE_ID.test(f.id)) throw new Error(`file id ${JSON.stringify(f.id)} cannot name an archive entry`);
      fileEntries.push({ name: `files/${f.id}`, size: f.data.length, sha256: crypto.createHash('sha256').update(f.data).digest('hex') });
      if (f.thumb)
        fileEntries.push({
          name: `files/${f.id}.thumb`,
          size: f.thumb.length,
          sha256: crypto.createHash('sha256').update(f.thumb).digest('hex'),
        });
      await breathe();
    }

    // Transcripts: one per conversation, from its event log in order.
    const names = new Map(
      (db.prepare('SELECT id, name FROM users').all() as Array<{ id: string; name: string }>).map((u) => [u.id, u.name]),
    );
    const nameOf = (id: string | null) => (id === null ? 'the hub' : (names.get(id) ?? id));
    const filesByMsg = new Map<string, TranscriptFile[]>();
    for (const f of db
      .prepare(
        `SELECT id, msg_id, name, is_image FROM files WHERE msg_id IS NOT NULL${scoped ? ' AND conv_id IN (SELECT value FROM json_each(@convs))' : ''} ORDER BY id`,
      )
      .iterate(params) as IterableIterator<TranscriptFile & { msg_id: string }>) {
      const list = filesByMsg.get(f.msg_id) ?? [];
      list.push({ id: f.id, name: f.name, is_image: f.is_image });
      filesByMsg.set(f.msg_id, list);
    }
    const convRows = db
      .prepare(
        `SELECT id, kind, title, created_at FROM conversations${scoped ? ' WHERE id IN (SELECT value FROM json_each(@convs))' : ''} ORDER BY id`,
      )
      .all(params) as Array<{ id: string; kind: string; title: string; created_at: number }>;
    const memberNames = new Map<string, string[]>();
    for (const m of db.prepare('SELECT conv_id, user_id FROM members ORDER BY conv_id, user_id').iterate() as IterableIterator<{
      conv_id: string;
      user_id: string;
    }>) {
      const list = memberNames.get(m.conv_id) ?? [];
      list.push(nameOf(m.user_id));
      memberNames.set(m.conv_id, list);
    }
    const eventsOf = db.prepare(`SELECT e.seq, e.type, e.actor_id, e.ts, e.data, e.msg_id, m.text AS m_text, m.kind AS m_kind,
        m.edited_at AS m_edited_at, m.recalled_at AS m_recalled_at, m.reply_to AS m_reply_to
      FROM events e LEFT JOIN messages m ON m.id = e.msg_id WHERE e.conv_id = ? ORDER BY e.seq`);
    const transcripts: Staged[] = [];
    fs.mkdirSync(path.join(staging, 'transcripts'));
    for (const c of convRows) {
      if (!SAFE_ID.test(c.id)) throw new Error(`conversation id ${JSON.stringify(c.id)} cannot name an archive entry`);
      const name = transcriptName(c);
      const w = new StagedWriter(`transcripts/${name}.md`, path.join(staging, 'transcripts', `${name}.md`));
      await w.write(transcriptHeader(c, memberNames.get(c.id) ?? []));
      for (const e of eventsOf.iterate(c.id) as IterableIterator<TranscriptEvent>) {
        await w.write(transcriptLine(e, nameOf, (id) => filesByMsg.get(id) ?? []));
        done++;
        await breathe();
        if ((done & 1023) === 0) tick('transcripts');
      }
      const s = await w.close();
      delete s.rows;
      transcripts.push(s);
    }

    const manifest: Manifest = {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      created_at: new Date().toISOString(),
      perch_version: PERCH_VERSION,
      schema_version: version,
      scope: {
        conversations: scope.conversations?.length ? [...scope.conversations] : null,
        agent: scope.agent ?? null,
        since: scope.since === undefined ? null : new Date(scope.since).toISOString(),
      },
      counts: { ...counts, file_bytes: fileEntries.length, transcripts: transcripts.length },
      entries: [...staged, ...fileEntries, ...transcripts].map(({ name, size, sha256, rows }) =>
        rows === undefined ? { name, size, sha256 } : { name, size, sha256, rows },
      ),
    };

    // The export: manifest, JSON lines, files' bytes, transcripts, through gzip into the staging folder.
    const partial = path.join(staging, 'archive.tar.gz');
    const file = createNewWriteStream(partial);
    const gz = zlib.createGzip({ level: 6 });
    // A write error of the file (a full disk) destroys gz with it, so a tar write waiting on gz fails instead of waiting.
    const fileDone = pipeline(gz, file);
    fileDone.catch(() => {}); // awaited below; a failure before then surfaces through the tar writes
    const tar = new TarWriter(gz);
    const manifestBytes = Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
    await tar.add('manifest.json', manifestBytes.length, manifestBytes);
    for (const s of staged) await tar.add(s.name, s.size, fs.createReadStream(s.file));
    const expected = new Map(fileEntries.map((f) => [f.name, f]));
    for (const f of db.prepare(fileQuery).iterate(params) as IterableIterator<{ id: string; data: Buffer; thumb: Buffer | null }>) {
      await tar.add(`files/${f.id}`, expected.get(`files/${f.id}`)!.size, f.data);
      if (f.thumb) await tar.add(`files/${f.id}.thumb`, expected.get(`files/${f.id}.thumb`)!.size, f.thumb);
      done++;
      tick('files');
      await breathe();
    }
    for (const t of transcripts) await tar.add(t.name, t.size, fs.createReadStream(t.file));
    await tar.finish();
    await fileDone;
    db.exec('COMMIT');
    fs.renameSync(partial, out);
    done = total;
    tick('done', true);
    const note = importLimitNote(manifest.counts);
    return { file: out, bytes: fs.statSync(out).size, counts: manifest.counts, ...(note ? { import_note: note } : {}) };
  } catch (err) {
    if (!isNoSpace(err)) throw err;
    // The disk filled up: the staging folder goes first, so the space said to be free is what there is.
    if (staging) fs.rmSync(staging, { recursive: true, force: true });
    throw new NoSpaceError(
      `The export to ${out} cannot be written`,
      outDir,
      2 * databaseBytes(dbFile),
      freeBytes(outDir),
      'about twice the database: its records are staged uncompressed beside the archive while it is written',
    );
  } finally {
    if (db.inTransaction) db.exec('ROLLBACK');
    db.close();
    if (staging) fs.rmSync(staging, { recursive: true, force: true });
  }
}
