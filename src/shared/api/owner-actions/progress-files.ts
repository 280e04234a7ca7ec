// Owner actions of progress reports and activity, and files (links, sending one as the owner).
// Assembled in contract order by ../owner-api.ts.
import { z } from 'zod';
import { type ActionDefs, id } from './define';
import { LIMITS } from '../../limits';

export const progressFileActions = {
  'progress.list': {
    device: 'full',
    description: 'Recent progress reports, newest first (all, one conversation, or one agent).',
    input: () =>
      z.strictObject({
        conv_id: id().optional(),
        agent_id: id().optional(),
        before_id: z.number().int().optional(),
        limit: z.number().int().min(1).max(500).optional(),
      }),
  },
  'progress.activity': {
    device: 'full',
    description: 'Per agent, progress counts per minute over the last minutes (for sparklines), and last seen.',
    input: () =>
      z.strictObject({
        minutes: z
          .number()
          .int()
          .min(1)
          .max(24 * 60)
          .optional(),
      }),
  },
  'files.url': {
    device: 'laptop',
    description: 'A short-lived link to a file or its thumbnail.',
    input: () => z.strictObject({ file_id: id(), variant: z.enum(['original', 'thumb']).optional() }),
  },
  'files.send': {
    device: 'full',
    description: `Send a file or image as the owner (joins the conversation if needed), processed as agents' send_file: data is its content in base64 (at most ${LIMITS.maxFileBytes / 1048576} MiB decoded; over HTTP this action's JSON body may be up to ${LIMITS.maxFileBodyBytes} bytes), its type is read from the bytes, images are re-encoded without EXIF/GPS metadata and get a thumbnail. caption is text shown with it; to wakes the named members.`,
    input: () =>
      z.strictObject({
        conv_id: id(),
        name: z.string().min(1).max(256),
        // No max here: the decoded size is checked in hub/features/files, the body size at the door (as send_file).
        data: z.string().min(1),
        mime: z.string().min(1).max(256).optional(),
        caption: z.string().max(LIMITS.maxTextChars).optional(),
        to: z.array(id()).max(LIMITS.maxListItems).optional(),
        reply_to: id().optional(),
        thread_id: id().optional(),
      }),
  },
} as const satisfies ActionDefs;
