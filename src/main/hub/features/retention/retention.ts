// Retention rules: the owner's optional limits on how long history is kept (shared/features/retention.ts says what a rule
// means). Rules are set here (retention.set, `perch retention set`), checked first and written in one go (bad input
// changes nothing); the dry run says what they would remove now; the job that removes it, in small steps between
// requests, is hub/features/retention/retention-job.ts; what they would remove (the dry run) is retention-plan.ts.
import fs from 'node:fs';
import path from 'node:path';
import type { FeaturesHub } from '../services';
import { HubError } from '../../../../shared/errors';
import { MAX_RETENTION_DAYS, type RetentionRule, type RetentionStatus } from '../../../../shared/features/retention';
import { conversationById } from '../../../store/tables/talk/conversations';
import {
  autoVacuumMode,
  deleteRetentionRule,
  freeBytes,
  putRetentionRule,
  retentionExportDir,
  retentionRules,
  setRetentionExportDir,
  type RetentionRuleRow,
} from '../../../store/tables/talk/retention';

/** What retention.set takes: the fields to change (others keep their value; a new rule starts from the defaults). */
export interface RetentionInput {
  conv_id?: string | null;
  keep_days?: number | null;
  keep_pinned?: boolean;
  keep_requests?: boolean;
  keep_checkpoints?: boolean;
  archive_idle_days?: number | null;
  /** Remove the rule (the conversation then follows the hub's rule; the hub keeps everything). */
  remove?: boolean;
  /** Export first (the hub's setting): an existing, writable folder (absolute path), or null for none. */
  export_dir?: string | null;
}

/** An export-first folder, checked: absolute, an existing folder, writable. A HubError (invalid_argument) otherwise. */
function exportDir(value: unknown): string | null {
  if (value === null) return null;
  const hint = 'Give the absolute path of an existing folder you may write to, e.g. /home/me/perch-exports (or null for no export).';
  if (typeof value !== 'string' || value === '' || value.length > 4096 || value.includes('\0'))
    throw new HubError('invalid_argument', `export_dir must be a folder's path, not ${JSON.stringify(value)}.`, hint);
  if (!path.isAbsolute(value))
    throw new HubError('invalid_argument', `export_dir must be an absolute path, not ${JSON.stringify(value)}.`, hint);
  let st: fs.Stats;
  try {
    st = fs.statSync(value);
  } catch {
    throw new HubError('invalid_argument', `export_dir ${value} does not exist.`, hint);
  }
  if (!st.isDirectory()) throw new HubError('invalid_argument', `export_dir ${value} is not a folder.`, hint);
  try {
    fs.accessSync(value, fs.constants.W_OK | fs.constants.X_OK);
  } catch {
    throw new HubError('invalid_argument', `export_dir ${value} is not writable by the hub.`, hint);
  }
  return path.resolve(value);
}

export function ruleView(r: RetentionRuleRow): RetentionRule {
  return {
    conv_id: r.scope === '' ? null : r.scope,
    keep_days: r.keep_days,
    keep_pinned: r.keep_pinned === 1,
    keep_requests: r.keep_requests === 1,
    keep_checkpoints: r.keep_checkpoints === 1,
    archive_idle_days: r.archive_idle_days,
    updated_at: r.updated_at,
  };
}

function days(value: unknown, field: string): number | null {
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > MAX_RETENTION_DAYS) {
    throw new HubError(
      'invalid_argument',
      `${field} must be a whole number of days from 1 to ${MAX_RETENTION_DAYS} (or null for none), not ${JSON.stringify(value)}.`,
      `Give ${field} in days, e.g. 90.`,
    );
  }
  return value;
}

function flag(value: unknown, field: string): boolean {
  if (typeof value !== 'boolean')
    throw new HubError(
      'invalid_argument',
      `${field} must be true or false, not ${JSON.stringify(value)}.`,
      `Give ${field} as true or false.`,
    );
  return value;
}

