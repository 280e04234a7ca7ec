// Cursor's tool calls in the flight recorder. Cursor's hooks name no call id: its beforeShellExecution /
// beforeMCPExecution (the permission hooks) and its afterShellExecution / afterMCPExecution (the result) carry the
// conversation (conversation_id), the agent turn (generation_id) and what was asked, nothing more. So each permission
// hook that reaches the hub opens a call under an id of Perch's own ("cursor-<uuid>"): Perch's decision on it
// (decisions.ts) carries that id, and the after hook that asked the same in the same conversation closes the call
// (the oldest such open call of the same generation first, else the oldest), so its result (hook-results.ts) joins the
// decision as one call. Kept in memory, bounded: past TOOL_USE_MEMORY open calls, the oldest of the conversation quiet
// the longest is forgotten. A result whose call was forgotten (or a hub restarted between the two hooks) is a call of
// its own.
import crypto from 'node:crypto';
import { TOOL_USE_MEMORY } from './tool-use-ids';
import { canonicalJsonOrUndefined } from '../../../../shared/text/canonical-json';

/** What a Cursor hook asked, as both hooks of one call say it. */
export interface CursorAsk {
  agentId: string;
  conversation: string | undefined;
  /** "shell", or "mcp:<tool name as Cursor names it>" (the after hook does not name the MCP server). */
  match: string;
  input: unknown;
  generation: string | undefined;
}

interface OpenCall {
  id: string;
  canon: string | undefined;
  generation: string | undefined;
  /** The tool as the permission hook named it (an MCP tool with its server). */
  tool: string;
}

export class CursorCalls {
  /** Open calls by (agent, conversation, what kind), oldest first; how many there are in all. */
  private readonly open = new Map<string, OpenCall[]>();
  private count = 0;

  private keyOf(a: CursorAsk): string {
    return JSON.stringify([a.agentId, a.conversation ?? '', a.match]);
  }

  /** A permission hook: a call opened under a new id of Perch's, which it returns. */
  openCall(a: CursorAsk, tool: string): string {
    const id = `cursor-${crypto.randomUUID()}`;
    const key = this.keyOf(a);
    const list = this.open.get(key) ?? [];
    list.push({ id, canon: canonicalJsonOrUndefined(a.input), generation: a.generation, tool });
    // Most recently used last, so the bound forgets the calls of the longest quiet conversations first.
    this.open.delete(key);
    this.open.set(key, list);
    if (++this.count > TOOL_USE_MEMORY) {
      const [oldest, calls] = this.open.entries().next().value!;
      calls.shift();
      this.count--;
      if (calls.length === 0) this.open.delete(oldest);
    }
    return id;
  }

  /** A call Perch denied (it never runs, so no after hook closes it): forgotten, so no later result takes it. */
  forget(a: CursorAsk, id: string): void {
    const key = this.keyOf(a);
    const list = this.open.get(key);
    const at = list ? list.findIndex((c) => c.id === id) : -1;
    if (at < 0) return;
    list!.splice(at, 1);
    this.count--;
    if (list!.length === 0) this.open.delete(key);
  }

  /** An after hook: the open call it closes (its id and tool), or undefined when none asked the same. */
  closeCall(a: CursorAsk): { id: string; tool: string } | undefined {
    const key = this.keyOf(a);
    const list = this.open.get(key);
    if (!list) return undefined;
    const canon = canonicalJsonOrUndefined(a.input);
    const same = (c: OpenCall) => c.canon !== undefined && c.canon === canon;
    let at = a.generation === undefined ? -1 : list.findIndex((c) => same(c) && c.generation === a.generation);
    if (at < 0) at = list.findIndex(same);
    if (at < 0) return undefined;
    const [call] = list.splice(at, 1);
    this.count--;
    if (list.length === 0) this.open.delete(key);
    return { id: call!.id, tool: call!.tool };
  }
}
