// What the ledger keeps of a harness's OpenTelemetry log events: Claude Code's claude_code.tool_decision,
// claude_code.tool_result and claude_code.api_request, Codex's codex.tool_decision, codex.tool_result and
// codex.sse_event (response.completed, with the turn's tokens), Gemini CLI's gemini_cli.api_response (a model call's
// tokens; its tool calls come from its AfterTool hook). Every other event (prompts, other API events) is
// received and not kept. A kept event whose known fields have the wrong type is refused (the whole request: 400).
// Bounded: what was asked and the output are cut (LEDGER_TEXT), so a record stays small whatever a harness sends.
// The attribute readers are shared with the spans' (attr-read.ts).
import type { FlatValue, OtlpLogRecord } from './otlp';
import { LEDGER_TEXT, WrongType, bool, firstLines, num, text } from './attr-read';

/**
 * The harnesses whose telemetry is read, Cursor and GitHub Copilot CLI (their prompts come through a hook door:
 * perch_decision), Gemini CLI (its AfterTool: tool_result) and OpenCode (its plugin's blocks and tool results:
 * mcp/hook-door/opencode.ts).
 */
export const LEDGER_HARNESSES = ['claude-code', 'codex', 'cursor', 'copilot', 'gemini', 'opencode'] as const;
export type LedgerHarness = (typeof LEDGER_HARNESSES)[number];
/**
 * tool_decision, tool_result, api_request: what a harness reported. perch_decision: what Perch decided on a tool
 * call's permission prompt filed through a hook door, and who or what decided it (hub/features/ledger/decisions.ts).
 */
export type FactKind = 'tool_decision' | 'tool_result' | 'api_request' | 'perch_decision' | 'perch_event';

/**
 * Perch's own events in the flight recorder (kind perch_event, harness perch), each of one agent: its wake runs
 * (started; ended, with status, exit code and duration), its pauses and resumes, its standing rules added and removed;
 * and the owner's ledger_removed (retention removed whole days of records).
 */
export interface PerchEvent {
  event:
    'wake_run_started' | 'wake_run_ended' | 'paused' | 'resumed' | 'rule_added' | 'rule_removed' | 'ledger_removed' | 'ledger_imported';
  run_id?: string;
  /** wake_run_started: command or notify; and why it was woken. */
  run_kind?: string;
  why?: string;
  /** wake_run_ended: how it ended (succeeded, failed, timed_out, …), its exit code or signal, how long it ran. */
  status?: string;
  exit_code?: number | null;
  signal?: string | null;
  duration_ms?: number | null;
  error?: string | null;
  /** paused: by the owner or the budget (a daily cap), the owner's reason, the cap's detail; resumed: what it was. */
  by?: string;
  reason?: string | null;
  detail?: string | null;
  was?: string;
  /** rule_added, rule_removed: the rule's id and what it says ("allow Bash: npm test"), and where the owner did it. */
  rule_id?: string;
  rule?: string;
  on?: DecidedOn;
  /**
   * ledger_removed (the owner's record): how many records retention removed (reason: which days, which rule).
   * ledger_imported (the owner's record): how many records perch import added (reason: which archive).
   */
  records?: number;
  /** ledger_imported: each day of the archive's chain as verified: its last record's id and hash there, its records. */
  heads?: LedgerHead[];
}

/** The end of one day's chain in an archive, as perch import verified it. */
export interface LedgerHead {
  day: string;
  id: number;
  hash: string;
  records: number;
}

/** Where the owner decided a card: the laptop (the Perch window, `perch owner`) or a paired device. */
export type DecidedOn = { via: 'laptop' } | { via: 'device'; device_id: string; name: string };

/** What Perch decided on a tool call's permission prompt (a hook door's), and who or what decided it. */
export interface PerchDecision {
  /** none: Perch decided nothing; the harness's own dialog decided. */
  decision: 'allow' | 'deny' | 'none';
  /** owner: the owner, on the card (on: where); rule: a standing rule (rule_id); pause: the agent was paused; nobody. */
  by: 'owner' | 'rule' | 'pause' | 'nobody';
  on?: DecidedOn;
  rule_id?: string;
  /** The card (request) the prompt was filed as, when one was. */
  request_id?: string;
  /** Why nobody decided (no decision in time, withdrawn, …), or the deny's message. */
  why?: string;
}

/** Who or what decided a tool call, in the ledger's words. */
export type DecidedBy = 'allowlist' | 'perch' | 'user' | 'harness';

/** Every DecidedBy, as the ledger's calls are filtered by it. */
export const DECIDED_BY: readonly DecidedBy[] = ['allowlist', 'perch', 'user', 'harness'];

export { LEDGER_TEXT };

