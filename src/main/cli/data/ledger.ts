// perch ledger: the flight recorder and the cost ledger (hub/features/ledger): the tool calls, the cost per day, agent
// and model, checking the hash chain, exporting the records, the price table, and an agent's telemetry token.
import { parseArgs } from 'node:util';
import { SHIPPED_PRICES, checkPrice, priceKey } from '../../../shared/ledger/prices';
import { UsageError, dataDirOf, fail, onlyOptions, print, withHub, type Command, DATA_DIR_LINE } from '../common';
import { costLedger, exportRecords, listPerchEvents, listToolCalls, type ToolCallView } from '../../hub/features/ledger/calls';
import { verifyLedger } from '../../hub/features/ledger/recorder';
import { perchDecisionText, perchEventText } from '../../../shared/ledger/views';
import { DECIDED_BY, LEDGER_HARNESSES, type DecidedBy } from '../../../shared/ledger/harness-events';
import { newTelemetryToken } from '../../hub/features/ledger/telemetry-tokens';
import { dropPrice, ownerPrices, putPrice } from '../../store/tables/ledger/prices';

const CALLS_HELP = `perch ledger [calls] [--agent NAME] [--harness HARNESS] [--tool NAME] [--search WORDS]
                 [--since YYYY-MM-DD] [--failed] [--decided-by WHO] [--limit N] [--data-dir DIR] [--json]
  The tool calls the agents' harnesses reported, newest first, each once: what it was asked, who or what allowed
  it (the harness's allowlist, Perch (the owner or a standing rule, through the hook), the user at the terminal),
  and what happened (success, duration, exit code, the first lines of output).
  --decided-by allowlist|perch|user|harness   only the calls whose decision that one made.`;
const COSTS_HELP = `perch ledger costs [--since YYYY-MM-DD] [--agent NAME] [--data-dir DIR] [--json]
  The cost ledger per day, agent, model and source: "harness" (Claude Code's own cost_usd), "price_table" (tokens
  priced by the table: perch ledger prices), "unknown" (a model without a price: tokens only). Default: 14 days.`;
const VERIFY_HELP = `perch ledger verify [--data-dir DIR] [--json]
  Checks every day's hash chain; reports the first record that was changed or removed (exit 1), else how many
  records and days hold.`;
const EVENTS_HELP = `perch ledger events [--since YYYY-MM-DD] [--agent NAME] [--limit N] [--data-dir DIR] [--json]
  Perch's own events in the ledger, newest first: wake runs (started; ended with status, exit code and duration),
  pauses and resumes, standing rules added and removed. Default: 14 days.`;
const EXPORT_HELP = `perch ledger export --since YYYY-MM-DD [--agent NAME] [--format csv|jsonl] [--data-dir DIR]
  Writes the ledger's records from that day on to stdout: JSON lines (default) or CSV with a header.`;
const PRICES_HELP = `perch ledger prices [--data-dir DIR] [--json]
perch ledger prices set MODEL --input USD --cached-input USD --output USD
perch ledger prices remove MODEL
  The price table (US dollars per million tokens) that prices a harness's tokens when it reports no cost (Codex):
  the shipped list prices and yours, which win. A new price applies to what is recorded from then on.`;
const TOKEN_HELP = `perch ledger token NAME [--data-dir DIR] [--json]
  A new telemetry-only token for the agent (shown once; the earlier one stops working): its harness sends its
  OpenTelemetry with it. It can add usage records for this agent and nothing else. perch connect … --write makes
  one for you; rotating the agent's key drops it.`;

export const ledger: Command = {
  names: ['ledger'],
  usage: `  perch ledger [calls|costs|events|verify|export|prices|token] ...
      What the agents' harnesses did and what it cost: tool calls, cost per day, the hash chain, export, prices.`,
  help: () => [CALLS_HELP, COSTS_HELP, EVENTS_HELP, VERIFY_HELP, EXPORT_HELP, PRICES_HELP, TOKEN_HELP, DATA_DIR_LINE].join('\n\n'),
  subcommands: {
    calls: () => CALLS_HELP,
    costs: () => COSTS_HELP,
    events: () => EVENTS_HELP,
    verify: () => VERIFY_HELP,
    export: () => EXPORT_HELP,
    prices: () => PRICES_HELP,
    token: () => TOKEN_HELP,
  },
  run: cmdLedger,
};

function money(n: number | null): string {
  return n === null ? 'price unknown' : `$${n.toFixed(4)}`;
}

