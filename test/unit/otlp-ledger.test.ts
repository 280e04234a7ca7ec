// The pure parts of the ledger: OTLP/JSON bodies read without trusting them (shared/ledger/otlp.ts), the harness's
// events as ledger facts (shared/ledger/harness-events.ts, read by the attribute readers of attr-read.ts) and the price table (shared/ledger/prices.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parseOtlpLogs, parseOtlpMetrics } from '../../src/shared/ledger/otlp';
import { factOf, LEDGER_TEXT } from '../../src/shared/ledger/harness-events';
import { SHIPPED_PRICES, costAt, priceKey, checkPrice } from '../../src/shared/ledger/prices';
import { bool, num, signedNum, text } from '../../src/shared/ledger/attr-read';
import { claudeCodeCall, codexTurn, logRecord, logsBody } from '../support/otlp-bodies';

test('a Claude Code batch reads as its tool decision, tool result and API request, joined by tool_use_id', () => {
  const recs = parseOtlpLogs(claudeCodeCall('s1', 'toolu_9', 0.25, 1_700_000_000_000));
  assert.ok(Array.isArray(recs));
  const facts = recs.map((r) => factOf(r, 5));
  assert.deepEqual(
    facts.map((f) => typeof f === 'object' && f && [f.kind, f.call_id, f.session_id, f.at]),
    [
      ['tool_decision', 'toolu_9', 's1', 1_700_000_000_000],
      ['tool_result', 'toolu_9', 's1', 1_700_000_000_001],
      ['api_request', null, 's1', 1_700_000_000_002],
    ],
  );
  const api = facts[2] as Exclude<(typeof facts)[number], string | undefined>;
  assert.equal(api.cost_usd, 0.25);
  assert.deepEqual(api.tokens, { input: 1200, output: 300, cache_read: 50, cache_write: 10 });
});

test("Codex's response.completed keeps the cached tokens apart from the input (OpenAI counts them inside it)", () => {
  const recs = parseOtlpLogs(codexTurn('c', 'call_1', 'gpt-5', { input: 1000, cached: 400, output: 50 }));
  assert.ok(Array.isArray(recs));
  const f = factOf(recs[1]!, 1);
  assert.ok(f && typeof f === 'object');
  assert.deepEqual(f.tokens, { input: 600, output: 50, cache_read: 400, cache_write: 0 });
  assert.equal(f.cost_usd, null);
  assert.equal(f.harness, 'codex');
});

test("Codex's response.completed without token counts (0.171.0 logs each response twice, once without them) is not an API request of its own", () => {
  const recs = parseOtlpLogs(
    logsBody('codex_cli_rs', [
      logRecord('codex.sse_event', { 'event.kind': 'response.completed', 'conversation.id': 'c', model: 'gpt-5' }),
      logRecord('codex.sse_event', {
        'event.kind': 'response.completed',
        'conversation.id': 'c',
        model: 'gpt-5',
        input_token_count: { int: 10 },
        output_token_count: { int: 2 },
      }),
    ]),
  );
  assert.ok(Array.isArray(recs));
  assert.equal(factOf(recs[0]!, 1), undefined);
  const f = factOf(recs[1]!, 1);
  assert.ok(f && typeof f === 'object');
  assert.deepEqual([f.kind, f.tokens], ['api_request', { input: 10, output: 2, cache_read: 0, cache_write: 0 }]);
});

test('events the ledger does not keep are read and left out; a kept one with a wrong type is refused with its name', () => {
  const recs = parseOtlpLogs(
    logsBody('claude-code', [
      logRecord('claude_code.user_prompt', { prompt_length: '3' }),
      logRecord('claude_code.tool_result', { success: 'maybe' }),
    ]),
  );
  assert.ok(Array.isArray(recs));
  assert.equal(factOf(recs[0]!, 1), undefined);
  assert.equal(factOf(recs[1]!, 1), 'claude_code.tool_result: success must be true or false');
});

test("a tool's output keeps its first lines only, and what it was asked is cut", () => {
  const long = Array.from({ length: 50 }, (_, i) => `line ${i}`).join('\n');
  const recs = parseOtlpLogs(
    logsBody('codex', [logRecord('codex.tool_result', { call_id: 'c', output: long, arguments: 'x'.repeat(10_000) })]),
  );
  assert.ok(Array.isArray(recs));
  const f = factOf(recs[0]!, 1);
  assert.ok(f && typeof f === 'object');
  assert.equal(f.detail.output_head!.split('\n').length, LEDGER_TEXT.outputLines);
  assert.equal(f.detail.asked!.length, LEDGER_TEXT.askedChars);
});

