// What a tool's handler is: the call's context (the hub, the agent, how it called) and the handler's two steps.
// Each feature module exports its handlers typed with these; hub/tools/tools.ts joins them into the tool map and
// hub/tools/agent-tools.ts runs them (idempotent retries). Kept apart so that features never import the runner.
import type { Hub } from '../core/hub';
import type { Caller } from './key-waits';
import type { ToolArgs, ToolName, ToolResult } from '../../../shared/api/catalog';

/**
 * One call of a tool: the hub, the agent, and how it called (signal, key: hub/identity/key-waits.ts). H is the hub as
 * the handlers reach it (the features' and tools': hub/features/services.ts FeaturesHub).
 */
export interface AgentCtx<H extends Hub = Hub> extends Caller {
  hub: H;
  agentId: string;
}

/**
 * A tool handler. prepare (optional, async) runs before the write; run does the write in one transaction (a read
 * that waits, wait_secs, answers later). run answers the tool's declared result (its output schema in the catalog,
 * src/shared/api/catalog.ts): a handler answering another shape does not compile.
 */
export interface ToolHandler<N extends ToolName = ToolName, P = unknown, H extends Hub = Hub> {
  prepare?: (ctx: AgentCtx<H>, args: ToolArgs<N>) => Promise<P>;
  run: (ctx: AgentCtx<H>, args: ToolArgs<N>, prepared: P) => ToolResult<N> | Promise<ToolResult<N>>;
}

/** The handlers of some tools, keyed by tool name: each feature module exports one such map (hub/tools/tools.ts joins them). */
export type ToolHandlers<K extends ToolName = ToolName, H extends Hub = Hub> = { [N in K]: ToolHandler<N, any, H> };
