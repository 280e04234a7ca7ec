// Which tool call a permission prompt is. Claude Code's PermissionRequest hook input names no tool_use_id; its
// PreToolUse input, sent just before for the same call, does. The hook door notes each PreToolUse's id under what it
// asked (agent, harness, session, tool, input); a PermissionRequest that asks the same finds it, so the ledger's
// record of Perch's decision joins the call's telemetry (hub/features/ledger/decisions.ts). A harness whose prompt
// input carries the id itself is taken at its word. Kept in memory, bounded: the two hooks of one call arrive within
// moments, and a restart in between only leaves that one decision unjoined.
// GitHub Copilot CLI's hooks carry no call id at all, and its telemetry's id (an execute_tool span's) arrives only
// after the call ran. So each Copilot preToolUse opens a call under an id of Perch's own ("copilot-<uuid>"), queued
// under (agent, session, tool) with its arguments; its permissionRequest (whose input is part of those arguments:
// bash's {command} of {command, description}) takes the oldest open call it fits, and its execute_tool span (the
// same arguments, with the capture perch connect turns on; else the oldest) closes it: the span's record carries that
// id, so Perch's decision and Copilot's own record of the call are one call in the ledger.
import crypto from 'node:crypto';
import { canonicalJsonOrUndefined } from '../../../../shared/text/canonical-json';

/** How many recent tool calls are remembered (per hub, all agents together). */
export const TOOL_USE_MEMORY = 2000;

export interface ToolUseAsk {
  session_id?: unknown;
  tool_name?: unknown;
  tool_input?: unknown;
  tool_use_id?: unknown;
  /**
   * The turn the call belongs to, as the hook input names it: Claude Code's prompt_id, Codex's turn_id; Cursor's
   * generation_id (given as turn by its door).
   */
  prompt_id?: unknown;
  turn_id?: unknown;
  turn?: unknown;
}

/** The turn a hook's ask names (turn, turn_id, prompt_id: the first given), bounded; undefined when it names none. */
export function turnOfAsk(ask: ToolUseAsk): string | undefined {
  const t = [ask.turn, ask.turn_id, ask.prompt_id].find((x): x is string => typeof x === 'string' && x !== '');
  return t === undefined ? undefined : t.length <= 200 ? t : `${t.slice(0, 199)}…`;
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

/** Whether a permission prompt's input is part of a call's arguments (each of its fields the same there). */
function fits(prompt: unknown, args: unknown): boolean {
  if (!prompt || typeof prompt !== 'object' || Array.isArray(prompt))
    return canonicalJsonOrUndefined(prompt) === canonicalJsonOrUndefined(args);
  if (!args || typeof args !== 'object') return false;
  return Object.entries(prompt).every(
    ([k, v]) => canonicalJsonOrUndefined(v) === canonicalJsonOrUndefined((args as Record<string, unknown>)[k]),
  );
}

interface OpenCall {
  id: string;
  args: unknown;
  canon: string | undefined;
  prompted: boolean;
}

export class ToolUseIds {
  private readonly ids = new Map<string, string>();
  /** Copilot's open calls by (agent, session, tool), oldest first, and how many there are in all. */
  private readonly open = new Map<string, OpenCall[]>();
  private openCount = 0;

  private openKey(agentId: string, session: unknown, tool: unknown): string | undefined {
    if (typeof session !== 'string' || !session || typeof tool !== 'string' || !tool) return undefined;
    return JSON.stringify([agentId, session, tool]);
  }

  /** A Copilot preToolUse: a call opened under an id of Perch's (the oldest calls forgotten past the bound). */
  private openCopilotCall(agentId: string, ask: ToolUseAsk): void {
    const key = this.openKey(agentId, ask.session_id, ask.tool_name);
    if (!key) return;
    const list = this.open.get(key) ?? [];
    list.push({
      id: `copilot-${crypto.randomUUID()}`,
      args: ask.tool_input,
      canon: canonicalJsonOrUndefined(ask.tool_input),
      prompted: false,
    });
    this.open.delete(key);
    this.open.set(key, list);
    if (++this.openCount > TOOL_USE_MEMORY) {
      const [oldest, calls] = this.open.entries().next().value!;
      calls.shift();
      this.openCount--;
      if (calls.length === 0) this.open.delete(oldest);
    }
  }

  /**
   * A Copilot execute_tool span of the agent's: the id of the open call it closes (the oldest with the same
   * arguments, or the oldest when the span carries none), undefined when none is open.
   */
  closeCopilotCall(agentId: string, session: string | null, tool: string | null, argsJson: string | undefined): string | undefined {
    const key = this.openKey(agentId, session, tool);
    const list = key ? this.open.get(key) : undefined;
    if (!key || !list) return undefined;
    let at = 0;
    if (argsJson !== undefined) {
      let canon: string | undefined;
      try {
        canon = canonicalJsonOrUndefined(JSON.parse(argsJson));
      } catch {
        canon = undefined;
      }
      at = list.findIndex((c) => c.canon !== undefined && c.canon === canon);
      if (at < 0) return undefined;
    }
    const [call] = list.splice(at, 1);
    this.openCount--;
    if (list.length === 0) this.open.delete(key);
    return call!.id;
  }

  /** A PreToolUse: the call's id under what it asked (the newest wins; the oldest are forgotten past the bound). */
  note(agentId: string, harness: string, ask: ToolUseAsk): void {
    if (harness === 'copilot' && ask.tool_use_id === undefined) return this.openCopilotCall(agentId, ask);
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
    if (harness === 'copilot') {
      const key = this.openKey(agentId, ask.session_id, ask.tool_name);
      const call = key ? this.open.get(key)?.find((c) => !c.prompted && fits(ask.tool_input, c.args)) : undefined;
      if (call) call.prompted = true;
      return call?.id;
    }
    const key = keyOf(agentId, harness, ask);
    return key ? this.ids.get(key) : undefined;
  }
}