test('bodies that are not OTLP are refused with the first reason', () => {
  assert.equal(parseOtlpLogs('nope'), 'the body is not JSON');
  assert.equal(parseOtlpLogs('{"resourceLogs": {}}'), 'body.resourceLogs must be an array');
  assert.match(
    String(parseOtlpLogs('{"resourceLogs": [{"scopeLogs": [{"logRecords": [{"attributes": [{"key": 1}]}]}]}]}')),
    /key must be a string/,
  );
  assert.match(
    String(parseOtlpLogs('{"resourceLogs": [{"scopeLogs": [{"logRecords": [{"timeUnixNano": "soon"}]}]}]}')),
    /timeUnixNano must be an integer/,
  );
  assert.match(
    String(
      parseOtlpMetrics(
        '{"resourceMetrics": [{"scopeMetrics": [{"metrics": [{"name": "m", "sum": {"dataPoints": [{"asDouble": "1"}]}}]}]}]}',
      ),
    ),
    /asDouble must be a number/,
  );
  assert.equal(
    parseOtlpMetrics('{"resourceMetrics": [{"scopeMetrics": [{"metrics": [{"name": "m", "gauge": {"dataPoints": [{"asInt": "3"}]}}]}]}]}'),
    1,
  );
  assert.deepEqual(parseOtlpLogs('{}'), [], 'an empty request is a valid one');
});

test('the price table: a dated snapshot finds its model; cost of input, cached input and output; the owner’s figures checked', () => {
  assert.equal(priceKey('GPT-5-2025-08-07'), 'gpt-5');
  assert.equal(costAt(SHIPPED_PRICES['gpt-5']!, { input: 1_000_000, cache_read: 1_000_000, output: 1_000_000 }), 1.25 + 0.125 + 10);
  assert.equal(typeof checkPrice({ input_per_mtok: 1, cached_input_per_mtok: -1, output_per_mtok: 1 }), 'string');
});

test("Gemini CLI 0.61.0's log batch (test/fixtures/gemini-otlp.json) reads as one API request: its api_response's tokens with the cached apart and thinking as output; its config, prompt and the semantic twin left out", () => {
  const captured = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'gemini-otlp.json'), 'utf8'));
  const recs = parseOtlpLogs(JSON.stringify(captured.logs));
  assert.ok(Array.isArray(recs));
  assert.ok(recs.length > 5, `the batch holds Gemini's other events too (${recs.length})`);
  const facts = recs.map((r) => factOf(r, 1)).filter((f) => f !== undefined);
  assert.equal(facts.length, 1, JSON.stringify(facts));
  const f = facts[0]!;
  assert.ok(typeof f === 'object');
  assert.deepEqual(
    [f.kind, f.harness, f.model, f.session_id, f.cost_usd],
    ['api_request', 'gemini', 'gemini-2.5-pro', '18c7e137-7387-4955-b429-952754625b6e', null],
  );
  assert.deepEqual(f.tokens, { input: 600, output: 70, cache_read: 400, cache_write: 0 });
  // Its prompt_id is the turn (in a one-prompt run, 0.61.0 names it as the session).
  assert.deepEqual(f.detail, { duration_ms: 241, reasoning_tokens: 20, turn: '18c7e137-7387-4955-b429-952754625b6e' });
  // A tool's prompt tokens are input as well.
  const withTools = parseOtlpLogs(
    logsBody('gemini-cli', [
      logRecord('gemini_cli.api_response', { model: 'gemini-2.5-flash', input_token_count: { int: 100 }, tool_token_count: { int: 30 } }),
      logRecord('gemini_cli.tool_call', { function_name: 'run_shell_command', success: 'maybe' }),
    ]),
  );
  assert.ok(Array.isArray(withTools));
  assert.deepEqual((factOf(withTools[0]!, 1) as { tokens: unknown }).tokens, { input: 130, output: 0, cache_read: 0, cache_write: 0 });
  assert.equal(factOf(withTools[1]!, 1), undefined, 'its tool calls come from its AfterTool hook, not its telemetry');
});

test('the attribute readers are one set for log records and spans: a count is never negative, an exit code may be', () => {
  const a = new Map<string, string | number | boolean | null>([
    ['n', '12'],
    ['neg', -1],
    ['word', 'lots'],
    ['flag', 'true'],
  ]);
  assert.equal(num(a, 'n'), 12);
  assert.throws(() => num(a, 'neg'), /neg must be a number from 0 to 1e15/);
  assert.equal(signedNum(a, 'neg'), -1);
  assert.throws(() => signedNum(a, 'word'), /word must be a number/);
  assert.equal(bool(a, 'flag'), true);
  assert.equal(text(a, 'word', 3), 'lo…');
  assert.equal(num(a, 'missing'), undefined);
});
