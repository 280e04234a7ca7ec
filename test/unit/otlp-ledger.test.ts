// The pure parts of the ledger: OTLP/JSON bodies read without trusting them (shared/ledger/otlp.ts), the harness's
// events as ledger facts (shared/ledger/harness-events.ts) and the price table (shared/ledger/prices.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOtlpLogs, parseOtlpMetrics } from '../../src/shared/ledger/otlp';
import { factOf, LEDGER_TEXT } from '../../src/shared/ledger/harness-events';
import { SHIPPED_PRICES, costAt, priceKey, checkPrice } from '../../src/shared/ledger/prices';
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
