// Owner actions of a conversation's state (resuming one the loop brake paused, archiving) and the retention rules.
// Assembled in contract order by ../owner-api.ts.
import { z } from 'zod';
import { type ActionDefs, id } from './define';
import { MAX_RETENTION_DAYS } from '../../features/retention';

export const archiveRetentionActions = {
  // brakes (hub/control/brakes.ts)
  'conversations.resume': {
    device: 'full',
    description:
      'Resume a conversation the loop brake paused (as writing in it does): its agents may send again and are woken with conversation.resumed. resumed is false when it was not paused.',
    input: () => z.strictObject({ conv_id: id() }),
  },
  // archived conversations (hub/talk/archive.ts) and retention (hub/features/retention/retention.ts)
  'conversations.archive': {
    device: 'full',
    description:
      "Archive a finished conversation: it leaves the sidebar (listed under Archived) and the agents' list_conversations, and is read-only for agents (their writes get the code archived); the owner still reads and searches it. changed is false when it already was.",
    input: () => z.strictObject({ conv_id: id() }),
  },
  'conversations.unarchive': {
    device: 'full',
    description:
      'Bring an archived conversation back (as the owner writing in it does): agents list it and may write in it again. changed is false when it was not archived.',
    input: () => z.strictObject({ conv_id: id() }),
  },
  'retention.get': {
    device: 'full',
    description:
      "The retention rules (the hub's, conv_id null, and each conversation's own) and how the database file gives freed space back (vacuum: incremental or none; free_bytes).",
    input: () => z.strictObject({}),
  },
  'retention.set': {
    device: 'laptop',
    description: `Set the hub's retention rule (no conv_id) or one conversation's (which then follows its own, not the hub's). keep_days: delete events and messages older than that (1-${MAX_RETENTION_DAYS}, null: keep); keep_pinned, keep_requests, keep_checkpoints (agents' summaries): kept however old (default true; a pending request is always kept); archive_idle_days: archive a conversation idle that long (null: never). Fields left out keep their value. remove: true deletes the rule. export_dir (the hub's, without conv_id): an existing writable folder (absolute path) into which each pass first exports the conversations it will delete from, whole, as perch-retention-<time>.tar.gz; if that export fails the pass deletes nothing; null turns it off. Applied in small steps in the background; retention.dry_run says what would go.`,
    input: () =>
      z.strictObject({
        conv_id: id().nullable().optional(),
        keep_days: z.number().int().min(1).max(MAX_RETENTION_DAYS).nullable().optional(),
        keep_pinned: z.boolean().optional(),
        keep_requests: z.boolean().optional(),
        keep_checkpoints: z.boolean().optional(),
        archive_idle_days: z.number().int().min(1).max(MAX_RETENTION_DAYS).nullable().optional(),
        remove: z.literal(true).optional(),
        export_dir: z.string().min(1).max(4096).nullable().optional(),
      }),
  },
  'retention.dry_run': {
    device: 'full',
    description:
      'What the retention rules would remove now, per conversation and in total (messages, events, files and their bytes, summaries, conversations to archive). Changes nothing.',
    input: () => z.strictObject({ conv_id: id().optional() }),
  },
} as const satisfies ActionDefs;
