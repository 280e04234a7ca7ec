// Catalog tools of asking the owner (requests), tasks, claims and the floor (in tools/list order; src/shared/api/tools/tool-list.ts assembles them).
import { z } from 'zod';
import { LIMITS } from '../../limits';
import * as R from '../tool-results';
import { token, convId, msgId, clientId, nameList, operationId, READ_ONLY, tool, REQUEST_KINDS, TASK_STATES } from './define';

export const requestTaskTools = [
  tool(
    'request_human',
    'Ask a person to decide. Asks your owner (or named members of the conversation) to approve or reject something, answer a question, or choose an option, before you act. Returns a request_id; call get_request with wait_secs to wait for the decision. Use it before anything irreversible or costly.',
    () =>
      z.strictObject({
        assignees: nameList('People in the conversation who may decide (default: your owner).').optional(),
        client_req_id: clientId('Your id for this request; repeat it on retries.').optional(),
        context: z.unknown().optional().describe('Details for the decider, e.g. the tool call arguments (JSON, at most 32KB).'),
        conv_id: convId('Conversation the request belongs to.'),
        kind: z.enum(REQUEST_KINDS).describe('One of approve, answer, choose.'),
        options: z.array(z.string().min(1).max(LIMITS.maxTitleChars)).max(LIMITS.maxListItems).optional().describe('For kind=choose.'),
        title: z.string().min(1).max(LIMITS.maxTitleChars).describe('What is to be decided, in plain words.'),
        ttl_secs: z
          .number()
          .int()
          .min(1)
          .max(LIMITS.requestMaxTtlSecs)
          .optional()
          .describe('How long the request stays open (default one day).'),
      }),
    R.requestHumanResult,
    { scope: 'ask' },
  ),
  tool(
    'get_request',
    'Get a decision. The state and outcome of a request: pending, approved, rejected, answered, chosen, expired or cancelled. With wait_secs it waits up to that long for a decision.',
    () =>
      z.strictObject({
        request_id: token().describe('From request_human.'),
        wait_secs: z
          .number()
          .int()
          .min(0)
          .max(LIMITS.maxWaitSecs)
          .optional()
          .describe('While the request is pending, wait up to this many seconds for a decision (optional).'),
      }),
    R.requestResult,
    { ...READ_ONLY, scope: 'ask' },
  ),
  tool(
    'cancel_request',
    'Cancel a request. Withdraws a request you made that is still pending.',
    () =>
      z.strictObject({
        request_id: token().describe('From request_human.'),
        operation_id: operationId(),
      }),
    R.requestResult,
    { scope: 'ask' },
  ),
  tool(
    'create_task',
    'Create a task channel. Creates a task channel for one piece of work with people or agents you may contact; optionally names the member responsible (assignee), who is woken to work on it. States follow A2A: submitted, working, input_required, completed, failed, canceled.',
    () =>
      z.strictObject({
        assignee: token().optional().describe('Member responsible for the task (name or id).'),
        members: nameList('Members of the task channel (names or ids).'),
        title: z.string().min(1).max(LIMITS.maxTitleChars).describe('What the task is, in a few words.'),
        operation_id: operationId(),
      }),
    R.conversationOrHeldResult,
  ),
  tool(
    'update_task',
    'Update a task. Moves a task to a state (working, input_required, completed, failed, canceled) and/or reassigns it, with an optional note. After completed, failed or canceled nobody is woken and agents cannot speak in it.',
    () =>
      z.strictObject({
        assignee: token().optional().describe('New assignee (creator or manager only).'),
        conv_id: convId('The task channel.'),
        note: z.string().max(LIMITS.maxTextChars).optional().describe('A note on the change (optional).'),
        state: z.enum(TASK_STATES).optional().describe('One of submitted, working, input_required, completed, failed, canceled.'),
        operation_id: operationId(),
      }),
    R.updateTaskResult,
  ),
  tool(
    'claim',
    'Claim a request. Takes a message sent with intent=request for yourself. The first claim wins; others get a conflict. Release it if you cannot do it.',
    () =>
      z.strictObject({
        msg_id: msgId('The request message.'),
        operation_id: operationId(),
      }),
    R.claimResult,
  ),
  tool(
    'release_claim',
    'Release a claim. Gives back a request you claimed so somebody else can take it.',
    () =>
      z.strictObject({
        msg_id: msgId('The request message.'),
        operation_id: operationId(),
      }),
    R.claimResult,
  ),
  tool(
    'floor_grant',
    'Give the floor. As a manager of the conversation (e.g. a coordinator agent), lets one coordinated agent speak for a while; it is woken. Only one holder at a time.',
    () =>
      z.strictObject({
        agent: token().describe('The agent (name or id).'),
        conv_id: convId(),
        ttl_secs: z
          .number()
          .int()
          .min(1)
          .max(LIMITS.floorMaxTtlSecs)
          .optional()
          .describe('How long the agent holds the floor, in seconds (default 300).'),
        operation_id: operationId(),
      }),
    R.floorGrantResult,
  ),
  tool(
    'floor_release',
    'Release the floor. Ends the current turn (the holder or a manager).',
    () =>
      z.strictObject({
        conv_id: convId(),
        operation_id: operationId(),
      }),
    R.floorReleaseResult,
  ),
] as const;
