// Retention, the plan: which rule each conversation follows (its own, else the hub's) and what the rules would remove
// now (the dry run, retention.dry_run / `perch retention dry-run`). Reads only; the rules are set in retention.ts and
// applied by the job, retention-job.ts.
import path from 'node:path';
import type { Hub } from '../../core/hub';
import { HubError } from '../../../../shared/errors';
import type { RetentionPlan, RetentionPlanItem } from '../../../../shared/features/retention';
import { conversationById } from '../../../store/tables/talk/conversations';
import {
  conversationsAfter,
  countRemovable,
  retentionExportDir,
  retentionRules,
  type RetentionRuleRow,
} from '../../../store/tables/talk/retention';
import { countBefore } from '../../../store/tables/ledger/records';
import { localDay } from '../../../../shared/agents/control';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** The first ledger day kept when the rule keeps `keepDays` days at `at` (the cutoff's own local day is kept whole). */
export function ledgerCutoffDay(at: number, keepDays: number): string {
  return localDay(at - keepDays * DAY_MS);
}

/** The archive a pass starting at `at` writes into `dir` before deleting. */
export function exportFileName(dir: string, at: number): string {
  return path.join(dir, `perch-retention-${new Date(at).toISOString().replace(/[:.]/g, '-')}.tar.gz`);
}

/** The rule a conversation follows: its own, else the hub's. */
export interface EffectiveRule {
  row: RetentionRuleRow;
  from: 'conversation' | 'hub';
}

export function ruleTable(hub: Hub): { hub: RetentionRuleRow | undefined; byConv: Map<string, RetentionRuleRow> } {
  const rows = retentionRules(hub.db);
  return { hub: rows.find((r) => r.scope === ''), byConv: new Map(rows.filter((r) => r.scope !== '').map((r) => [r.scope, r])) };
}

export function effectiveRule(table: ReturnType<typeof ruleTable>, convId: string): EffectiveRule | undefined {
  const own = table.byConv.get(convId);
  if (own) return { row: own, from: 'conversation' };
  return table.hub ? { row: table.hub, from: 'hub' } : undefined;
}

/** Whether a conversation is idle past its rule's archive_idle_days (never an agent's notes channel). */
export function idleToArchive(
  rule: RetentionRuleRow,
  conv: { kind: string; last_event_at: number; archived_at: number | null },
  now: number,
): boolean {
  return (
    rule.archive_idle_days !== null &&
    conv.kind !== 'inbox' &&
    conv.archived_at === null &&
    conv.last_event_at < now - rule.archive_idle_days * DAY_MS
  );
}

/** What the rules would remove now, conversation by conversation (one conversation with conv_id). Reads only. */
export function retentionDryRun(hub: Hub, convId?: string, now = hub.now()): RetentionPlan {
  const table = ruleTable(hub);
  const items: RetentionPlanItem[] = [];
  const totals = { messages: 0, events: 0, files: 0, file_bytes: 0, summaries: 0, archive: 0 };
  if (convId !== undefined && !conversationById(hub.db, convId)) {
    throw new HubError('not_found', `No conversation ${convId}.`, 'Give a conv_id from conversations.list.');
  }
  let after = '';
  for (;;) {
    const page = convId !== undefined ? [conversationById(hub.db, convId)!] : conversationsAfter(hub.db, after, 200);
    for (const c of page) {
      const rule = effectiveRule(table, c.id);
      if (!rule) continue;
      const r = rule.row;
      const archive = idleToArchive(r, c, now);
      const counts =
        r.keep_days === null
          ? { messages: 0, events: 0, files: 0, file_bytes: 0, summaries: 0 }
          : countRemovable(hub.db, c.id, {
              cutoff: now - r.keep_days * DAY_MS,
              pinned: r.keep_pinned === 1,
              requests: r.keep_requests === 1,
              checkpoints: r.keep_checkpoints === 1,
            });
      if (!archive && counts.events === 0 && counts.messages === 0 && counts.summaries === 0) continue;
      items.push({ conv_id: c.id, title: c.title, rule: rule.from, ...counts, archive });
      for (const k of ['messages', 'events', 'files', 'file_bytes', 'summaries'] as const) totals[k] += counts[k];
      if (archive) totals.archive += 1;
    }
    if (convId !== undefined || page.length < 200) break;
    after = page[page.length - 1].id;
  }
  const dir = retentionExportDir(hub.db);
  const deletes = totals.messages + totals.events + totals.summaries > 0;
  const keep = table.hub?.keep_days ?? null;
  // As a pass cuts the ledger (ledger-retention.ts): whole local days before the cutoff's own day.
  const beforeDay = keep === null || convId !== undefined ? undefined : ledgerCutoffDay(now, keep);
  return {
    at: now,
    conversations: items,
    totals,
    export_to: dir !== undefined && deletes ? exportFileName(dir, now) : null,
    ledger: beforeDay === undefined ? null : { before_day: beforeDay, records: countBefore(hub.db, beforeDay) },
  };
}
