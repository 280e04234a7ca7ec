// Which tool call a permission prompt is. Claude Code's PermissionRequest hook input names no tool_use_id; its
// PreToolUse input, sent just before for the same call, does. The hook door notes each PreToolUse's id under what it
// asked (agent, harness, session, tool, input); a PermissionRequest that asks the same finds it, so the ledger's
// record of Perch's decision joins the call's telemetry (hub/features/ledger/decisions.ts). A harness whose prompt
// input carries the id itself is taken at its word. Kept in memory, bounded: the two hooks of one call arrive within
// moments, and a restart in between only leaves that one decision unjoined.
import crypto from 'node:crypto';

/** How many recent tool calls are remembered (per hub, all agents together). */
export const TOOL_USE_MEMORY = 2000;

export interface ToolUseAsk {
  session_id?: unknown;
  tool_name?: unknown;
  tool_input?: unknown;
  tool_use_id?: unknown;
}

function keyOf(agentId: string, harness: string, ask: ToolUseAsk): string | undefined {
  if (typeof ask.session_id !== 'string' || !ask.session_id || typeof ask.tool_name !== 'string') return undefined;
  let input: string;
  try {
    input = JSON.stringify(ask.tool_input ?? null);
  } catch {
    return undefined;
  }
  return crypto.hash('sha256', JSON.stringify([agentId, harness, ask.session_id, ask.tool_name, input]), 'base64url');
}

export class ToolUseIds {
  private readonly ids = new Map<string, string>();

  /** A PreToolUse: the call's id under what it asked (the newest wins; the oldest are forgotten past the bound). */
  note(agentId: string, harness: string, ask: ToolUseAsk): void {
    if (typeof ask.tool_use_id !== 'string' || !ask.tool_use_id || ask.tool_use_id.length > 200) return;
    const key = keyOf(agentId, harness, ask);
    if (!key) return;
    this.ids.delete(key);
    this.ids.set(key, ask.tool_use_id);
    while (this.ids.size > TOOL_USE_MEMORY) this.ids.delete(this.ids.keys().next().value!);
  }

  /** The call id of a prompt: its own tool_use_id, else the latest PreToolUse that asked the same; undefined when unknown. */
  of(agentId: string, harness: string, ask: ToolUseAsk): string | undefined {
    if (typeof ask.tool_use_id === 'string' && ask.tool_use_id && ask.tool_use_id.length <= 200) return ask.tool_use_id;
    const key = keyOf(agentId, harness, ask);
    return key ? this.ids.get(key) : undefined;
  }
}
