// Migration 22: the flight recorder at size. Never edit it once shipped; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration22: Migration = {
  version: 22,
  name: 'the ledger at size: indexes for its pages',
  // What the Ledger page asks of ledger_records, each answered through an index rather than a scan of every row
  // (bench `--only ledger`, 1M tool calls in 2.2M rows: a scan is one to two seconds on a laptop-class CPU):
  // - ledger_calls_by_agent, ledger_calls_by_harness: one agent's (the agent's tab) or one harness's tool calls walked
  //   newest first (store/tables/ledger/records.ts callKeys);
  // - ledger_costs_by_day: the cost ledger per day, agent, harness, model and source (costsSince, measuredCostOn)
  //   read from the index alone;
  // - ledger_perch_events: Perch's own events (wake runs, pauses, rules) newest first, a few among millions of calls.
  sql: /* sql */ `
CREATE INDEX ledger_calls_by_agent ON ledger_records (agent_id, id) WHERE call_id IS NOT NULL;
CREATE INDEX ledger_calls_by_harness ON ledger_records (harness, id) WHERE call_id IS NOT NULL;
CREATE INDEX ledger_costs_by_day ON ledger_records (day, agent_id, harness, model, cost_source, input_tokens, output_tokens,
  cache_read_tokens, cache_write_tokens, cost_usd) WHERE kind = 'api_request';
CREATE INDEX ledger_perch_events ON ledger_records (id) WHERE kind = 'perch_event';
`,
};
