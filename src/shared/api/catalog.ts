// The tool catalog agents see: names, order, descriptions, argument schemas and result schemas (shapes in tool-results.ts).
// Source of truth: the agent tool contract, kept as test/fixtures/contract.json (test/unit/catalog.test.ts checks it).
// Pure TypeScript: no Node, no DOM.
import { z } from 'zod';
import { LIMITS } from '../limits';
import { MAX_INSTANCE_NOTE_CHARS } from '../agents/agent-sessions';
import type { KeyScope } from '../agents/scoped-keys';
import * as R from './tool-results';

export interface ToolSpec<S extends z.ZodObject = z.ZodObject, O extends ToolOutput = ToolOutput> {
  /** Tool name, e.g. 'send_message'. */
  name: string;
  /** The contract's short title, e.g. 'Send a message'. */
  title: string;
  /** The contract's description paragraph, verbatim (it starts with the title sentence). */
  description: string;
  /** Arguments; strict: unknown arguments are refused. */
  input: S;
  /**
   * What a call answers (structuredContent, less the request_id the MCP door adds): the handler's return type
   * (ToolResult) and the tool's outputSchema. A write held under review mode answers the second shape of a union.
   */
  output: O;
  /** The contract marks the tool "Read-only.". */
  readOnly: boolean;
  /** It deletes what cannot be had back (tools/list annotations.destructiveHint). */
  destructive: boolean;
  /**
   * A writing call that may share one transaction with the calls arriving with it (the MCP door's group
   * commit; it answers after that COMMIT). Never a read-only tool.
   */
  groupCommitted: boolean;
  /** The key scope a call needs (scoped keys; the MCP door checks it), or 'any' (whoami). */
  scope: KeyScope | 'any';
}

/** Longest id, name, key-like token or topic an argument may carry (characters). */
const MAX_TOKEN_CHARS = 256;
/** Longest operation_id / client_msg_id / client_req_id (characters). */
const MAX_CLIENT_ID_CHARS = 128;

/** A tool's result shape: an object, or a union of objects (done, or held under review mode). */
export type ToolOutput = z.ZodObject | z.ZodUnion<readonly z.ZodObject[]>;

// ---- field builders -------------------------------------------------------------------------

const token = () => z.string().min(1).max(MAX_TOKEN_CHARS);
const convId = (d = 'The conversation.') => token().describe(d);
const msgId = (d = 'The message.') => token().describe(d);
const clientId = (d: string) => z.string().min(1).max(MAX_CLIENT_ID_CHARS).describe(d);
const nameList = (d: string) => z.array(token()).max(LIMITS.maxListItems).describe(d);
const limit = (max: number, d: string) => z.number().int().min(1).max(max).describe(d);
const seq = (d: string) => z.number().int().min(0).describe(d);
const version = (d: string) => z.number().int().min(0).describe(d);
const msTime = (d: string) => z.number().int().min(0).describe(d);

/** Memoizes a schema builder: the schema is made on first use (not at module load) and then shared. */
const once = <T>(make: () => T): (() => T) => {
  let made: T | undefined;
  return () => (made ??= make());
};

/** A reference: a bare string (id or URL) or a described pointer. */
const refItem = once(() =>
  z.union([
    z.string().min(1).max(LIMITS.maxTextChars),
    z.strictObject({
      type: z.string().max(MAX_TOKEN_CHARS).optional().describe('What it is, e.g. doc, artifact, message, url.'),
      id: z.string().max(MAX_TOKEN_CHARS).optional().describe('Its id.'),
      url: z.string().max(LIMITS.maxTextChars).optional().describe('Where to find it.'),
      title: z.string().max(LIMITS.maxTitleChars).optional().describe('A short title.'),
      conv_id: z.string().max(MAX_TOKEN_CHARS).optional().describe('Conversation of a referenced message.'),
      msg_id: z.string().max(MAX_TOKEN_CHARS).optional().describe('A referenced message.'),
    }),
  ]),
);
const refList = (d: string) => z.array(refItem()).max(LIMITS.maxListItems).describe(d);

/** Any JSON value; undefined (a missing key) is refused. */
const jsonValue = () => z.unknown().refine((v) => v !== undefined, { message: 'Required: a JSON value (null is allowed).' });

/** Idempotency key for writes without client_msg_id / client_req_id (docs/design.md, "What always holds" 4). */
const operationId = () => clientId('Your id for this write; repeat it on retries so it is done once (optional).').optional();