function callLine(c: ToolCallView): string {
  const when = new Date(c.first_at).toISOString().replace('T', ' ').slice(0, 19);
  const who = c.decided_by
    ? `${c.decision ?? 'decided'} by ${c.decided_by}${c.decision_source ? ` (${c.decision_source})` : ''}`
    : 'decision not reported';
  const perch = c.perch ? ` (Perch: ${perchDecisionText(c.perch)})` : '';
  const o = c.outcome;
  const what = !o
    ? 'outcome not yet known'
    : `${o.success === false ? 'failed' : o.success ? 'ran' : 'ended'}${o.duration_ms != null ? ` ${(o.duration_ms / 1000).toFixed(1)} s` : ''}${o.exit_code != null ? `, exit ${o.exit_code}` : ''}`;
  const asked = c.asked ? `  ${c.asked.replace(/\s+/g, ' ').slice(0, 120)}` : '';
  const turn = c.turn ? `  turn ${c.turn}${c.turn_usage ? ` (${money(c.turn_usage.cost_usd)})` : ''}` : '';
  return `${when}  ${c.agent.name}  ${c.harness}  ${c.tool ?? '?'}  ${who}${perch}; ${what}  [${c.call_id}]${turn}${asked}`;
}

/** A CSV cell: quoted when needed; a text that a spreadsheet would run as a formula starts with '. */
function cell(v: unknown): string {
  if (v === null || v === undefined) return '';
  let s = typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const CSV_COLUMNS = [
  'id',
  'day',
  'at',
  'agent',
  'harness',
  'kind',
  'session_id',
  'call_id',
  'tool',
  'model',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'cost_usd',
  'cost_source',
  'detail',
  'hash',
] as const;

async function cmdLedger(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      json: { type: 'boolean' },
      agent: { type: 'string' },
      harness: { type: 'string' },
      tool: { type: 'string' },
      search: { type: 'string' },
      since: { type: 'string' },
      failed: { type: 'boolean' },
      'decided-by': { type: 'string' },
      limit: { type: 'string' },
      format: { type: 'string' },
      input: { type: 'string' },
      'cached-input': { type: 'string' },
      output: { type: 'string' },
    },
  });
  const dir = dataDirOf(values);
  const json = !!values.json;
  const sub = positionals[0] ?? 'calls';
  const takes = (...options: string[]) => onlyOptions(`perch ledger ${sub}`, values, options, positionals.slice(1));
  switch (sub) {
    case 'calls': {
      takes('agent', 'harness', 'tool', 'search', 'since', 'failed', 'decided-by', 'limit');
      // Digits only: Number() would also take 0x10, 1e2 and ' 5 '.
      const limit = values.limit === undefined ? 50 : /^\d{1,3}$/.test(values.limit) ? Number(values.limit) : NaN;
      if (!(limit >= 1 && limit <= 500))
        throw new UsageError(`--limit takes a whole number from 1 to 500, not ${JSON.stringify(values.limit?.slice(0, 40))}`);
      if (values.harness !== undefined && !(LEDGER_HARNESSES as readonly string[]).includes(values.harness))
        throw new UsageError(`--harness takes ${LEDGER_HARNESSES.join(', ')}`);
      const decidedBy = values['decided-by'];
      if (decidedBy !== undefined && !(DECIDED_BY as readonly string[]).includes(decidedBy))
        throw new UsageError(`--decided-by takes ${DECIDED_BY.join(', ')}, not ${JSON.stringify(decidedBy.slice(0, 40))}`);
      const calls = withHub(dir, (hub) =>
        listToolCalls(hub, {
          agent: values.agent,
          harness: values.harness,
          tool: values.tool,
          text: values.search,
          since: values.since,
          failedOnly: !!values.failed,
          decidedBy: decidedBy as DecidedBy | undefined,
          limit,
        }),
      );
      return print(json, { calls }, () => (calls.length ? calls.map(callLine).join('\n') : 'No tool calls recorded (yet).'));
    }
    case 'events': {
      const limit = values.limit === undefined ? 50 : Number(values.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new UsageError('--limit takes a whole number from 1 to 500');
      const events = withHub(dir, (hub) => listPerchEvents(hub, { since: values.since, agent: values.agent, limit }));
      const line = (e: (typeof events)[number]) =>
        `${new Date(e.at).toISOString().replace('T', ' ').slice(0, 19)}  ${e.agent.name}  ${perchEventText(e)}`;
      return print(json, { events }, () => (events.length ? events.map(line).join('\n') : 'No Perch events recorded (yet).'));
    }
    case 'costs': {
      takes('since', 'agent');
      const lines = withHub(dir, (hub) => costLedger(hub, { since: values.since, agent: values.agent }));
      return print(json, { costs: lines }, () =>
        lines.length
          ? lines
              .map(
                (l) =>
                  `${l.day}  ${l.agent}  ${l.harness}  ${l.model ?? '?'}  ${l.requests} requests  in ${l.input_tokens} out ${l.output_tokens} cached ${l.cache_read_tokens}  ${money(l.cost_usd)} (${l.cost_source})`,
              )
              .join('\n')
          : 'No cost recorded in these days.',
      );
    }
    case 'verify': {
      takes();
      const r = withHub(dir, (hub) => verifyLedger(hub.db));
      print(json, r, () =>
        r.ok
          ? `The ledger holds: ${r.records} records over ${r.days} days, every day's chain intact.`
          : `The ledger is broken at record ${r.first_break.id} (day ${r.first_break.day}): ${r.first_break.why}. ${r.records} records before it hold.`,
      );
      if (!r.ok) process.exitCode = 1;
      return;
    }
    case 'export': {
      takes('since', 'agent', 'format');
      if (!values.since) throw new UsageError('perch ledger export needs --since YYYY-MM-DD');
      const format = values.format ?? 'jsonl';
      if (format !== 'csv' && format !== 'jsonl') throw new UsageError('--format takes csv or jsonl');
      withHub(dir, (hub) => {
        const out: string[] = format === 'csv' ? [CSV_COLUMNS.join(',')] : [];
        for (const r of exportRecords(hub, { since: values.since!, agent: values.agent })) {
          const row: Record<string, unknown> = { ...r, at: new Date(r.at as number).toISOString() };
          out.push(format === 'csv' ? CSV_COLUMNS.map((k) => cell(row[k])).join(',') : JSON.stringify(row));
          if (out.length >= 1000) process.stdout.write(`${out.splice(0).join('\n')}\n`);
        }
        if (out.length) process.stdout.write(`${out.join('\n')}\n`);
      });
      return;
    }
    case 'prices':
      return prices(dir, json, positionals.slice(1), values);
    case 'token': {
      const name = positionals[1];
      if (!name) throw new UsageError('perch ledger token NAME');
      onlyOptions('perch ledger token', values, [], positionals.slice(2));
      const r = withHub(dir, (hub) => newTelemetryToken(hub, name));
      return print(json, r, () => `Telemetry token of ${r.agent.name} (shown once; the earlier one stopped working):\n${r.token}`);
    }
    default:
      throw new UsageError(`perch ledger has no ${JSON.stringify(sub)}: calls, costs, verify, export, prices or token`);
  }
}

