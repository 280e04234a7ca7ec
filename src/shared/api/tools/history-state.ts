// Catalog tools of reading history, context and search, summaries, and the key-value state (in tools/list order; src/shared/api/tools/tool-list.ts assembles them).
import { z } from 'zod';
import { LIMITS } from '../../limits';
import * as R from '../tool-results';
import {
  token,
  convId,
  limit,
  seq,
  version,
  msTime,
  jsonValue,
  operationId,
  READ_ONLY,
  DESTRUCTIVE,
  instanceArg,
  tool,
  INTENTS,
  SENDER_TYPES,
} from './define';

export const historyStateTools = [
  tool(
    'get_history',
    'Read history. Reads what you can see of a conversation by position: the latest messages by default, or before_seq / after_seq to page (use first_seq / last_seq of the previous answer). Up to 200 events.',
    () =>
      z.strictObject({
        after_seq: seq('Only events after this seq (optional).').optional(),
        before_seq: seq('Only events before this seq (optional).').optional(),
        conv_id: convId(),
        limit: limit(LIMITS.historyMaxLimit, 'Most events to return (default 50, at most 200).').optional(),
      }),
    R.getHistoryResult,
    READ_ONLY,
  ),
  tool(
    'get_context',
    'Get context. What you need to continue in a conversation, within a token budget: your latest summary of it plus the newer events, oldest first. Use it after a restart or on a new machine.',
    () =>
      z.strictObject({
        conv_id: convId(),
        max_tokens: z.number().int().min(1).max(LIMITS.contextMaxTokens).optional().describe('Token budget (default 4000).'),
        instance: instanceArg(),
      }),
    R.getContextResult,
    READ_ONLY,
  ),
  tool(
    'search',
    'Search messages. Finds messages you can see containing a text (case-insensitive), in one conversation or your 20 most recently active ones. complete is false when not everything was searched.',
    () =>
      z.strictObject({
        conv_id: convId('Only this conversation (optional).').optional(),
        has_refs: z.boolean().optional().describe('Only messages citing others (true) or not (false).'),
        intent: z.enum(INTENTS).optional().describe('Only messages with this intent (optional).'),
        kind: token().optional().describe('Only this message kind (text, card, a custom type).'),
        limit: limit(LIMITS.searchMaxLimit, 'Most messages to return (default 20, at most 100).').optional(),
        query: z.string().min(1).max(LIMITS.maxTextChars).describe('The text to find.'),
        sender_id: token().optional().describe('Only messages from this user.'),
        sender_type: z.enum(SENDER_TYPES).optional().describe('One of human, agent.'),
        since: msTime('From this time (ms since 1970).').optional(),
        topic: token().optional().describe('Only messages tagged with this topic (optional).'),
        until: msTime('Up to this time (ms since 1970).').optional(),
      }),
    R.searchResult,
    READ_ONLY,
  ),
  tool(
    'put_summary',
    'Write a summary. Stores your own summary of a range of a conversation (from_seq..to_seq, which you must be able to see). get_context then starts from it. Only you can read it.',
    () =>
      z.strictObject({
        conv_id: convId(),
        from_seq: seq('First seq the summary covers.'),
        text: z.string().min(1).max(LIMITS.maxSummaryChars).describe('The summary.'),
        to_seq: seq('Last seq the summary covers.'),
        operation_id: operationId(),
      }),
    R.putSummaryResult,
    { scope: 'state' },
  ),
  tool(
    'state_get',
    'Read a checkpoint. Reads a value you stored with state_put (the current version, or an older one by number). Keys under archive/ hold what was imported with you from another server.',
    () =>
      z.strictObject({
        key: z.string().min(1).max(LIMITS.maxStateKeyBytes).describe('The key.'),
        version: version('An older version to read (optional; default the current one).').optional(),
      }),
    R.stateGetResult,
    { ...READ_ONLY, scope: 'state' },
  ),
  tool(
    'state_put',
    'Store a checkpoint. Stores any JSON value (up to 1 MiB) under a key on the server, so you can carry on after a restart or on another machine. Pass the version you read (0 to create); if somebody wrote in between you get a conflict and should read again. Returns the new version.',
    () =>
      z.strictObject({
        key: z.string().min(1).max(LIMITS.maxStateKeyBytes).describe('The key.'),
        value: jsonValue().describe('Any JSON value (up to 1 MiB).'),
        version: version('The version you read (0 to create).'),
        operation_id: operationId(),
      }),
    R.statePutResult,
    { scope: 'state' },
  ),
  tool(
    'state_list',
    'List checkpoints. Your keys in byte order, optionally only those starting with a prefix; page with after (the last key you got).',
    () =>
      z.strictObject({
        after: z.string().min(1).max(LIMITS.maxStateKeyBytes).optional().describe('The last key you got (optional).'),
        limit: limit(LIMITS.historyMaxLimit, 'Most keys to return (optional).').optional(),
        prefix: z.string().max(LIMITS.maxStateKeyBytes).optional().describe('Only keys starting with this (optional).'),
      }),
    R.stateListResult,
    { ...READ_ONLY, scope: 'state' },
  ),
  tool(
    'state_delete',
    'Delete a checkpoint. Deletes a key with all its versions; pass the current version.',
    () =>
      z.strictObject({
        key: z.string().min(1).max(LIMITS.maxStateKeyBytes).describe('The key.'),
        version: version('The current version.'),
        operation_id: operationId(),
      }),
    R.stateDeleteResult,
    { ...DESTRUCTIVE, scope: 'state' },
  ),
] as const;
