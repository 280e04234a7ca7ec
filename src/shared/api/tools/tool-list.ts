// Every catalog tool in tools/list order, and the types named after them.
import type { z } from 'zod';
import type { ToolSpec } from './define';
import { identityConversationTools } from './identity-conversations';
import { requestTaskTools } from './requests-tasks';
import { historyStateTools } from './history-state';
import { handoffCardFileTools } from './handoff-cards-files';

const TOOL_LIST = [...identityConversationTools, ...requestTaskTools, ...historyStateTools, ...handoffCardFileTools] as const;

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