/** A decimal number of dollars (1.25, 0.5, .5, 3): Number() alone would also take 0x10 as 16 and 1e3 as 1000. */
function usd(v: string | undefined, flag: string): number {
  if (v === undefined || !/^(\d{1,9}(\.\d{0,9})?|\.\d{1,9})$/.test(v))
    throw new UsageError(
      `${flag} takes dollars per million tokens, e.g. 1.25${v === undefined ? '' : `, not ${JSON.stringify(v.slice(0, 40))}`}`,
    );
  return Number(v);
}

function prices(dir: string, json: boolean, args: string[], values: Record<string, string | boolean | undefined>): void {
  const [verb, model] = args;
  onlyOptions(
    `perch ledger prices${verb === 'set' || verb === 'remove' ? ` ${verb}` : ''}`,
    values,
    verb === 'set' ? ['input', 'cached-input', 'output'] : [],
    args.slice(2),
  );
  if (verb === undefined) {
    const own = withHub(dir, (hub) => ownerPrices(hub.db));
    const table = [
      ...own.map((p) => ({ ...p, from: 'yours' })),
      ...Object.entries(SHIPPED_PRICES)
        .filter(([m]) => !own.some((p) => p.model === m))
        .map(([m, p]) => ({ model: m, ...p, from: 'shipped' })),
    ];
    return print(json, { prices: table }, () =>
      table
        .map(
          (p) =>
            `${p.model}  input $${p.input_per_mtok}  cached input $${p.cached_input_per_mtok}  output $${p.output_per_mtok}  per 1M tokens (${p.from})`,
        )
        .join('\n'),
    );
  }
  if (!model) throw new UsageError(`perch ledger prices ${verb} MODEL`);
  const key = priceKey(model);
  if (!key || key.length > 200) throw new UsageError('MODEL must be a model name');
  if (verb === 'set') {
    const p = checkPrice({
      input_per_mtok: usd(values.input as string | undefined, '--input'),
      cached_input_per_mtok: usd(values['cached-input'] as string | undefined, '--cached-input'),
      output_per_mtok: usd(values.output as string | undefined, '--output'),
    });
    if (typeof p === 'string') throw new UsageError(p);
    withHub(dir, (hub) => putPrice(hub.db, { model: key, ...p, updated_at: Date.now() }));
    return print(
      json,
      { model: key, ...p },
      () =>
        `Price of ${key} set (per 1M tokens): input $${p.input_per_mtok}, cached input $${p.cached_input_per_mtok}, output $${p.output_per_mtok}.`,
    );
  }
  if (verb === 'remove') {
    const gone = withHub(dir, (hub) => dropPrice(hub.db, key));
    if (!gone) fail(`no price of yours for ${key}; nothing changed.`, 1);
    return print(
      json,
      { model: key, removed: true },
      () => `Your price of ${key} removed${Object.hasOwn(SHIPPED_PRICES, key) ? ' (the shipped one applies again)' : ''}.`,
    );
  }
  throw new UsageError(`perch ledger prices takes set or remove, not ${JSON.stringify(verb)}`);
}