/** The rules and how the file gives space back. */
export function retentionStatus(hub: FeaturesHub): RetentionStatus {
  const mode = autoVacuumMode(hub.db);
  const job = hub.services.retention;
  return {
    rules: retentionRules(hub.db).map(ruleView),
    vacuum: mode === 2 ? 'incremental' : mode === 1 ? 'full' : 'none',
    free_bytes: freeBytes(hub.db),
    export_dir: retentionExportDir(hub.db) ?? null,
    last_export: job.lastExport ?? null,
    export_error: job.exportError ?? null,
  };
}

/** Sets (or removes) the hub's rule or one conversation's. Everything is checked before anything is written. */
export function setRetentionRule(hub: FeaturesHub, input: RetentionInput): { rule: RetentionRule | null; removed: boolean } {
  const scope = input.conv_id ?? '';
  if (scope !== '' && !conversationById(hub.db, scope)) {
    throw new HubError(
      'not_found',
      `No conversation ${scope}.`,
      'Give a conv_id from conversations.list, or leave it out for the whole hub.',
    );
  }
  const changes = (['keep_days', 'keep_pinned', 'keep_requests', 'keep_checkpoints', 'archive_idle_days'] as const).filter(
    (k) => input[k] !== undefined,
  );
  if (input.export_dir !== undefined) {
    if (scope !== '')
      throw new HubError(
        'invalid_argument',
        "export_dir is the hub's setting: it goes without conv_id.",
        'Set it alone, e.g. {"export_dir": "/home/me/perch-exports"}.',
      );
    if (input.remove)
      throw new HubError('invalid_argument', 'remove takes no other setting (got export_dir).', 'Remove the rule, or change it, not both.');
    const dir = exportDir(input.export_dir);
    const old = retentionRules(hub.db).find((r) => r.scope === '');
    if (!changes.length) {
      hub.write(() => setRetentionExportDir(hub.db, dir));
      hub.services.retention.rulesChanged();
      return { rule: old ? ruleView(old) : null, removed: false };
    }
    const r = setRetentionRule(hub, { ...input, export_dir: undefined }); // checked whole before either is written
    hub.write(() => setRetentionExportDir(hub.db, dir));
    hub.services.retention.rulesChanged();
    return r;
  }
  if (input.remove) {
    if (changes.length)
      throw new HubError(
        'invalid_argument',
        `remove takes no other setting (got ${changes.join(', ')}).`,
        'Remove the rule, or change it, not both.',
      );
    const removed = hub.write(() => deleteRetentionRule(hub.db, scope));
    hub.services.retention.rulesChanged();
    return { rule: null, removed };
  }
  if (!changes.length) {
    throw new HubError(
      'invalid_argument',
      'Nothing to set: give keep_days, keep_pinned, keep_requests, keep_checkpoints, archive_idle_days or export_dir.',
      'e.g. {"keep_days": 90} or {"archive_idle_days": 30}.',
    );
  }
  const old = retentionRules(hub.db).find((r) => r.scope === scope);
  const row: RetentionRuleRow = {
    scope,
    keep_days: input.keep_days !== undefined ? days(input.keep_days, 'keep_days') : (old?.keep_days ?? null),
    keep_pinned: (input.keep_pinned !== undefined ? flag(input.keep_pinned, 'keep_pinned') : old ? old.keep_pinned === 1 : true) ? 1 : 0,
    keep_requests: (input.keep_requests !== undefined ? flag(input.keep_requests, 'keep_requests') : old ? old.keep_requests === 1 : true)
      ? 1
      : 0,
    keep_checkpoints: (
      input.keep_checkpoints !== undefined ? flag(input.keep_checkpoints, 'keep_checkpoints') : old ? old.keep_checkpoints === 1 : true
    )
      ? 1
      : 0,
    archive_idle_days:
      input.archive_idle_days !== undefined ? days(input.archive_idle_days, 'archive_idle_days') : (old?.archive_idle_days ?? null),
    updated_at: hub.now(),
  };
  hub.write(() => putRetentionRule(hub.db, row));
  hub.services.retention.rulesChanged();
  return { rule: ruleView(row), removed: false };
}