export const INTENTS = ['request', 'proposal', 'answer', 'status', 'done'] as const;
export const REQUEST_KINDS = ['approve', 'answer', 'choose'] as const;
export const TASK_STATES = ['submitted', 'working', 'input_required', 'completed', 'failed', 'canceled'] as const;
export const SENDER_TYPES = ['human', 'agent'] as const;
export const PROGRESS_KINDS = ['thinking', 'tool_call', 'tool_result', 'plan', 'step', 'error'] as const;
export const FILE_VARIANTS = ['original', 'thumb'] as const;

/** The card is validated fully (with path-precise errors) by the hub; here only its shape. */
const card = () =>
  z
    .looseObject({
      title: z.string().optional(),
      blocks: z.array(z.unknown()),
      once: z.boolean().optional(),
    })
    .describe('The card: {title?, blocks: […], once?}.');

// ---- catalog ----------------------------------------------------------------------------------

/** What a tool is, beyond its arguments: read-only, destructive, or a write not group-committed. */
interface ToolFacts {
  readOnly?: boolean;
  destructive?: boolean;
  groupCommitted?: false;
  /** Default: read for a read-only tool, write for the rest. */
  scope?: KeyScope | 'any';
}

/**
 * One tool. Its input and output schemas are made on first use (a call of the tool, or their JSON schemas when the
 * build did not precompute them): building every tool's zod schema at module load was a large part of a hub's cold start.
 */
function tool<const N extends string, S extends z.ZodObject, O extends ToolOutput>(
  name: N,
  description: string,
  makeInput: () => S,
  makeOutput: () => O,
  facts: ToolFacts = {},
): ToolSpec<S, O> & { readonly name: N } {
  const end = description.indexOf('. ');
  const title = end > 0 ? description.slice(0, end) : description.replace(/\.$/, '');
  const readOnly = facts.readOnly ?? false;
  const scope = facts.scope ?? (readOnly ? 'read' : 'write');
  const input = once(makeInput);
  const output = once(makeOutput);
  return {
    name,
    title,
    description,
    get input() {
      return input();
    },
    get output() {
      return output();
    },
    readOnly,
    destructive: facts.destructive ?? false,
    groupCommitted: !readOnly && (facts.groupCommitted ?? true),
    scope,
  };
}

const READ_ONLY: ToolFacts = { readOnly: true };
/** Deletes for good: a recalled message's content, a checkpoint with all its versions. */
const DESTRUCTIVE: ToolFacts = { destructive: true };
/** Publishes its report to the owner right after its own commit, so it is not batched with others. */
const COMMITS_ALONE: ToolFacts = { groupCommitted: false };

// Agent sessions: the optional instance arguments (additive; omitting them behaves as before).
const instanceArg = () =>
  z
    .string()
    .min(1)
    .max(80)
    .optional()
    .describe(
      "Your session's instance name: 2-40 of a-z 0-9 - _ (spaces become dashes). Each named instance has its own place in get_updates (optional).",
    );
const toInstanceArg = () =>
  z
    .string()
    .min(1)
    .max(80)
    .optional()
    .describe('The instance (session) of the agent you address; a courtesy, not a filter: everyone still receives the message (optional).');

