// Retention rules: how long the hub keeps a conversation's history (hub/features/retention/retention.ts applies them). Pure.

/** The longest keep_days / archive_idle_days a rule may name (100 years). */
export const MAX_RETENTION_DAYS = 36500;

/**
 * One rule, for the whole hub (conv_id null) or one conversation (which then follows its own rule, not the hub's).
 * - keep_days: events and messages older than this many days are deleted (null: kept forever);
 * - keep_pinned, keep_requests, keep_checkpoints: pinned messages, request messages (with their decisions) and the
 *   agents' summaries of the conversation (put_summary, what get_context starts from) are kept however old;
 *   a pending request is always kept;
 * - archive_idle_days: a conversation with no event for this many days is archived (null: never).
 */
export interface RetentionRule {
  conv_id: string | null;
  keep_days: number | null;
  keep_pinned: boolean;
  keep_requests: boolean;
  keep_checkpoints: boolean;
  archive_idle_days: number | null;
  updated_at: number;
}

/** What the rules would remove now (retention.dry_run), per conversation and in total. */
export interface RetentionPlan {
  at: number;
  conversations: RetentionPlanItem[];
  totals: { messages: number; events: number; files: number; file_bytes: number; summaries: number; archive: number };
  /** With export-first on and something to delete: the archive a pass would write first (its folder and name). */
  export_to: string | null;
  /**
   * The flight recorder's part (the hub's rule's keep_days; a conversation's own rule does not apply to it): the
   * records of the whole local days before `before_day` that a pass would remove now. Null without a hub rule that
   * keeps some days, and in a dry run of one conversation.
   */
  ledger: { before_day: string; records: number } | null;
}

export interface RetentionPlanItem {
  conv_id: string;
  title: string;
  /** The rule it follows: its own or the hub's. */
  rule: 'conversation' | 'hub';
  /** Messages, events, files (and their bytes) and summaries older than the rule's cutoff that would go. */
  messages: number;
  events: number;
  files: number;
  file_bytes: number;
  summaries: number;
  /** It would be archived for being idle. */
  archive: boolean;
}

/** How the database gives space back after deletions. */
export interface RetentionStatus {
  rules: RetentionRule[];
  /** incremental: freed pages are returned to the disk in small steps; none: they are reused, the file does not shrink. */
  vacuum: 'incremental' | 'none' | 'full';
  /** Free pages in the file now (bytes). */
  free_bytes: number;
  /** Export first: the folder a pass writes what it will delete to, before deleting (null: no export). */
  export_dir: string | null;
  /** The last export-first archive written by a pass. */
  last_export: { at: number; file: string; conversations: number } | null;
  /** Why the last pass could not export (it then deleted nothing; the next pass tries again); null once one works. */
  export_error: { at: number; message: string } | null;
}
