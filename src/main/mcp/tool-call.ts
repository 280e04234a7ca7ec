// A tools/call at the MCP door: its arguments checked against the catalog, and its answer serialized.
// A tool's failure is a result with isError and structuredContent.error (code, message, next_step),
// never a JSON-RPC error: agents read it like any other result.
import { toolSchemaVersion, type ToolSpec } from '../../shared/api/catalog';
import type { ErrorBody } from '../../shared/errors';
import { LIMITS } from '../../shared/limits';
import { tooDeep } from '../../shared/text/json-depth';
import { MODERN_META_JSON, type Era } from './era';

/** The arguments as the tool's schema parsed them, or why they are refused (invalid_argument, too_large). */
export type CheckedArguments = { args: Record<string, unknown>; refused?: undefined } | { refused: ErrorBody };

export function validateArguments(spec: ToolSpec, rawArgs: unknown): CheckedArguments {
  const name = spec.name;
  // Before anything walks the arguments (zod, JSON.stringify of a value): deep nesting would overflow the stack.
  const deep = tooDeep(rawArgs, LIMITS.maxJsonDepth);
  if (deep !== undefined) {
    return {
      refused: {
        code: 'invalid_argument',
        message: `Invalid arguments for ${name}: ${deep}: arrays and objects are nested more than ${LIMITS.maxJsonDepth} levels deep (limits.maxJsonDepth).`,
        next_step: 'Nest the value less deeply (whoami lists the limits).',
      },
    };
  }
  const parsed = spec.input.safeParse(rawArgs);
  if (parsed.success) return { args: parsed.data as Record<string, unknown> };
  const issues = parsed.error.issues;
  const detail = issues.map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`).join('; ');
  // Text or lists over a size limit are too_large (the stable code of a size limit), not a malformed call.
  const oversize = issues.every((i) => i.code === 'too_big' && (i.origin === 'string' || i.origin === 'array'));
  if (oversize) {
    return {
      refused: {
        code: 'too_large',
        message: `Over a size limit in ${name}: ${detail}`,
        next_step: 'Shorten it (whoami lists the limits), or send long material as a file and point to it with refs.',
      },
    };
  }
  return {
    refused: {
      code: 'invalid_argument',
      message: `Invalid arguments for ${name}: ${detail}`,
      next_step: `Check the arguments against the ${name} schema in tools/list.`,
    },
  };
}

/**
 * The whole JSON-RPC answer to a successful call, built by hand: the result is serialized once (not once
 * for the text copy and again for structuredContent); for a page of events that is most of the call's
 * JSON work. The same bytes reply() would send for { content, structuredContent }.
 */
export function toolResultJson(era: Era, id: unknown, requestId: string, value: Record<string, unknown>): string {
  // request_human / get_request / cancel_request return the contract's request_id (the request to a
  // person); it must not be overwritten by this call's id, which then goes in call_request_id.
  const structured = typeof value.request_id === 'string' ? { ...value, call_request_id: requestId } : { ...value, request_id: requestId };
  const json = JSON.stringify(structured);
  const content = `[{"type":"text","text":${JSON.stringify(json)}}]`;
  const result =
    era === 'modern'
      ? `{"resultType":"complete","content":${content},"structuredContent":${json},"_meta":${MODERN_META_JSON}}`
      : `{"content":${content},"structuredContent":${json}}`;
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${result}}`;
}

/** A tool's failure as its result: isError, with the error, the call's request_id and the catalog version. */
export function errorResult(body: ErrorBody, requestId: string): Record<string, unknown> {
  const structured = { error: body, request_id: requestId, tool_schema_version: toolSchemaVersion() };
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, isError: true };
}

/** A short, printable picture of any JSON value (what a bad argument was), never throwing. */
export function describe(v: unknown): string {
  if (typeof v === 'string') return v.slice(0, 200);
  try {
    return (JSON.stringify(v) ?? String(v)).slice(0, 200);
  } catch {
    return typeof v;
  }
}
