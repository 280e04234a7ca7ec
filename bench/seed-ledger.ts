// Seeds a Perch data dir's flight recorder with Claude Code telemetry, through the hub's own path (the OTLP JSON a
// harness posts → parseOtlpLogs → factOf → recordFacts: parsed, priced, hash-chained), before any hub is started on it.
// Used by the bench's ledger section (bench/sections/ledger-page.ts).
//   node --import tsx bench/seed-ledger.ts --data-dir D --agents 8 --calls 1000000
// Each tool call is a decision and a result (one in 20 failed); every fifth call comes with an API request (its cost).
// The calls are spread over the last 30 days, so the Ledger page's 14 days hold about half of them.
// Prints one JSON line: { agents: [{id,name}], calls, records, ms }. Deterministic (a seeded PRNG).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase, DB_FILE_NAME } from '../src/main/store/db/db';
import { createHub } from '../src/main/hub-services';
import { addAgent } from '../src/main/hub/control/agents';
import { parseOtlpLogs } from '../src/shared/ledger/otlp';
import { factOf } from '../src/shared/ledger/harness-events';
import { dedupeOf, recordFacts, type Reported } from '../src/main/hub/features/ledger/recorder';
import { mulberry32 } from './text';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    agents: { type: 'string', default: '8' },
    calls: { type: 'string', default: '1000000' },
  },
  strict: true,
});
if (!values['data-dir']) throw new Error('seed-ledger: --data-dir is required');
const dataDir = path.resolve(values['data-dir']);
const nAgents = Number(values.agents);
const nCalls = Number(values.calls);
if (!Number.isInteger(nAgents) || nAgents < 1 || nAgents > 500) throw new Error('seed-ledger: --agents must be 1..500');
if (!Number.isInteger(nCalls) || nCalls < 1 || nCalls > 10_000_000) throw new Error('seed-ledger: --calls must be 1..10000000');
const started = performance.now();
const progress = (s: string) => process.stderr.write(`seed-ledger: ${s}\n`);

const DAY = 86_400_000;
const t0 = Date.now() - 30 * DAY;
let clock = t0;
const db = openDatabase(path.join(dataDir, DB_FILE_NAME));
db.pragma('cache_size = -1000000');
const hub = createHub({ db, now: () => clock });

const agents: Array<{ id: string; name: string }> = [];
hub.write(() => {
  for (let i = 0; i < nAgents; i++) {
    const { agent } = addAgent(hub, { name: `l${String(i).padStart(2, '0')}`, description: 'ledger benchmark agent' });
    agents.push({ id: agent.id, name: agent.name });
  }
});

type Attr = { key: string; value: { stringValue: string } | { intValue: string } | { boolValue: boolean } };
const attr = (key: string, v: string | number | boolean): Attr => ({
  key,
  value: typeof v === 'string' ? { stringValue: v } : typeof v === 'boolean' ? { boolValue: v } : { intValue: String(v) },
});

const TOOLS: Array<[string, (n: number) => string]> = [
  ['Bash', (n) => JSON.stringify({ bash_command: n % 3 ? `npm test -- --grep case-${n % 97}` : `git status --short` })],
  ['Read', (n) => JSON.stringify({ file_path: `/home/owner/src/app/file-${n % 311}.ts` })],
  ['Edit', (n) => JSON.stringify({ file_path: `/home/owner/src/app/file-${n % 311}.ts` })],
  ['Grep', (n) => JSON.stringify({ pattern: `TODO-${n % 53}` })],
  ['mcp__github__create_issue', (n) => JSON.stringify({ title: `Issue ${n % 1000}` })],
];

const rnd = mulberry32(7);
const step = Math.max(1, Math.floor((30 * DAY - 60_000) / nCalls));
// Batches as big as a body may be (2,000 calls: 4,400 records), smaller for small seeds so every agent gets some.
const BATCH = Math.max(10, Math.min(2_000, Math.floor(nCalls / (nAgents * 4))));
let batchNo = 0;
let records = 0;
for (let done = 0; done < nCalls;) {
  const reported: Reported[] = [];
  const batchAgent = agents[batchNo++ % agents.length]!;
  const end = Math.min(nCalls, done + BATCH);
  const recs: unknown[] = [];
  for (; done < end; done++) {
    clock += step;
    const t = `${clock}000000`;
    const session = `ses-${batchAgent.name}-${Math.floor(done / 400)}`;
    const [tool, params] = TOOLS[done % TOOLS.length]!;
    // A turn (Claude Code's prompt.id) every 10 calls, so the page's turn sums (calls.ts addTurnUsage) are measured too.
    const turn = attr('prompt.id', `prompt-${batchAgent.name}-${Math.floor(done / 10)}`);
    const common = [attr('session.id', session), turn, attr('tool_name', tool), attr('tool_use_id', `toolu_${done}`)];
    recs.push({
      timeUnixNano: t,
      body: { stringValue: 'claude_code.tool_decision' },
      attributes: [...common, attr('decision', 'accept'), attr('source', done % 4 ? 'config' : 'user_permanent')],
    });
    const ok = rnd() >= 0.05;
    recs.push({
      timeUnixNano: t,
      body: { stringValue: 'claude_code.tool_result' },
      attributes: [
        ...common,
        attr('success', ok ? 'true' : 'false'),
        attr('duration_ms', Math.floor(rnd() * 4000)),
        attr('tool_parameters', params(done)),
        ...(ok ? [] : [attr('error', 'exit code 1')]),
      ],
    });
    if (done % 5 === 0)
      recs.push({
        timeUnixNano: t,
        body: { stringValue: 'claude_code.api_request' },
        attributes: [
          attr('session.id', session),
          turn,
          attr('event.sequence', done),
          attr('model', 'claude-sonnet-4-5'),
          attr('cost_usd', (0.002 + rnd() * 0.02).toFixed(6)),
          attr('input_tokens', 1000 + Math.floor(rnd() * 9000)),
          attr('output_tokens', 50 + Math.floor(rnd() * 900)),
        ],
      });
  }
  // The batch as the harness posts it, parsed and recorded as the OTLP door does (src/main/mcp/otlp-door.ts).
  const text = JSON.stringify({
    resourceLogs: [{ resource: { attributes: [attr('service.name', 'claude-code')] }, scopeLogs: [{ logRecords: recs }] }],
  });
  const parsed = parseOtlpLogs(text);
  if (typeof parsed === 'string') throw new Error(`seed-ledger: the batch did not parse: ${parsed}`);
  for (const r of parsed) {
    const fact = factOf(r, clock);
    if (typeof fact !== 'object') throw new Error(`seed-ledger: a record was not a fact: ${String(fact)}`);
    reported.push({ fact, dedupe: dedupeOf(JSON.stringify([r.name, r.timeMs ?? null, [...r.attrs], [...r.resource]])) });
  }
  records += recordFacts(hub, batchAgent.id, reported).added;
  if (done % 100_000 < BATCH || done === nCalls)
    progress(`${done} calls, ${records} records (${Math.round(performance.now() - started)} ms)`);
}
db.pragma('wal_checkpoint(TRUNCATE)');
hub.close();
db.close();
process.stdout.write(`${JSON.stringify({ agents, calls: nCalls, records, ms: Math.round(performance.now() - started) })}\n`);
