// OTLP/HTTP JSON bodies as Claude Code and Codex send them (ExportLogsServiceRequest): attributes as OTLP's JSON mapping
// writes them (stringValue, intValue as a decimal string, doubleValue), one resource with service.name.

export type Attr = string | number | boolean | { int: number };

function value(v: Attr): Record<string, unknown> {
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (typeof v === 'number') return { doubleValue: v };
  return { intValue: String(v.int) };
}

export function attrs(o: Record<string, Attr>): Array<{ key: string; value: Record<string, unknown> }> {
  return Object.entries(o).map(([key, v]) => ({ key, value: value(v) }));
}

/** One log record: `name` in its body and its event.name attribute, as Claude Code writes them. */
export function logRecord(name: string, a: Record<string, Attr>, timeMs = Date.now()): Record<string, unknown> {
  return {
    timeUnixNano: `${timeMs}000000`,
    observedTimeUnixNano: `${timeMs}000000`,
    body: { stringValue: name },
    attributes: attrs({ 'event.name': name.replace(/^claude_code\./, ''), ...a }),
  };
}

export function logsBody(service: string, records: Array<Record<string, unknown>>): string {
  return JSON.stringify({
    resourceLogs: [
      {
        resource: { attributes: attrs({ 'service.name': service }) },
        scopeLogs: [{ scope: { name: 'com.anthropic.claude_code.events' }, logRecords: records }],
      },
    ],
  });
}

/**
 * A Claude Code tool call: its decision and its result, joined by tool_use_id; then the API request that cost `cost`.
 * With `prompt`, each event carries it as prompt.id (the turn), as Claude Code 2.1.332 sends it.
 */
export function claudeCodeCall(session: string, id: string, cost: number, t = Date.now(), prompt?: string): string {
  const body = claudeCodeEvents(session, id, cost, t);
  if (prompt === undefined) return body;
  const parsed = JSON.parse(body) as { resourceLogs: Array<{ scopeLogs: Array<{ logRecords: Array<{ attributes: unknown[] }> }> }> };
  for (const rl of parsed.resourceLogs)
    for (const sl of rl.scopeLogs) for (const r of sl.logRecords) r.attributes.push(...attrs({ 'prompt.id': prompt }));
  return JSON.stringify(parsed);
}

function claudeCodeEvents(session: string, id: string, cost: number, t: number): string {
  return logsBody('claude-code', [
    logRecord(
      'claude_code.tool_decision',
      { 'session.id': session, tool_name: 'Bash', tool_use_id: id, decision: 'accept', source: 'config' },
      t,
    ),
    logRecord(
      'claude_code.tool_result',
      {
        'session.id': session,
        tool_name: 'Bash',
        tool_use_id: id,
        success: 'true',
        duration_ms: { int: 2300 },
        tool_parameters: JSON.stringify({ bash_command: 'touch marker' }),
      },
      t + 1,
    ),
    logRecord(
      'claude_code.api_request',
      {
        'session.id': session,
        model: 'claude-sonnet-4-5',
        cost_usd: cost,
        input_tokens: { int: 1200 },
        output_tokens: { int: 300 },
        cache_read_tokens: { int: 50 },
        cache_creation_tokens: { int: 10 },
      },
      t + 2,
    ),
  ]);
}

/** A Codex turn: a shell call's result (call_id) and the response.completed event with its tokens. */
export function codexTurn(
  conversation: string,
  callId: string,
  model: string,
  tokens: { input: number; cached: number; output: number },
): string {
  return logsBody('codex_cli_rs', [
    {
      timeUnixNano: `${Date.now()}000000`,
      attributes: attrs({
        'event.name': 'codex.tool_result',
        'conversation.id': conversation,
        tool_name: 'shell',
        call_id: callId,
        arguments: JSON.stringify({ command: ['bash', '-lc', 'ls'] }),
        output: 'Exit code: 0\nWall time: 0.1 seconds\nOutput:\na\nb',
        success: 'true',
        duration_ms: { int: 120 },
        model,
      }),
    },
    {
      timeUnixNano: `${Date.now()}000000`,
      attributes: attrs({
        'event.name': 'codex.sse_event',
        'event.kind': 'response.completed',
        'conversation.id': conversation,
        model,
        input_token_count: { int: tokens.input },
        cached_token_count: { int: tokens.cached },
        output_token_count: { int: tokens.output },
        reasoning_token_count: { int: 0 },
      }),
    },
  ]);
}
