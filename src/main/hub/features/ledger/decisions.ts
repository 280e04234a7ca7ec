// Perch's own decision on a tool call's permission prompt, in the flight recorder: when a hook door (mcp/hook-door.ts)
// has answered a prompt, one record of kind perch_decision says what Perch decided (allow, deny, none) and who or what
// decided it: the owner (and where: the laptop or which paired device), a standing rule (its id), the pause, or nobody
// (no decision in Perch: the harness's own dialog decided, and why). It carries the harness's call id (the prompt's
// own, or the PreToolUse's that asked the same: tool-use-ids.ts), so it joins the call's telemetry records
// (calls.ts foldCall), hash-chained like them (recorder.ts).
import crypto from 'node:crypto';
import type { FeaturesHub } from '../services';
import { LEDGER_TEXT, type DecidedOn, type LedgerHarness, type PerchDecision } from '../../../../shared/ledger/harness-events';
import { requestById } from '../../../store/tables/talk/requests';
import { decidedByRule } from '../../../store/tables/agents/rule-suggestions';
import { recordFacts } from './recorder';
import { decisionCallId } from '../../../store/tables/ledger/records';
import { turnOfAsk, type ToolUseAsk } from './tool-use-ids';

function cut(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** The dedupe of the decision record of a card: what finds a card's call (callOfRequest), on the agent's unique index. */
export function decisionDedupe(requestId: string): Buffer {
  return crypto.hash('sha256', `perch_decision ${requestId}`, 'buffer');
}

/** The call a card (request) was the prompt of: its agent and the harness's call id; undefined when none is known. */
export function callOfRequest(hub: FeaturesHub, requestId: string): { agentId: string; callId: string } | undefined {
  const r = requestById(hub.db, requestId);
  if (!r) return undefined;
  const callId = decisionCallId(hub.db, r.requester_id, decisionDedupe(requestId));
  return callId ? { agentId: r.requester_id, callId } : undefined;
}

/** Who decided a decided card (approved or rejected): a standing rule, else the owner and where; undefined while undecided. */
export function perchDecisionOf(hub: FeaturesHub, requestId: string): PerchDecision | undefined {
  const r = requestById(hub.db, requestId);
  if (!r || (r.state !== 'approved' && r.state !== 'rejected')) return undefined;
  const decision = r.state === 'approved' ? 'allow' : 'deny';
  let on: DecidedOn | undefined;
  try {
    const stored = JSON.parse(r.outcome ?? '{}') as { decided_on?: DecidedOn };
    on = stored.decided_on;
  } catch {
    on = undefined;
  }
  const rule = decidedByRule(hub.db, requestId);
  // A rule the owner added from the card decides it too: the rule, and where the owner added it.
  if (rule) return { decision, by: 'rule', rule_id: rule, request_id: requestId, ...(on ? { on } : {}) };
  return { decision, by: 'owner', on: on ?? { via: 'laptop' }, request_id: requestId };
}

/**
 * Records Perch's decision on one prompt of the agent's harness session. Never fails the hook's answer: a full disk
 * loses this record (the harness's own telemetry still records the call).
 */
export function recordPromptDecision(
  hub: FeaturesHub,
  agentId: string,
  harness: LedgerHarness,
  ask: ToolUseAsk,
  perch: PerchDecision,
): void {
  const callId = hub.services.toolUseIds.of(agentId, harness, ask) ?? null;
  let asked: string | undefined;
  try {
    asked = ask.tool_input === undefined ? undefined : cut(JSON.stringify(ask.tool_input), LEDGER_TEXT.askedChars);
  } catch {
    asked = undefined;
  }
  const turn = turnOfAsk(ask);
  const fact = {
    kind: 'perch_decision' as const,
    harness,
    at: hub.now(),
    session_id: typeof ask.session_id === 'string' ? cut(ask.session_id, LEDGER_TEXT.idChars) : null,
    call_id: callId,
    tool: typeof ask.tool_name === 'string' ? cut(ask.tool_name, LEDGER_TEXT.idChars) : null,
    model: null,
    detail: {
      decision: perch.decision,
      ...(perch.decision !== 'none' ? { decided_by: 'perch' as const } : {}),
      ...(asked !== undefined ? { asked } : {}),
      ...(turn !== undefined ? { turn } : {}),
      perch: { ...perch, ...(perch.why !== undefined ? { why: cut(perch.why, LEDGER_TEXT.fieldChars) } : {}) },
    },
    tokens: null,
    cost_usd: null,
  };
  // Two hooks joined on one card record its decision once; a prompt without a card is its own record.
  const dedupe = perch.request_id ? decisionDedupe(perch.request_id) : crypto.randomBytes(32);
  try {
    recordFacts(hub, agentId, [{ fact, dedupe }]);
  } catch (err) {
    if (!hub.storageFailure(err)) throw err;
  }
}
