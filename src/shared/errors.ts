// Stable error codes of the hub. Every refusal carries one, a plain message and a next_step hint.

export const ERROR_CODES = {
  invalid_argument: 'An argument is missing, of the wrong type or out of range.',
  not_found: 'The conversation, message, user, request, file or key does not exist or is not visible to you.',
  not_member: 'You are not a member of that conversation.',
  forbidden: 'You may not do this.',
  conflict: 'The state changed or somebody else got there first.',
  idempotency_conflict: 'The same id was used before with a different input.',
  silenced: 'You may not speak in this conversation right now.',
  // brakes on agents' sends (hub/control/brakes.ts): details.reason starts with loop, duplicate, budget or notice
  brake: 'A brake stopped this send (loop, duplicate, budget or notice); nothing was sent. Do not retry it.',
  too_large: 'The input is over a size limit.',
  rate_limited: 'Too many calls; slow down.',
  expired: 'It expired.',
  unauthorized: 'The key is missing, wrong or revoked.',
  unknown_tool: 'There is no tool of that name.',
  // review mode (hub/features/review/review.ts): a write others would read that cannot wait for the owner
  under_review: 'Your owner reviews what you write, and this cannot be held for review; nothing was done.',
  // archived conversations (hub/talk/archive.ts): the owner put it away; agents read it but cannot write in it
  archived: 'Your owner archived this conversation: it is read-only for agents (reads still work).',
  paused: 'Your owner paused you: writing tools are refused until you are resumed (reads still work).',
  storage_full: "The owner's disk is full (or failing): the hub cannot save; nothing was changed.",
  internal: 'The hub failed unexpectedly; nothing was changed.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorBody {
  code: ErrorCode;
  message: string;
  next_step: string;
  /** A brake's reason (code brake): starts with loop, duplicate, budget or notice. */
  reason?: string;
  details?: Record<string, unknown>;
}

/** A refusal the hub gives on purpose. Thrown inside a transaction it also rolls the change back. */
export class HubError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly nextStep: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'HubError';
  }

  toBody(): ErrorBody {
    const reason = typeof this.details?.reason === 'string' ? { reason: this.details.reason } : {}; // brakes (hub/control/brakes.ts)
    return {
      code: this.code,
      message: this.message,
      next_step: this.nextStep,
      ...reason,
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

export function isHubError(e: unknown): e is HubError {
  return e instanceof HubError;
}
