// Catalog tools of who the agent is, its config, its conversations, its updates, and sending, editing and recalling messages (in tools/list order; src/shared/api/tools/tool-list.ts assembles them).
import { z } from 'zod';
import { LIMITS } from '../../limits';
import { MAX_INSTANCE_NOTE_CHARS } from '../../agents/agent-sessions';
import * as R from '../tool-results';
import {
  MAX_TOKEN_CHARS,
  token,
  convId,
  msgId,
  clientId,
  nameList,
  limit,
  refList,
  operationId,
  READ_ONLY,
  DESTRUCTIVE,
  instanceArg,
  toInstanceArg,
  tool,
  INTENTS,
} from './define';

export const identityConversationTools = [
  tool(
    'whoami',
    'Who am I. Your agent identity, your owner (the person responsible for you) and your limits.',
    () =>
      z.strictObject({
        instance: instanceArg(),
        instance_note: z
          .string()
          .max(MAX_INSTANCE_NOTE_CHARS)
          .optional()
          .describe('One line about this instance (what it works on), listed in whoami.instances (optional).'),
      }),
    R.whoamiResult,
    { ...READ_ONLY, scope: 'any' },
  ),
  tool(
    'get_config',
    'Get my configuration. Your role (name, description and instructions to follow), and the skills, MCP servers and APIs you were given. Read it when you start and again after a config.updated notice; version changes whenever the content does.',
    () => z.strictObject({}),
    R.getConfigResult,
    READ_ONLY,
  ),
  tool(
    'list_conversations',
    'List conversations. Conversations you are a member of, with title, kind, members, last seq and unread count.',
    () => z.strictObject({}),
    R.listConversationsResult,
    READ_ONLY,
  ),
  tool(
    'get_updates',
    'Get updates. What is new in your conversations since your last call, in order: messages, edits, recalls, membership changes, and private notes from your owner. Calling again confirms you received the previous answer, so the same events are not returned twice; if an answer was lost, they come again. If more is true, call again.',
    () =>
      z.strictObject({
        ack: z
          .string()
          .min(1)
          .max(MAX_TOKEN_CHARS)
          .optional()
          .describe('The ack of the answer you are confirming (optional; without it, the last answer counts as received).'),
        limit: limit(LIMITS.updatesMaxLimit, 'Most events to return (default 100).').optional(),
        wait_secs: z
          .number()
          .int()
          .min(0)
          .max(LIMITS.maxWaitSecs)
          .optional()
          .describe('When nothing is new, wait up to this many seconds until you are woken (optional).'),
        instance: instanceArg(),
      }),
    R.getUpdatesResult,
    // Not read-only in the contract: a call confirms the previous answer (moves the cursor).
    // No operation_id: ack already makes retries safe.
    { scope: 'read' },
  ),
  tool(
    'send_message',
    'Send a message. Sends a message to a conversation you are a member of. Name who should act in to (they are woken; others are not), tag it with topics, say what it is with intent, and point to material with refs instead of pasting it. Pass the same client_msg_id when you retry so the message is not sent twice.',
    () =>
      z.strictObject({
        client_msg_id: clientId('Your id for this message; repeat it on retries (optional).').optional(),
        conv_id: convId('Conversation id (from list_conversations or get_updates).'),
        intent: z.enum(INTENTS).optional().describe('One of request, proposal, answer, status, done.'),
        refs: refList('References to documents, artifacts or messages.').optional(),
        reply_to: msgId('msg_id of the message you answer (optional).').optional(),
        sources: refList('Sources your answer is based on; people see them under the message.').optional(),
        text: z.string().min(1).max(LIMITS.maxTextChars).describe('The message.'),
        thread_id: msgId(
          'Reply in the thread of this message (the thread’s root; optional). When you were woken by a message in a thread, answer in the same thread.',
        ).optional(),
        to: nameList('Members who should act (names or ids).').optional(),
        topics: nameList('Topics to tag the message with (optional).').optional(),
        instance: instanceArg(),
        to_instance: toInstanceArg(),
      }),
    R.sendMessageResult,
  ),
  tool(
    'edit_message',
    'Edit a message. Replaces the text of a message you sent.',
    () =>
      z.strictObject({
        msg_id: msgId(),
        text: z.string().min(1).max(LIMITS.maxTextChars).describe('The new text.'),
        operation_id: operationId(),
      }),
    R.editMessageResult,
  ),
  tool(
    'recall_message',
    'Recall a message. Withdraws a message you sent; its content is deleted for everyone.',
    () =>
      z.strictObject({
        msg_id: msgId(),
        operation_id: operationId(),
      }),
    R.recallMessageResult,
    DESTRUCTIVE,
  ),
  tool(
    'find_user',
    'Find a user. Looks up a person or agent by exact user name.',
    () =>
      z.strictObject({
        name: token().describe('Exact user name.'),
      }),
    R.findUserResult,
    READ_ONLY,
  ),
  tool(
    'open_direct',
    'Open a direct conversation. Opens (or returns the existing) one-to-one conversation with a person or agent: your owner, your owner’s agents, or someone you already share a conversation with.',
    () =>
      z.strictObject({
        user: token().describe('User name or id.'),
        operation_id: operationId(),
      }),
    R.conversationResult,
  ),
  tool(
    'create_group',
    'Create a group. Creates a group with people or agents you may contact (see open_direct). Your owner becomes its owner and you manage it as an admin.',
    () =>
      z.strictObject({
        members: nameList('User names or ids.'),
        title: z.string().min(1).max(LIMITS.maxTitleChars).describe('Title of the group.'),
        operation_id: operationId(),
      }),
    R.conversationOrHeldResult,
  ),
  tool(
    'add_member',
    'Add a member. Adds a person or agent you may contact to a group you manage.',
    () =>
      z.strictObject({
        conv_id: convId('The group.'),
        history: z.number().int().min(0).optional().describe('How many recent messages the new member sees (optional).'),
        user: token().describe('User name or id.'),
        operation_id: operationId(),
      }),
    R.conversationResult,
  ),
] as const;
