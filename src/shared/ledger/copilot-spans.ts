// What the ledger keeps of GitHub Copilot CLI's OpenTelemetry, which it sends as spans (OTLP/HTTP JSON to /v1/traces;
// its metrics carry nothing the ledger needs): each `execute_tool <tool>` span is a tool call's result (the tool, its
// call id, how long it ran, the exit code of a shell command, and with capture on (perch connect turns it on) what it
// was asked and the first lines of its output); each `chat <model>` span is one model call with its tokens. The
// spans of one user prompt share a trace, whose id is the turn of each fact (detail.turn). The
// `invoke_agent` span sums its chat spans and is not kept (it would count them twice). Copilot's own
// github.copilot.cost attribute counts premium requests, not dollars (0 with a provider of your own), so its
// tokens are priced by the price table, as Codex's are. Every other span is received and not kept. A kept span whose
// known fields have the wrong type is refused (the whole request: 400). Pure.
import type { OtlpSpan } from './otlp';
import type { LedgerFact } from './harness-events';
import { LEDGER_TEXT, WrongType, cut, firstLines, num, signedNum, text } from './attr-read';

/** Whether spans come from GitHub Copilot CLI (its service name, or its instrumentation's github.copilot attributes). */
function isCopilot(s: OtlpSpan): boolean {
  const service = s.resource.get('service.name');
  return (typeof service === 'string' && /copilot/i.test(service)) || [...s.attrs.keys()].some((k) => k.startsWith('github.copilot.'));
}

/** The arguments a span says its tool was called with (the JSON text, with capture on), else undefined. */
export function spanToolArgs(s: OtlpSpan): string | undefined {
  const v = s.attrs.get('gen_ai.tool.call.arguments');
  return typeof v === 'string' && v ? v : undefined;
}

/** The fact a Copilot span reports, undefined for a span the ledger does not keep, or why its fields are wrong. */
export function copilotSpanFact(s: OtlpSpan, receivedAt: number): LedgerFact | undefined | string {
  if (!isCopilot(s)) return undefined;
  const a = s.attrs;
  try {
    const op = text(a, 'gen_ai.operation.name', LEDGER_TEXT.idChars) ?? s.name.split(' ')[0];
    const at = s.startMs !== undefined && s.startMs > 0 && s.startMs < 8.64e15 ? s.startMs : receivedAt;
    // One user prompt's spans (invoke_agent, its chat and execute_tool spans) share a trace: the trace is the turn.
    const turn = s.traceId ? cut(s.traceId, LEDGER_TEXT.idChars) : undefined;
    const base = {
      harness: 'copilot' as const,
      at,
      session_id: text(a, 'gen_ai.conversation.id', LEDGER_TEXT.idChars) ?? null,
      tokens: null,
      cost_usd: null,
    };
    if (op === 'execute_tool') {
      const output = text(a, 'gen_ai.tool.call.result', 1_000_000);
      const exit = signedNum(a, 'process.exit.code');
      const duration = s.startMs !== undefined && s.endMs !== undefined && s.endMs >= s.startMs ? s.endMs - s.startMs : undefined;
      const detail: LedgerFact['detail'] = turn !== undefined ? { turn } : {};
      const asked = text(a, 'gen_ai.tool.call.arguments', LEDGER_TEXT.askedChars);
      if (asked !== undefined) detail.asked = asked;
      // Copilot marks a failed tool call's span as an error; a shell command's exit code is its own word.
      if (s.statusCode !== 0 || exit !== undefined) detail.success = s.statusCode !== 2 && (exit === undefined || exit === 0);
      if (duration !== undefined) detail.duration_ms = duration;
      if (exit !== undefined) detail.exit_code = exit;
      if (output !== undefined) detail.output_head = firstLines(output);
      const error = s.statusMessage ?? text(a, 'error.type', LEDGER_TEXT.fieldChars);
      if (s.statusCode === 2 && error) detail.error = cut(error, LEDGER_TEXT.fieldChars);
      return {
        ...base,
        kind: 'tool_result',
        call_id: text(a, 'gen_ai.tool.call.id', LEDGER_TEXT.idChars) ?? null,
        tool: text(a, 'gen_ai.tool.name', LEDGER_TEXT.idChars) ?? (s.name.slice('execute_tool '.length) || null),
        model: null,
        detail,
      };
    }
    if (op === 'chat') {
      const input = num(a, 'gen_ai.usage.input_tokens') ?? 0;
      const cached = Math.min(num(a, 'gen_ai.usage.cache_read.input_tokens') ?? 0, input);
      const reasoning = num(a, 'gen_ai.usage.reasoning.output_tokens');
      return {
        ...base,
        kind: 'api_request',
        call_id: null,
        tool: null,
        model: text(a, 'gen_ai.response.model', LEDGER_TEXT.idChars) ?? text(a, 'gen_ai.request.model', LEDGER_TEXT.idChars) ?? null,
        detail: { ...(reasoning !== undefined ? { reasoning_tokens: reasoning } : {}), ...(turn !== undefined ? { turn } : {}) },
        // The input count includes the cached tokens (OpenAI's way); the ledger keeps them apart.
        tokens: {
          input: input - cached,
          output: num(a, 'gen_ai.usage.output_tokens') ?? 0,
          cache_read: cached,
          cache_write: num(a, 'gen_ai.usage.cache_write.input_tokens') ?? 0,
        },
      };
    }
    return undefined;
  } catch (e) {
    if (e instanceof WrongType) return `${s.name.slice(0, 60)}: ${e.message}`;
    throw e;
  }
}