/** One fact a harness reported, as the ledger stores it (ledger_records). */
export interface LedgerFact {
  kind: FactKind;
  harness: LedgerHarness;
  /** The harness's own time of the event (ms); the receiver's when it sent none. */
  at: number;
  session_id: string | null;
  /** Claude Code's tool_use_id, Codex's call_id: what joins a call's decision and result. */
  call_id: string | null;
  tool: string | null;
  model: string | null;
  detail: FactDetail;
  tokens: { input: number; output: number; cache_read: number; cache_write: number } | null;
  /** The harness's own dollar figure (Claude Code); Codex reports none. */
  cost_usd: number | null;
}

export interface FactDetail {
  decision?: string;
  decided_by?: DecidedBy;
  /** The harness's own word for who decided (Claude Code: config, hook, user_temporary …). */
  decision_source?: string;
  asked?: string;
  success?: boolean;
  duration_ms?: number;
  exit_code?: number;
  output_head?: string;
  error?: string;
  reasoning_tokens?: number;
  /**
   * The turn (the user prompt and the agent's work on it) the fact belongs to, in the harness's own id: Claude Code's
   * prompt.id, Gemini CLI's prompt_id, GitHub Copilot CLI's trace id, Cursor's generation_id. Absent when the harness
   * names none (Codex's log events, OpenCode's tool calls).
   */
  turn?: string;
  /** perch_decision: what Perch decided and who or what decided it. */
  perch?: PerchDecision;
  /** perch_event: what happened in Perch. */
  perch_event?: PerchEvent;
}

/** Claude Code's decision source (config, hook, user_permanent, user_temporary, user_abort, user_reject) as who decided. */
export function decidedBy(source: string | undefined): DecidedBy | undefined {
  if (!source) return undefined;
  if (source === 'config' || source === 'allowlist') return 'allowlist';
  if (source === 'hook') return 'perch';
  if (source.startsWith('user')) return 'user';
  return 'harness';
}

/** The event's full name (claude_code.x, codex.x), from its own name or the resource's service.name. */
function fullName(r: OtlpLogRecord): string | undefined {
  const n = r.name;
  if (!n) return undefined;
  if (n.startsWith('claude_code.') || n.startsWith('codex.') || n.startsWith('gemini_cli.')) return n;
  const service = r.resource.get('service.name');
  if (typeof service !== 'string') return undefined;
  if (/claude/i.test(service)) return `claude_code.${n}`;
  if (/codex/i.test(service)) return `codex.${n}`;
  return undefined;
}

function clean<T extends object>(o: T): T {
  for (const k of Object.keys(o) as Array<keyof T>) if (o[k] === undefined) delete o[k];
  return o;
}

