// The guide's harness table (docs/guide/harnesses.md, "The harnesses at a glance") says for each harness what Perch
// reaches in it. Its columns are kept true here against what `perch connect --write` writes and the hub's hook doors
// answer: the MCP entry (a client connect writes), prompts (a permission-request hook), pause (a pre-tool-use hook),
// live status (the notification, stop, session-start and session-end hooks), and the record and the cost (the
// harness's telemetry, which connect turns on, or for the cost OpenCode's plugin posting each model call's tokens;
// without telemetry the record has only what the doors write).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { HOOK_DOOR_EVENTS } from '../../src/shared/agents/hook-wire';
import { WRITABLE_CLIENTS } from '../../src/shared/agents/harness-config';
import { perchHooks } from '../../src/shared/agents/harnesses/claude-code';
import { COPILOT_HOOKS } from '../../src/shared/agents/harnesses/copilot';
import { GEMINI_HOOKS } from '../../src/shared/agents/harnesses/gemini';
import { openCodePlugin } from '../../src/shared/agents/harnesses/opencode';
import { cursorHooks } from '../../src/shared/agents/harnesses/cursor';
import { OPENCODE_STATUS_EVENTS } from '../../src/shared/agents/harnesses/opencode-wire';
import { PROMPT_HARNESS_LABEL } from '../../src/shared/agents/harness';
import { telemetryFile } from '../../src/shared/agents/telemetry-config';

const GUIDE = path.join(__dirname, '..', '..', 'docs', 'guide', 'harnesses.md');
const O = { agent: 'kit', mcpUrl: 'http://127.0.0.1:7457/mcp' };

/** The door events `perch connect HARNESS NAME --write` writes a hook for. */
function written(h: string): string[] {
  if (h === 'claude-code' || h === 'codex') return perchHooks(h, O).map((x) => x.sub);
  if (h === 'copilot') return COPILOT_HOOKS.map((x) => x.sub);
  if (h === 'gemini') return GEMINI_HOOKS.map((x) => x.sub);
  if (h === 'cursor') return [...new Set(cursorHooks(O).flatMap((x) => (x.command === undefined ? [] : [x.sub])))];
  if (h === 'opencode') {
    // The plugin perch connect writes: its permission.asked (a prompt), tool.execute.before (pause), session events.
    const plugin = openCodePlugin(O);
    return [
      ...(plugin.includes('door("permission-asked"') ? ['permission-request'] : []),
      ...(plugin.includes('door("tool-before"') ? ['pre-tool-use'] : []),
      ...(plugin.includes('door("event"') ? Object.values(OPENCODE_STATUS_EVENTS) : []),
    ];
  }
  return [];
}

function table(): Map<string, string[]> {
  const text = fs.readFileSync(GUIDE, 'utf8');
  const at = text.indexOf('## The harnesses at a glance');
  assert.ok(at >= 0, 'the guide has the section');
  const rows = new Map<string, string[]>();
  for (const line of text
    .slice(at)
    .split('\n')
    .filter((l) => l.startsWith('| '))
    .slice(2)) {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    rows.set(cells[0]!, cells.slice(1));
  }
  return rows;
}

const mark = (cell: string | undefined) =>
  cell?.startsWith('✔') ? '✔' : cell?.startsWith('partial') ? 'partial' : cell?.startsWith('—') ? '—' : cell;

test("the guide's harness table has a row per harness with a hook door, and its MCP, prompts, pause, status, record and cost columns say what connect and the doors do", () => {
  const rows = table();
  for (const h of Object.keys(HOOK_DOOR_EVENTS)) {
    const label = PROMPT_HARNESS_LABEL[h]!;
    const row = rows.get(label);
    assert.ok(row, `a row for ${label}`);
    const subs = written(h);
    const status = ['notification', 'stop', 'session-start', 'session-end'].filter((s) => subs.includes(s));
    assert.equal(mark(row[0]), WRITABLE_CLIENTS.includes(h as never) ? '✔' : '—', `${label}: MCP`);
    assert.equal(mark(row[1]), subs.includes('permission-request') ? '✔' : '—', `${label}: prompts`);
    assert.equal(
      mark(row[2]),
      subs.includes('pre-tool-use') ? '✔' : subs.includes('permission-request') ? 'partial' : '—',
      `${label}: pause (a permission hook alone denies only what it is asked about)`,
    );
    assert.equal(mark(row[3]), status.length === 4 ? '✔' : status.length ? 'partial' : '—', `${label}: live status`);
    const telemetry = telemetryFile(h, false) !== undefined;
    // Without telemetry the record holds what the doors write: decisions on prompts, a call's result (post-tool-use).
    const doorRecords = subs.includes('permission-request') || subs.includes('post-tool-use');
    assert.equal(mark(row[4]), telemetry ? '✔' : doorRecords ? 'partial' : '—', `${label}: record`);
    if (subs.includes('post-tool-use'))
      assert.match(row[4]!, /`tool_result`/, `${label}: record names the results its after-tool hook gives`);
    // The cost: the harness's telemetry, or its model calls' tokens that Perch's plugin posts (OpenCode's usage door).
    const usage = h === 'opencode' && openCodePlugin(O).includes('door("usage"');
    assert.equal(mark(row[5]), telemetry || usage ? '✔' : '—', `${label}: cost`);
    // Cursor's hooks carry no cost and it has no telemetry to turn on: the cell says so (not "not wired yet").
    if (h === 'cursor') assert.match(row[5]!, /does not expose/, `${label}: cost not exposed`);
    assert.equal(row.length, 6, `${label}: six columns after the name`);
    for (const [i, cell] of row.entries())
      assert.ok(['✔', 'partial', '—'].includes(mark(cell)!), `${label}: column ${i + 2} starts with ✔, partial or —`);
  }
});