const TOOL_LIST = [
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

type ToolList = typeof TOOL_LIST;

/** Union of the tool names. */
export type ToolName = ToolList[number]['name'];

/** The spec of one tool, with its precise input schema type. */
export type ToolSpecOf<N extends ToolName> = Extract<ToolList[number], { name: N }>;

/** Parsed arguments of one tool. */
export type ToolArgs<N extends ToolName> = z.output<ToolSpecOf<N>['input']>;

/** What one tool's handler answers: its output schema's type (the MCP door adds request_id). */
export type ToolResult<N extends ToolName> = z.output<ToolSpecOf<N>['output']>;

/** All tools, in tools/list order. */
export const TOOLS: readonly ToolSpec[] = Object.freeze(TOOL_LIST.slice() as ToolSpec[]);

export const TOOL_BY_NAME: ReadonlyMap<string, ToolSpec> = new Map(TOOLS.map((t) => [t.name, t]));

export function isToolName(name: string): name is ToolName {
  return TOOL_BY_NAME.has(name);
}

// ---- JSON Schema and fingerprint ---------------------------------------------------------------

/**
 * The catalog's JSON schemas and fingerprint, precomputed by the build (scripts/build-main.mjs runs
 * catalogJson() below on this very file and defines this name as that JSON text). Undefined when the
 * sources run unbundled (tests under tsx): then they are computed here on first use, the same way.
 */
declare const __PERCH_CATALOG_JSON__: string | undefined;
type CatalogJson = { version: string; schemas: Record<string, Record<string, unknown>>; outputs: Record<string, Record<string, unknown>> };
let builtCatalog: CatalogJson | null | undefined;
function built(): CatalogJson | null {
  return (builtCatalog ??= typeof __PERCH_CATALOG_JSON__ === 'string' ? (JSON.parse(__PERCH_CATALOG_JSON__) as CatalogJson) : null);
}

/** What the build precomputes: every catalog tool's inputSchema and outputSchema, and the fingerprint (tool_schema_version). */
export function catalogJson(): CatalogJson {
  return {
    version: schemaFingerprint(TOOLS),
    schemas: Object.fromEntries(TOOLS.map((t) => [t.name, toolInputJsonSchema(t)])),
    outputs: Object.fromEntries(TOOLS.map((t) => [t.name, toolOutputJsonSchema(t)])),
  };
}

const jsonSchemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();

/** The tool's inputSchema for tools/list (JSON Schema 2020-12, no $schema key). Frozen, memoized. */
export function toolInputJsonSchema(t: ToolSpec): Record<string, unknown> {
  // A catalog tool's schema comes from the build when it has one: no zod schema is built for tools/list.
  const precomputed = TOOL_BY_NAME.get(t.name) === t ? built()?.schemas[t.name] : undefined;
  if (precomputed) return deepFreeze(precomputed);
  let schema = jsonSchemaCache.get(t.input);
  if (!schema) {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(t.input, {
      target: 'draft-2020-12',
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    schema = deepFreeze(rest);
    jsonSchemaCache.set(t.input, schema);
  }
  return schema;
}

/**
 * The tool's outputSchema for tools/list (JSON Schema 2020-12, no $schema key). Frozen, memoized. Objects stay open
 * (zod's input view of a z.object sets no additionalProperties): the door adds request_id to every answer. The root
 * is always type object (a union is {type: object, anyOf}): structuredContent is an object, and a client of the
 * 2025 revisions would wrap the value of a schema whose root is not.
 */
export function toolOutputJsonSchema(t: ToolSpec): Record<string, unknown> {
  const precomputed = TOOL_BY_NAME.get(t.name) === t ? built()?.outputs[t.name] : undefined;
  if (precomputed) return deepFreeze(precomputed);
  let schema = jsonSchemaCache.get(t.output);
  if (!schema) {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(t.output, {
      target: 'draft-2020-12',
      io: 'input',
      unrepresentable: 'any',
      override: ({ jsonSchema: j }) => {
        // z.int()'s safe-integer bounds say nothing an answer's reader needs.
        if (j.type === 'integer' && j.minimum === Number.MIN_SAFE_INTEGER && j.maximum === Number.MAX_SAFE_INTEGER) {
          delete j.minimum;
          delete j.maximum;
        }
      },
    }) as Record<string, unknown>;
    schema = deepFreeze({ type: 'object', ...rest });
    jsonSchemaCache.set(t.output, schema);
  }
  return schema;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** JSON with object keys sorted, so the fingerprint does not depend on key order. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const FNV64_OFFSET = 0xcbf29ce484222325n;
const FNV64_PRIME = 0x100000001b3n;
const MASK64 = 0xffffffffffffffffn;

const UTF8_LEAD = [0, 0xc0, 0xe0, 0xf0];

/** FNV-1a 64 over the UTF-8 bytes of s, as 16 hex chars. (No TextEncoder: ES lib only.) */
function fnv1a64(s: string): string {
  let h = FNV64_OFFSET;
  const add = (byte: number) => {
    h = ((h ^ BigInt(byte)) * FNV64_PRIME) & MASK64;
  };
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) {
      add(c);
      continue;
    }
    const tail = c < 0x800 ? 1 : c < 0x10000 ? 2 : 3;
    add(UTF8_LEAD[tail] | (c >> (6 * tail)));
    for (let k = tail - 1; k >= 0; k--) add(0x80 | ((c >> (6 * k)) & 0x3f));
  }
  return h.toString(16).padStart(16, '0');
}

/** Fingerprint of a catalog: changes whenever a name, title, description, input or output schema or readOnly does. */
export function schemaFingerprint(tools: readonly ToolSpec[]): string {
  return fnv1a64(
    canonicalJson(
      tools.map((t) => ({
        name: t.name,
        title: t.title,
        description: t.description,
        inputSchema: toolInputJsonSchema(t),
        outputSchema: toolOutputJsonSchema(t),
        readOnly: t.readOnly,
      })),
    ),
  );
}

/** tool_schema_version reported by whoami and tools/list._meta. */
let fingerprint: string | undefined;
/**
 * The catalog's fingerprint (tool_schema_version), computed on first use: it walks every tool's JSON
 * schema, which a hub need not do before it answers its first request (cold start).
 */
export function toolSchemaVersion(): string {
  return (fingerprint ??= built()?.version ?? schemaFingerprint(TOOLS));
}
