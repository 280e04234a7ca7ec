// Owner actions of requests (the Approvals inbox), cards, handoffs, tasks and the floor.
// Assembled in contract order by ../owner-api.ts.
import { z } from 'zod';
import { type ActionDefs, id } from './define';
import { LIMITS } from '../../limits';
import { TASK_STATES } from '../../types';

export const coordinationActions = {
  'requests.list': {
    device: 'approvals',
    description: 'Requests across all conversations (the Approvals inbox), pending first.',
    input: () => z.strictObject({ state: z.string().optional() }),
  },
  'requests.decide': {
    device: 'approvals',
    description: 'Decide a request: approve / reject (any kind), answer (kind answer), choose (kind choose). comment is optional.',
    input: () =>
      z.strictObject({
        request_id: id(),
        decision: z.enum(['approve', 'reject', 'answer', 'choose']),
        answer: z.string().max(LIMITS.maxTextChars).optional(),
        choice: z.string().max(LIMITS.maxTitleChars).optional(),
        comment: z.string().max(LIMITS.maxTextChars).optional(),
      }),
  },
  'cards.answer': {
    device: 'approvals',
    description: 'Answer a card: a button (value = option id) or a form (value = field values).',
    input: () => z.strictObject({ msg_id: id(), block_id: id(), value: z.unknown() }),
  },
  'handoffs.list': { device: 'approvals', description: 'Handoffs waiting for the owner.', input: () => z.strictObject({}) },
  'handoffs.hand_back': {
    device: 'approvals',
    description: 'Hand a conversation back to the agent with a note (it is woken).',
    input: () => z.strictObject({ conv_id: id(), agent: id().optional(), note: z.string().min(1).max(LIMITS.maxTextChars) }),
  },
  'tasks.set': {
    device: 'full',
    description: 'Move a task to a state and/or reassign it, with a note.',
    input: () =>
      z.strictObject({
        conv_id: id(),
        state: z.enum(TASK_STATES).optional(),
        assignee: id().optional(),
        note: z.string().max(LIMITS.maxTextChars).optional(),
      }),
  },
  'floor.set': {
    device: 'full',
    description: 'Give the floor to an agent (ttl_secs) or release it.',
    input: () =>
      z.strictObject({
        conv_id: id(),
        agent: id().optional(),
        ttl_secs: z.number().int().min(1).max(LIMITS.floorMaxTtlSecs).optional(),
        release: z.boolean().optional(),
      }),
  },
} as const satisfies ActionDefs;
