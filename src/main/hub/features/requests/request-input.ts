// request_human's input, checked before anything is written: the options of a choice, the context's size, who may
// decide (people of the conversation; the owner by default) and how long the request lives (features/requests.ts).
import type { TalkHub } from '../../talk/services';
import { HubError } from '../../../../shared/errors';
import { LIMITS } from '../../../../shared/limits';
import type { RequestKind } from '../../../../shared/types';
import { resolveMembers } from '../../talk/access';

export function requireOptions(kind: RequestKind, options: readonly string[] | undefined): string[] | null {
  const list = options ?? [];
  if (kind !== 'choose') {
    if (list.length) {
      throw new HubError(
        'invalid_argument',
        `options: only kind=choose takes options (this request is kind=${kind}).`,
        'Leave options out, or use kind=choose.',
      );
    }
    return null;
  }
  if (list.length < 2) {
    throw new HubError(
      'invalid_argument',
      `options: kind=choose needs at least 2 options (got ${list.length}).`,
      'List the options the person chooses among.',
    );
  }
  if (list.length > LIMITS.maxListItems) {
    throw new HubError('invalid_argument', `options: at most ${LIMITS.maxListItems} options.`, 'Offer fewer options.');
  }
  const seen = new Set<string>();
  list.forEach((o, i) => {
    if (typeof o !== 'string' || !o.trim()) {
      throw new HubError('invalid_argument', `options[${i}]: must be a non-empty string.`, 'Give each option as plain text.');
    }
    if (o.length > LIMITS.maxTitleChars) {
      throw new HubError(
        'invalid_argument',
        `options[${i}]: over ${LIMITS.maxTitleChars} characters.`,
        'Shorten the option; put details in context.',
      );
    }
    if (seen.has(o)) throw new HubError('invalid_argument', `options[${i}]: "${o}" is listed twice.`, 'Make every option distinct.');
    seen.add(o);
  });
  return [...list];
}

export function requireContext(context: unknown): string | null {
  if (context === undefined) return null;
  let text: string | undefined;
  try {
    text = JSON.stringify(context);
  } catch {
    text = undefined;
  }
  if (text === undefined)
    throw new HubError('invalid_argument', 'context: must be a JSON value.', 'Pass plain JSON (objects, arrays, strings, numbers).');
  const bytes = Buffer.byteLength(text);
  if (bytes > LIMITS.maxContextBytes) {
    throw new HubError(
      'too_large',
      `context is ${bytes} bytes as JSON; the limit is ${LIMITS.maxContextBytes}.`,
      'Send a summary in context and point to the full material (a file or a message) instead.',
      { bytes, limit: LIMITS.maxContextBytes },
    );
  }
  return text;
}

export function requireAssignees(hub: TalkHub, convId: string, names: readonly string[] | undefined): string[] {
  if (!names || names.length === 0) return [hub.ownerId];
  const ids = resolveMembers(hub, convId, names, 'assignees');
  for (const id of ids) {
    const u = hub.user(id);
    if (u.kind !== 'human') {
      throw new HubError(
        'invalid_argument',
        `assignees: "${u.name}" is an agent; only people can decide a request.`,
        'Name people of the conversation, or leave assignees out to ask your owner.',
      );
    }
  }
  return ids;
}

export function requireTtl(ttl: number | undefined): number {
  if (ttl === undefined) return LIMITS.requestDefaultTtlSecs;
  if (!Number.isInteger(ttl) || ttl < 1 || ttl > LIMITS.requestMaxTtlSecs) {
    throw new HubError(
      'invalid_argument',
      `ttl_secs: must be a whole number from 1 to ${LIMITS.requestMaxTtlSecs}.`,
      'Leave it out for one day.',
    );
  }
  return ttl;
}
