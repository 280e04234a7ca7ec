// perch retention: the owner's retention rules (hub/features/retention/retention.ts): show them, what they would remove now
// (--dry-run), set or remove one, and switch an older database file to giving space back (compact).
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { MAX_RETENTION_DAYS, type RetentionPlan, type RetentionRule, type RetentionStatus } from '../../../shared/features/retention';
import { DB_FILE_NAME, openDatabase } from '../../store/db/db';
import { autoVacuumMode, switchToIncrementalVacuum } from '../../store/tables/talk/retention';
import { UsageError, dataDirOf, fail, print, type Command } from '../common';
import { ownerAction } from '../owner/owner-action';

const SHOW_HELP = `perch retention [--dry-run] [--conv ID] [--data-dir DIR] [--json]
  Shows the retention rules; with --dry-run, what they would remove now (messages, events, files and their
  bytes, summaries, conversations to archive), per conversation. Nothing changes.`;
const SET_HELP = `perch retention set [--conv ID] [--keep-days N|off] [--keep-pinned yes|no] [--keep-requests yes|no]
                   [--keep-checkpoints yes|no] [--archive-idle-days N|off] [--export-first DIR|off]
                   [--data-dir DIR] [--json]
  Sets the hub's rule, or with --conv one conversation's (it then follows its own rule, not the hub's).
  --keep-days N: events and messages older than N days are deleted, with their files' bytes and search
  entries; pinned messages, requests and agents' summaries are kept unless you say no (a pending request is
  always kept). --archive-idle-days N: a conversation with nothing new for N days is archived. What you
  leave out keeps its value. The hub applies it in small steps in the background; try --dry-run first.
  --export-first DIR (the hub's setting, an existing folder the hub may write to): before each pass deletes
  anything, the conversations it deletes from are exported whole into DIR as perch-retention-<time>.tar.gz
  (read it with perch import); if that export fails, the pass deletes nothing and tries again next time.
  --export-first off stops exporting.`;
const REMOVE_HELP = `perch retention remove [--conv ID] [--data-dir DIR]
  Removes the hub's rule (the hub then keeps everything) or a conversation's (it follows the hub's again).`;
const COMPACT_HELP = `perch retention compact [--data-dir DIR]
  For a database made before retention existed: rewrites the file once (VACUUM) so that space freed by
  retention goes back to the disk from then on. The hub must be stopped; it takes as long as copying the
  file and needs as much free disk space again. Files made since then need nothing.`;

export const retention: Command = {
  names: ['retention'],
  usage: `  perch retention [--dry-run] | set [--conv ID] [--keep-days N|off] [--archive-idle-days N|off] ... | remove | compact
      How long history is kept: show the rules, what they would remove now, set or remove them.`,
  help: () => [SHOW_HELP, SET_HELP, REMOVE_HELP, COMPACT_HELP].join('\n\n'),
  subcommands: { set: () => SET_HELP, remove: () => REMOVE_HELP, compact: () => COMPACT_HELP },
  run: cmdRetention,
};

function daysArg(v: string | undefined, flag: string): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === 'off' || v === 'none') return null;
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  if (!(n >= 1 && n <= MAX_RETENTION_DAYS))
    throw new UsageError(`${flag} takes a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or off, not ${JSON.stringify(v)}`);
  return n;
}

/** --export-first DIR|off: a folder (relative to here, made absolute for the hub) or null. */
function exportArg(v: string): string | null {
  if (v === 'off' || v === 'none') return null;
  if (v === '') throw new UsageError('--export-first takes a folder or off');
  return path.resolve(v);
}

function yesNo(v: string | undefined, flag: string): boolean | undefined {
  if (v === undefined) return undefined;
  if (v === 'yes' || v === 'true') return true;
  if (v === 'no' || v === 'false') return false;
  throw new UsageError(`${flag} takes yes or no, not ${JSON.stringify(v)}`);
}

