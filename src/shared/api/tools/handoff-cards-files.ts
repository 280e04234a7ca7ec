// Catalog tools of handing off to the owner, cards, files, progress reports, reactions, threads and pins (in tools/list order; src/shared/api/tools/tool-list.ts assembles them).
import { z } from 'zod';
import { LIMITS } from '../../limits';
import * as R from '../tool-results';
import {
  MAX_TOKEN_CHARS,
  token,
  convId,
  msgId,
  limit,
  seq,
  operationId,
  card,
  READ_ONLY,
  COMMITS_ALONE,
  tool,
  PROGRESS_KINDS,
  FILE_VARIANTS,
} from './define';

export const handoffCardFileTools = [
  tool(
    'handoff',
    'Hand off to a person. Hands this conversation to a person (default: your owner) with a note on what they need to know. You are silent and not woken there until they hand it back; then you get their note.',
    () =>
      z.strictObject({
        conv_id: convId(),
        note: z.string().min(1).max(LIMITS.maxTextChars).describe('What the person needs to know.'),
        to: token().optional().describe('The person (name or id; default your owner).'),
        operation_id: operationId(),
      }),
    R.handoffResult,
  ),
  tool(
    'send_card',
    'Send a card. Sends a card people answer by clicking a button or filling a form; their response comes back to you in get_updates. card is {title?, blocks: […], once?}; a block is {type: text, text}, {type: buttons, id, options: [{id, label, style?: primary|danger}]} or {type: form, id, submit, fields: [{id, label, type: text|number|select|checkbox, required?, options?, max?}]}. Ids are a-z 0-9 _ -. text is what clients without cards show.',
    () =>
      z.strictObject({
        card: card(),
        conv_id: convId(),
        reply_to: msgId('The message this answers (optional).').optional(),
        text: z.string().min(1).max(LIMITS.maxTextChars).describe('Fallback text.'),
        operation_id: operationId(),
      }),
    R.sendCardResult,
  ),
  tool(
    'send_file',
    'Send a file or image. Sends a file to a conversation: data is its content in base64 (at most 16 MiB). Images (JPEG, PNG, GIF, WebP) are shown as images with a thumbnail; anything else as a file to download. Location data (EXIF, GPS) is removed. caption is optional text under it.',
    () =>
      z.strictObject({
        caption: z.string().max(LIMITS.maxTextChars).optional().describe('Text shown with it (optional).'),
        conv_id: convId(),
        // No max here: the decoded size is checked in hub/features/files, the body size in mcp/http.
        data: z.string().min(1).describe('The content, base64.'),
        mime: z.string().min(1).max(MAX_TOKEN_CHARS).optional().describe('Type of a non-image file, e.g. application/pdf (optional).'),
        name: z.string().min(1).max(MAX_TOKEN_CHARS).describe('File name, e.g. chart.png.'),
        reply_to: msgId('The message this answers (optional).').optional(),
        operation_id: operationId(),
      }),
    R.sendFileResult,
    { scope: 'files' },
  ),
  tool(
    'file_url',
    'Read a file. A link (valid 5 minutes) to a file or image someone sent: file_id is in the message’s payload. variant is original (default) or thumb.',
    () =>
      z.strictObject({
        conv_id: convId(),
        file_id: token().describe('The file.'),
        variant: z.enum(FILE_VARIANTS).optional().describe('One of original, thumb.'),
      }),
    R.fileUrlResult,
    { ...READ_ONLY, scope: 'files' },
  ),
  tool(
    'progress',
    'Report progress. Shows people what you are doing (thinking, tool_call, tool_result, plan, step, error) next to the conversation without a message: nobody is woken and it is not part of the history. At most 10 a second.',
    () =>
      z.strictObject({
        conv_id: convId(),
        data: z.unknown().optional().describe('Any JSON, up to 8KB.'),
        kind: z.enum(PROGRESS_KINDS).describe('One of thinking, tool_call, tool_result, plan, step, error.'),
        msg_id: msgId('Your message (e.g. a streamed reply) this belongs to.').optional(),
        text: z.string().max(LIMITS.maxTextChars).describe('What you are doing, in a few words.'),
      }),
    R.progressResult,
    COMMITS_ALONE,
  ),
  tool(
    'react',
    'React to a message. Adds a reaction (one emoji) to a message, e.g. 👀 when you start on a request or ✅ when it is done. Adding it again changes nothing.',
    () =>
      z.strictObject({
        conv_id: convId(),
        key: z.string().min(1).max(64).describe('One emoji, or one of the app’s :names:.'),
        msg_id: msgId(),
        operation_id: operationId(),
      }),
    R.reactResult,
  ),
  tool(
    'unreact',
    'Remove a reaction. Removes a reaction you added.',
    () =>
      z.strictObject({
        conv_id: convId(),
        key: z.string().min(1).max(64).describe('The reaction to remove (the key you added).'),
        msg_id: msgId(),
        operation_id: operationId(),
      }),
    R.reactResult,
  ),
  tool(
    'get_thread',
    'Read a thread. The root message of a thread and its replies after a seq, oldest first.',
    () =>
      z.strictObject({
        after_seq: seq('Only replies after this seq (optional).').optional(),
        conv_id: convId(),
        limit: limit(LIMITS.historyMaxLimit, 'Most replies to return (default 50, at most 200).').optional(),
        thread_id: msgId('The thread’s root message.'),
      }),
    R.getThreadResult,
    READ_ONLY,
  ),
  tool(
    'list_pins',
    'List pinned messages. The conversation’s pinned messages, latest pin first: what its people keep at hand (rules, decisions, links).',
    () =>
      z.strictObject({
        conv_id: convId(),
        limit: limit(LIMITS.historyMaxLimit, 'Most pins to return (default 50, at most 200).').optional(),
      }),
    R.listPinsResult,
    READ_ONLY,
  ),
] as const;
