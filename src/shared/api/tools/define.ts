// What a catalog tool is (ToolSpec, tool()) and the argument pieces the tool declarations (src/shared/api/tools/*.ts) share.
// Pure TypeScript: no Node, no DOM.
import { z } from 'zod';
import { LIMITS } from '../../limits';
import type { KeyScope } from '../../agents/scoped-keys';

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
export const MAX_TOKEN_CHARS = 256;
/** Longest operation_id / client_msg_id / client_req_id (characters). */
export const MAX_CLIENT_ID_CHARS = 128;

/** A tool's result shape: an object, or a union of objects (done, or held under review mode). */
export type ToolOutput = z.ZodObject | z.ZodUnion<readonly z.ZodObject[]>;

// ---- field builders -------------------------------------------------------------------------

export const token = () => z.string().min(1).max(MAX_TOKEN_CHARS);
export const convId = (d = 'The conversation.') => token().describe(d);
export const msgId = (d = 'The message.') => token().describe(d);
export const clientId = (d: string) => z.string().min(1).max(MAX_CLIENT_ID_CHARS).describe(d);
export const nameList = (d: string) => z.array(token()).max(LIMITS.maxListItems).describe(d);
export const limit = (max: number, d: string) => z.number().int().min(1).max(max).describe(d);
export const seq = (d: string) => z.number().int().min(0).describe(d);
export const version = (d: string) => z.number().int().min(0).describe(d);
export const msTime = (d: string) => z.number().int().min(0).describe(d);

/** Memoizes a schema builder: the schema is made on first use (not at module load) and then shared. */
export const once = <T>(make: () => T): (() => T) => {
  let made: T | undefined;
  return () => (made ??= make());
};

/** A reference: a bare string (id or URL) or a described pointer. */
export const refItem = once(() =>
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
export const refList = (d: string) => z.array(refItem()).max(LIMITS.maxListItems).describe(d);

/** Any JSON value; undefined (a missing key) is refused. */
export const jsonValue = () => z.unknown().refine((v) => v !== undefined, { message: 'Required: a JSON value (null is allowed).' });

/** Idempotency key for writes without client_msg_id / client_req_id (docs/design.md, "What always holds" 4). */
export const operationId = () => clientId('Your id for this write; repeat it on retries so it is done once (optional).').optional();

export const INTENTS = ['request', 'proposal', 'answer', 'status', 'done'] as const;
export const REQUEST_KINDS = ['approve', 'answer', 'choose'] as const;
export const TASK_STATES = ['submitted', 'working', 'input_required', 'completed', 'failed', 'canceled'] as const;
export const SENDER_TYPES = ['human', 'agent'] as const;
export const PROGRESS_KINDS = ['thinking', 'tool_call', 'tool_result', 'plan', 'step', 'error'] as const;
export const FILE_VARIANTS = ['original', 'thumb'] as const;

/** The card is validated fully (with path-precise errors) by the hub; here only its shape. */
export const card = () =>
  z
    .looseObject({
      title: z.string().optional(),
      blocks: z.array(z.unknown()),
      once: z.boolean().optional(),
    })
    .describe('The card: {title?, blocks: […], once?}.');

// ---- catalog ----------------------------------------------------------------------------------

/** What a tool is, beyond its arguments: read-only, destructive, or a write not group-committed. */
export interface ToolFacts {
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
export function tool<const N extends string, S extends z.ZodObject, O extends ToolOutput>(
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

export const READ_ONLY: ToolFacts = { readOnly: true };
/** Deletes for good: a recalled message's content, a checkpoint with all its versions. */
export const DESTRUCTIVE: ToolFacts = { destructive: true };
/** Publishes its report to the owner right after its own commit, so it is not batched with others. */
export const COMMITS_ALONE: ToolFacts = { groupCommitted: false };

// Agent sessions: the optional instance arguments (additive; omitting them behaves as before).
export const instanceArg = () =>
  z
    .string()
    .min(1)
    .max(80)
    .optional()
    .describe(
      "Your session's instance name: 2-40 of a-z 0-9 - _ (spaces become dashes). Each named instance has its own place in get_updates (optional).",
    );
export const toInstanceArg = () =>
  z
    .string()
    .min(1)
    .max(80)
    .optional()
    .describe('The instance (session) of the agent you address; a courtesy, not a filter: everyone still receives the message (optional).');