/** The fact a log record reports, undefined for an event the ledger does not keep, or why its fields are wrong. */
export function factOf(r: OtlpLogRecord, receivedAt: number): LedgerFact | undefined | string {
  const name = fullName(r);
  if (!name) return undefined;
  const harness: LedgerHarness = name.startsWith('codex.') ? 'codex' : name.startsWith('gemini_cli.') ? 'gemini' : 'claude-code';
  const event = name.slice(name.indexOf('.') + 1);
  // Gemini CLI's tool calls are recorded from its AfterTool hook (mcp/hook-door/gemini.ts); its telemetry adds the cost.
  if (harness === 'gemini' && event !== 'api_response') return undefined;
  const a = r.attrs;
  try {
    const sessionOf = (m: Map<string, FlatValue>) =>
      text(m, 'session.id', LEDGER_TEXT.idChars) ?? text(m, 'conversation.id', LEDGER_TEXT.idChars);
    // Claude Code puts prompt.id on every event after a prompt; Gemini CLI names it prompt_id.
    const turn = text(a, 'prompt.id', LEDGER_TEXT.idChars) ?? text(a, 'prompt_id', LEDGER_TEXT.idChars);
    const base = {
      harness,
      at: r.timeMs !== undefined && r.timeMs > 0 && r.timeMs < 8.64e15 ? r.timeMs : receivedAt,
      session_id: sessionOf(a) ?? sessionOf(r.resource) ?? null,
      call_id: text(a, 'tool_use_id', LEDGER_TEXT.idChars) ?? text(a, 'call_id', LEDGER_TEXT.idChars) ?? null,
      tool: text(a, 'tool_name', LEDGER_TEXT.idChars) ?? null,
      model: text(a, 'model', LEDGER_TEXT.idChars) ?? null,
      tokens: null,
      cost_usd: null,
    };
    if (event === 'tool_decision') {
      const source = text(a, 'source', LEDGER_TEXT.fieldChars) ?? text(a, 'decision_source', LEDGER_TEXT.fieldChars);
      return {
        ...base,
        kind: 'tool_decision',
        detail: clean({
          decision: text(a, 'decision', LEDGER_TEXT.fieldChars),
          decision_source: source,
          decided_by: decidedBy(source),
          turn,
        }),
      };
    }
    if (event === 'tool_result') {
      const output = text(a, 'output', 1_000_000);
      const exit = output !== undefined ? /^\s*(?:Exit code|exit_code|Process exited with code)[:\s]+(-?\d+)/im.exec(output) : null;
      const source = text(a, 'decision_source', LEDGER_TEXT.fieldChars);
      return {
        ...base,
        kind: 'tool_result',
        detail: clean({
          asked:
            text(a, 'tool_parameters', LEDGER_TEXT.askedChars) ??
            text(a, 'tool_input', LEDGER_TEXT.askedChars) ??
            text(a, 'arguments', LEDGER_TEXT.askedChars),
          success: bool(a, 'success'),
          duration_ms: num(a, 'duration_ms'),
          exit_code: num(a, 'exit_code') ?? (exit ? Number(exit[1]) : undefined),
          output_head: output !== undefined ? firstLines(output) : undefined,
          error: text(a, 'error', LEDGER_TEXT.fieldChars),
          decision: text(a, 'decision_type', LEDGER_TEXT.fieldChars) ?? text(a, 'decision', LEDGER_TEXT.fieldChars),
          decision_source: source,
          decided_by: decidedBy(source),
          turn,
        }),
      };
    }
    if (harness === 'claude-code' && event === 'api_request') {
      const micros = num(a, 'cost_usd_micros');
      const usd = micros !== undefined ? micros / 1e6 : num(a, 'cost_usd');
      return {
        ...base,
        kind: 'api_request',
        call_id: null,
        tool: null,
        detail: clean({ duration_ms: num(a, 'duration_ms'), turn }),
        tokens: {
          input: num(a, 'input_tokens') ?? 0,
          output: num(a, 'output_tokens') ?? 0,
          cache_read: num(a, 'cache_read_tokens') ?? 0,
          cache_write: num(a, 'cache_creation_tokens') ?? 0,
        },
        cost_usd: usd ?? null,
      };
    }
    if (harness === 'codex' && event === 'sse_event') {
      if (text(a, 'event.kind', LEDGER_TEXT.idChars) !== 'response.completed') return undefined;
      // Codex 0.171.0 logs each response.completed twice: once without its token counts, once with them. The one
      // without is not an API request of its own (kept, it would count every request twice).
      if (num(a, 'input_token_count') === undefined && num(a, 'output_token_count') === undefined) return undefined;
      const input = num(a, 'input_token_count') ?? 0;
      const cached = Math.min(num(a, 'cached_token_count') ?? 0, input);
      return {
        ...base,
        kind: 'api_request',
        call_id: null,
        tool: null,
        detail: clean({ reasoning_tokens: num(a, 'reasoning_token_count'), turn }),
        // OpenAI's input count includes the cached tokens; the ledger keeps them apart, as Claude Code reports them.
        tokens: { input: input - cached, output: num(a, 'output_token_count') ?? 0, cache_read: cached, cache_write: 0 },
        cost_usd: null,
      };
    }
    if (harness === 'gemini') return geminiApiResponse(a, base, turn);
    return undefined;
  } catch (e) {
    if (e instanceof WrongType) return `${name}: ${e.message}`;
    throw e;
  }
}

/**
 * Gemini CLI's gemini_cli.api_response (one per model call): Gemini's usage counts as it names them. Its input count
 * (promptTokenCount) includes the cached tokens, which the ledger keeps apart; the prompt tokens of its tools
 * (toolUsePromptTokenCount) are input too, and its thinking tokens (thoughtsTokenCount) are billed as output. Its
 * semantic twin, gen_ai.client.inference.operation.details, is the same call and is not kept.
 */
function geminiApiResponse(a: Map<string, FlatValue>, base: Omit<LedgerFact, 'kind' | 'detail'>, turn: string | undefined): LedgerFact {
  const prompt = (num(a, 'input_token_count') ?? 0) + (num(a, 'tool_token_count') ?? 0);
  const cached = Math.min(num(a, 'cached_content_token_count') ?? 0, prompt);
  const thoughts = num(a, 'thoughts_token_count');
  return {
    ...base,
    kind: 'api_request',
    call_id: null,
    tool: null,
    detail: clean({ duration_ms: num(a, 'duration_ms'), reasoning_tokens: thoughts || undefined, turn }),
    tokens: { input: prompt - cached, output: (num(a, 'output_token_count') ?? 0) + (thoughts ?? 0), cache_read: cached, cache_write: 0 },
    cost_usd: null,
  };
}