async function cmdRetention(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string' },
      json: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      conv: { type: 'string' },
      'keep-days': { type: 'string' },
      'keep-pinned': { type: 'string' },
      'keep-requests': { type: 'string' },
      'keep-checkpoints': { type: 'string' },
      'archive-idle-days': { type: 'string' },
      'export-first': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  const [sub, ...extra] = positionals;
  if (extra.length) throw new UsageError(`unexpected ${JSON.stringify(extra[0])}`);
  // An empty --conv (an unset shell variable) must not fall back to the hub's rule.
  if (values.conv !== undefined && !values.conv.trim()) throw new UsageError('--conv needs a conversation ID (perch conv list shows them)');
  const dataDir = dataDirOf(values);
  const json = !!values.json;
  const setting = ['keep-days', 'keep-pinned', 'keep-requests', 'keep-checkpoints', 'archive-idle-days', 'export-first'].filter(
    (k) => values[k as keyof typeof values] !== undefined,
  );
  if (sub !== 'set' && setting.length) throw new UsageError(`--${setting[0]} goes with perch retention set`);
  if (sub === undefined) {
    if (values['dry-run']) {
      const plan = await ownerAction(dataDir, 'retention.dry_run', values.conv ? { conv_id: values.conv } : {});
      print(json, plan, () => describePlan(plan));
    } else {
      if (values.conv) throw new UsageError('--conv goes with --dry-run, set or remove');
      const status = await ownerAction(dataDir, 'retention.get', {});
      print(json, status, () => describeStatus(status));
    }
    return;
  }
  if (values['dry-run']) throw new UsageError('--dry-run goes alone: perch retention --dry-run');
  if (sub === 'set') {
    const input = {
      ...(values.conv ? { conv_id: values.conv } : {}),
      ...(values['keep-days'] !== undefined ? { keep_days: daysArg(values['keep-days'], '--keep-days') } : {}),
      ...(values['keep-pinned'] !== undefined ? { keep_pinned: yesNo(values['keep-pinned'], '--keep-pinned') } : {}),
      ...(values['keep-requests'] !== undefined ? { keep_requests: yesNo(values['keep-requests'], '--keep-requests') } : {}),
      ...(values['keep-checkpoints'] !== undefined ? { keep_checkpoints: yesNo(values['keep-checkpoints'], '--keep-checkpoints') } : {}),
      ...(values['archive-idle-days'] !== undefined
        ? { archive_idle_days: daysArg(values['archive-idle-days'], '--archive-idle-days') }
        : {}),
      ...(values['export-first'] !== undefined ? { export_dir: exportArg(values['export-first']) } : {}),
    };
    if (!setting.length)
      throw new UsageError(
        'perch retention set needs --keep-days, --keep-pinned, --keep-requests, --keep-checkpoints, --archive-idle-days or --export-first',
      );
    const r = await ownerAction(dataDir, 'retention.set', input);
    const exp =
      input.export_dir === undefined
        ? ''
        : input.export_dir === null
          ? '\nExport first: off.'
          : `\nExport first: each pass exports what it deletes into ${input.export_dir} before deleting.`;
    print(
      json,
      r,
      () =>
        `${r.rule ? `Set: ${describeRule(r.rule)}` : 'No retention rule yet.'}${exp}\nApplied in the background; perch retention --dry-run shows what is still to go.`,
    );
    return;
  }
  if (sub === 'remove') {
    const r = await ownerAction(dataDir, 'retention.set', { ...(values.conv ? { conv_id: values.conv } : {}), remove: true });
    print(json, r, () => (r.removed ? `Removed the ${values.conv ? `rule of ${values.conv}` : "hub's rule"}.` : 'There was no such rule.'));
    return;
  }
  if (sub === 'compact') {
    if (values.conv) throw new UsageError('--conv does not go with compact (it rewrites the whole file)');
    return compact(dataDir, json);
  }
  throw new UsageError(`unknown retention command ${JSON.stringify(sub)}: use set, remove or compact (or --dry-run)`);
}

async function compact(dataDir: string, json: boolean): Promise<void> {
  const { liveHubOf } = await import('../../app');
  if (await liveHubOf(dataDir)) fail('the hub is running: stop it first (compact rewrites the whole file).', 1);
  const file = path.join(dataDir, DB_FILE_NAME);
  if (!fs.existsSync(file)) fail(`no database at ${file}.`, 1);
  const db = openDatabase(file);
  try {
    const before = fs.statSync(file).size;
    const was = autoVacuumMode(db);
    if (was !== 2) switchToIncrementalVacuum(db);
    db.pragma('wal_checkpoint(TRUNCATE)');
    const after = fs.statSync(file).size;
    print(json, { file, was_incremental: was === 2, bytes_before: before, bytes_after: after }, () =>
      was === 2
        ? `${file} already gives freed space back; nothing to do.`
        : `Compacted ${file}: ${before} → ${after} bytes; freed space now goes back to the disk.`,
    );
  } finally {
    db.close();
  }
}

function describeRule(r: RetentionRule): string {
  const keep = [r.keep_pinned && 'pinned', r.keep_requests && 'requests', r.keep_checkpoints && 'summaries'].filter(Boolean).join(', ');
  return (
    `${r.conv_id ?? 'the hub'}: ${r.keep_days === null ? 'keeps all history' : `keeps ${r.keep_days} ${r.keep_days === 1 ? 'day' : 'days'}${keep ? ` (and ${keep} however old)` : ''}`}` +
    `${r.archive_idle_days === null ? '' : `; archives after ${r.archive_idle_days} idle ${r.archive_idle_days === 1 ? 'day' : 'days'}`}`
  );
}

function describeStatus(s: RetentionStatus): string {
  const rules = s.rules.length ? s.rules.map(describeRule).join('\n') : 'No retention rules: all history is kept.';
  const space =
    s.vacuum === 'incremental'
      ? 'Freed space goes back to the disk.'
      : 'This file reuses freed space but does not shrink: perch retention compact (hub stopped) changes that.';
  const exp =
    s.export_dir === null
      ? 'Export first: off.'
      : `Export first: into ${s.export_dir}${s.last_export ? ` (last: ${s.last_export.file})` : ''}.`;
  const err = s.export_error ? `\nThe last export failed, so nothing was deleted: ${s.export_error.message}` : '';
  return `${rules}\n${space}\n${exp}${err}`;
}

function describePlan(p: RetentionPlan): string {
  const ledger =
    p.ledger && p.ledger.records > 0 ? `\nFrom the ledger: ${p.ledger.records} records of the days before ${p.ledger.before_day}.` : '';
  if (!p.conversations.length)
    return `${ledger ? 'No conversation history would be removed or archived now.' : 'Nothing would be removed or archived now.'}${ledger}`;
  const exp = p.export_to ? `\nFirst, what goes would be exported to ${p.export_to}.` : '';
  const lines = p.conversations.map(
    (c) =>
      `${c.conv_id}  ${c.title || '(direct)'}: ${c.messages} messages, ${c.events} events, ${c.files} files (${c.file_bytes} bytes), ${c.summaries} summaries${c.archive ? '; archived (idle)' : ''}`,
  );
  const t = p.totals;
  return `${lines.join('\n')}\nIn all: ${t.messages} messages, ${t.events} events, ${t.files} files (${t.file_bytes} bytes), ${t.summaries} summaries; ${t.archive} conversations archived.${ledger}${exp}`;
}
