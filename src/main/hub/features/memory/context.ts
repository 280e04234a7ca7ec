// Summaries and context: put_summary / get_context.
//
// Token estimate. get_context cannot know the caller's tokenizer, so it uses one documented,
// deterministic rule: an item (the summary object, or one event as returned) costs
//   ceil(JSON.stringify(item).length / 4)
// tokens, where length counts UTF-16 code units. token_estimate is the sum over the summary and
// the returned events; it never exceeds max_tokens. The small envelope around them (conv_id,
// first_seq, ...) is not counted.
import type { FeaturesHub } from '../services';
import { HubError } from '../../../../shared/errors';
import { LIMITS } from '../../../../shared/limits';
import type { EventView } from '../../../../shared/api/event-log';
import { eventsOfConversation } from '../../../store/tables/talk/events';
import { insertSummary, latestSummary, pruneSummaries } from '../../../store/tables/talk/summaries';
import { requireMember } from '../../talk/access';
import { eventView } from '../../core/views';
import { contextForInstance } from '../../talk/agent-sessions';
import type { ToolHandlers } from '../../identity/tool-handler';

/** Summaries kept per agent and conversation (only the latest is used by get_context). */
export const SUMMARIES_KEPT = 10;

/** Events read from the store per step while filling the budget backwards. */
const PAGE = 200;

/** The estimate of one item: ceil(JSON-serialized length / 4). */
export function estimateTokens(item: unknown): number {
  return Math.ceil((JSON.stringify(item) ?? '').length / 4);
}

export function putSummary(hub: FeaturesHub, userId: string, input: { conv_id: string; from_seq: number; to_seq: number; text: string }) {
  return hub.write(() => {
    const { conv, member } = requireMember(hub, userId, input.conv_id);
    if (input.text.length === 0) throw new HubError('invalid_argument', 'text is empty.', 'Write the summary in text.');
    if (input.text.length > LIMITS.maxSummaryChars) {
      throw new HubError(
        'too_large',
        `text is ${input.text.length} characters; the limit is ${LIMITS.maxSummaryChars}.`,
        'Shorten the summary.',
      );
    }
    if (input.from_seq > input.to_seq) {
      throw new HubError('invalid_argument', `from_seq ${input.from_seq} is after to_seq ${input.to_seq}.`, 'Give from_seq <= to_seq.');
    }
    if (input.from_seq < member.from_seq) {
      throw new HubError(
        'invalid_argument',
        `from_seq ${input.from_seq} is before what you can see of this conversation (from seq ${member.from_seq}).`,
        `Start the summary at seq ${member.from_seq} or later.`,
        { visible_from_seq: member.from_seq },
      );
    }
    if (input.to_seq > conv.last_seq) {
      throw new HubError(
        'invalid_argument',
        `to_seq ${input.to_seq} is after the conversation's last seq ${conv.last_seq}.`,
        `End the summary at seq ${conv.last_seq} or earlier.`,
        { last_seq: conv.last_seq },
      );
    }
    const at = hub.now();
    const id = insertSummary(hub.db, {
      user_id: userId,
      conv_id: conv.id,
      from_seq: input.from_seq,
      to_seq: input.to_seq,
      text: input.text,
      at,
    });
    pruneSummaries(hub.db, userId, conv.id, SUMMARIES_KEPT);
    return { summary_id: id, conv_id: conv.id, from_seq: input.from_seq, to_seq: input.to_seq, at };
  });
}

export interface SummaryItem {
  from_seq: number;
  to_seq: number;
  text: string;
  at: number;
  /** The text was cut to fit max_tokens. */
  truncated?: true;
}

/** The summary cut (at a code point boundary) so that its estimate fits the budget; null if even empty text does not fit. */
function fitSummary(full: SummaryItem, budget: number): SummaryItem | null {
  if (estimateTokens(full) <= budget) return full;
  const cut = (n: number): SummaryItem => {
    let end = n;
    const c = full.text.charCodeAt(end - 1);
    if (end > 0 && c >= 0xd800 && c <= 0xdbff) end -= 1; // do not split a surrogate pair
    return { ...full, text: full.text.slice(0, end), truncated: true };
  };
  if (estimateTokens(cut(0)) > budget) return null;
  let lo = 0; // fits
  let hi = full.text.length; // does not fit
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (estimateTokens(cut(mid)) <= budget) lo = mid;
    else hi = mid;
  }
  return cut(lo);
}

export function getContext(hub: FeaturesHub, userId: string, input: { conv_id: string; max_tokens?: number }) {
  const { conv, member } = requireMember(hub, userId, input.conv_id);
  const maxTokens = Math.max(1, Math.min(input.max_tokens ?? LIMITS.contextDefaultTokens, LIMITS.contextMaxTokens));
  let budget = maxTokens;
  let truncated = false;

  const row = latestSummary(hub.db, userId, conv.id);
  let summary: SummaryItem | null = null;
  if (row) {
    summary = fitSummary({ from_seq: row.from_seq, to_seq: row.to_seq, text: row.text, at: row.at }, budget);
    if (!summary || summary.truncated) truncated = true;
    if (summary) budget -= estimateTokens(summary);
  }

  // Newer events: after the summary (or all that the member can see), newest kept first.
  const lower = Math.max(member.from_seq, row ? row.to_seq + 1 : 1);
  const picked: EventView[] = [];
  let before = conv.last_seq + 1;
  let full = false;
  while (!full && before > lower) {
    const page = eventsOfConversation(hub.db, conv.id, { beforeSeq: before, fromSeq: lower, visibleFrom: member.from_seq, limit: PAGE });
    if (page.length === 0) break;
    for (let i = page.length - 1; i >= 0; i--) {
      const view = eventView(hub, page[i]!, userId);
      const cost = estimateTokens(view);
      if (cost > budget) {
        full = true;
        break;
      }
      budget -= cost;
      picked.push(view);
    }
    before = page[0]!.seq;
  }
  picked.reverse();
  const firstSeq = picked[0]?.seq ?? null;
  // seq is gap-free, so everything in [lower, first returned) was left out.
  const omitted = Math.max(0, (firstSeq ?? conv.last_seq + 1) - lower);
  if (omitted > 0) truncated = true;
  const tokenEstimate = maxTokens - budget;
  return {
    conv_id: conv.id,
    summary,
    events: picked,
    /** seq of the oldest returned event (null when none). */
    first_seq: firstSeq,
    last_seq: picked[picked.length - 1]?.seq ?? null,
    conversation_last_seq: conv.last_seq,
    truncated,
    omitted_events: omitted,
    token_estimate: tokenEstimate,
    max_tokens: maxTokens,
    token_estimate_rule: 'sum over the summary and each event of ceil(JSON length / 4)',
    ...(truncated
      ? {
          next_step:
            omitted > 0
              ? `Events ${lower}..${(firstSeq ?? conv.last_seq + 1) - 1} did not fit: read them with get_history (before_seq=${firstSeq ?? conv.last_seq + 1}) or raise max_tokens, and store a fresh summary with put_summary.`
              : 'The summary was cut to fit: raise max_tokens, or store a shorter summary with put_summary.',
        }
      : {}),
  };
}

export const contextTools = {
  put_summary: {
    run: ({ hub, agentId }, a) => putSummary(hub, agentId, a),
  },
  get_context: {
    // A named instance (hub/talk/agent-sessions.ts): its sighting is recorded and its events carry for_you / from_you.
    run: ({ hub, agentId, key }, a) => contextForInstance(hub, agentId, a.instance, getContext(hub, agentId, a), key),
  },
} satisfies ToolHandlers<'put_summary' | 'get_context', FeaturesHub>;
