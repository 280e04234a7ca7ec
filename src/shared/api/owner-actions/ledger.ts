// Owner actions of the flight recorder and the cost ledger: what the agents' harnesses reported (tool calls, cost).
// Assembled in contract order by ../owner-api.ts.
import { z } from 'zod';
import { type ActionDefs, id } from './define';
import { DECIDED_BY, LEDGER_HARNESSES } from '../../ledger/harness-events';

const day = () => z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a day as YYYY-MM-DD');

export const ledgerActions = {
  'ledger.calls': {
    device: 'full',
    description:
      "The tool calls the agents' harnesses reported (OpenTelemetry), newest first, each once: agent, harness, session, turn (the user prompt it belongs to, in the harness's id; null when the harness names none) with turn_usage (that session's and turn's model calls: their tokens and cost), tool, what it was asked, the decision and who made it (decided_by: allowlist, perch, user, harness; perch: what Perch decided on its permission prompt and who: the owner and where (the laptop or a paired device), a standing rule by id, the pause, or nobody), the outcome (success, duration, exit code, the first lines of output; null until known). Filters: agent, harness, tool, search (words in the tool, what it was asked, its output or error), since (a day), failed_only, decided_by (who made the decision: allowlist, perch, user, harness), call_id (that one call), request_id (the call an approval card was the permission prompt of: none until Perch knows its call id); limit (default 100, at most 500).",
    input: () =>
      z.strictObject({
        agent: id().optional(),
        harness: z.enum(LEDGER_HARNESSES).optional(),
        tool: z.string().min(1).max(200).optional(),
        search: z.string().max(200).optional(),
        since: day().optional(),
        failed_only: z.boolean().optional(),
        decided_by: z.enum(DECIDED_BY).optional(),
        limit: z.number().int().min(1).max(500).optional(),
        call_id: z.string().min(1).max(200).optional(),
        request_id: id().optional(),
      }),
  },
  'ledger.costs': {
    device: 'full',
    description:
      "The cost ledger per day, agent, harness, model and cost source (harness: the harness's own dollars, as Claude Code reports them; price_table: tokens priced by the price table, as for Codex; unknown: a model without a price, tokens only), from since (default: the last 14 days), for one agent or all; today: the hub's local day.",
    input: () => z.strictObject({ agent: id().optional(), since: day().optional() }),
  },
  'ledger.events': {
    device: 'full',
    description:
      "Perch's own events in the flight recorder (kind perch_event), newest first, each with its record's id, time and agent: wake runs started and ended (wake_run_started, wake_run_ended), pauses and resumes (paused, resumed), standing rules added and removed (rule_added, rule_removed), and the owner's ledger_removed (retention) and ledger_imported (perch import). From since (default: the last 14 days), for one agent or all; limit (default 100, at most 500). What `perch ledger events` lists.",
    input: () => z.strictObject({ agent: id().optional(), since: day().optional(), limit: z.number().int().min(1).max(500).optional() }),
  },
} as const satisfies ActionDefs;
