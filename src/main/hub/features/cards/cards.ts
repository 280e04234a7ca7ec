// Cards: send_card (agents) and answerCard (people). A card is a message of kind 'card' whose
// payload is {card, responses, closed}; each response is stored, shown in the payload, and sent
// to the card's sender as the event card.response (which wakes it).
import type { FeaturesHub } from '../services';
import { HubError } from '../../../../shared/errors';
import { LIMITS } from '../../../../shared/limits';
import { matchVisible } from '../../../../shared/text/text';
import { conversationById, member } from '../../../store/tables/talk/conversations';
import { messageById, setMessagePayload } from '../../../store/tables/talk/messages';
import { cardResponsesOf, countCardResponses, insertCardResponse } from '../../../store/tables/talk/requests';
import { requireMember, wakeable } from '../../talk/access';
import { passGates } from '../../talk/gates';
import { insertMessageWithEvent } from '../../talk/messages';
import type { ToolHandlers } from '../../identity/tool-handler';

// ---- the card's shape -----------------------------------------------------------------------

export { CARD_ID_PATTERN, BLOCK_TYPES, BUTTON_STYLES, FIELD_TYPES } from '../../../../shared/features/cards';
export type { FieldType, ButtonOption, FormField, CardBlock, Card, CardResponse, CardPayload } from '../../../../shared/features/cards';
import {
  CARD_ID_PATTERN,
  BLOCK_TYPES,
  BUTTON_STYLES,
  FIELD_TYPES,
  type ButtonOption,
  type FormField,
  type CardBlock,
  type Card,
  type CardResponse,
  type CardPayload,
} from '../../../../shared/features/cards';

/** Responses kept in the message payload; all of them stay in card_responses. */
const CARD_PAYLOAD_RESPONSES = 50;
/** Blocks in a card, options of a buttons block, fields of a form. */
const MAX_ITEMS = LIMITS.maxListItems;

function bad(path: string, problem: string): never {
  throw new HubError('invalid_argument', `${path}: ${problem}`, 'Fix the card as described; see the send_card description for its shape.', {
    path,
  });
}

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const describe = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);

function onlyKeys(o: Record<string, unknown>, path: string, allowed: readonly string[]): void {
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) bad(`${path}.${k}`, `unknown field (allowed: ${allowed.join(', ')})`);
  }
}

function str(v: unknown, path: string, max: number, opts: { optional?: boolean } = {}): string | undefined {
  if (v === undefined && opts.optional) return undefined;
  if (v === undefined) bad(path, 'is required');
  if (typeof v !== 'string') bad(path, `must be a string, not ${describe(v)}`);
  if (!v.trim()) bad(path, 'must not be empty');
  if (v.length > max) bad(path, `is over ${max} characters`);
  return v;
}

function id(v: unknown, path: string): string {
  if (v === undefined) bad(path, 'is required');
  if (typeof v !== 'string' || !CARD_ID_PATTERN.test(v)) bad(path, 'must be 1-64 characters a-z, 0-9, _ or -');
  return v;
}

function oneOf<T extends string>(v: unknown, path: string, allowed: readonly T[]): T {
  if (typeof v !== 'string' || !allowed.includes(v as T)) bad(path, `must be one of ${allowed.join(', ')}`);
  return v as T;
}

function list(v: unknown, path: string, min: number): unknown[] {
  if (v === undefined) bad(path, 'is required');
  if (!Array.isArray(v)) bad(path, `must be an array, not ${describe(v)}`);
  if (v.length < min) bad(path, min === 1 ? 'must not be empty' : `needs at least ${min} items`);
  if (v.length > MAX_ITEMS) bad(path, `has ${v.length} items; at most ${MAX_ITEMS}`);
  return v;
}

function unique(seen: Set<string>, value: string, path: string, scope: string): void {
  if (seen.has(value)) bad(path, `"${value}" is used twice in ${scope}; ids must be unique`);
  seen.add(value);
}

function validateField(f: unknown, path: string): FormField {
  if (!isObject(f)) bad(path, `must be an object, not ${describe(f)}`);
  onlyKeys(f, path, ['id', 'label', 'type', 'required', 'options', 'max']);
  const field: FormField = {
    id: id(f.id, `${path}.id`),
    label: str(f.label, `${path}.label`, LIMITS.maxTitleChars)!,
    type: oneOf(f.type, `${path}.type`, FIELD_TYPES),
  };
  if (f.required !== undefined) {
    if (typeof f.required !== 'boolean') bad(`${path}.required`, 'must be true or false');
    field.required = f.required;
  }
  if (field.type === 'select') {
    if (f.options === undefined) bad(`${path}.options`, 'is required for a select field');
    const opts = list(f.options, `${path}.options`, 1);
    const seen = new Set<string>();
    field.options = opts.map((o, i) => {
      const s = str(o, `${path}.options[${i}]`, LIMITS.maxTitleChars)!;
      if (seen.has(s)) bad(`${path}.options[${i}]`, `"${s}" is listed twice`);
      seen.add(s);
      return s;
    });
  } else if (f.options !== undefined) {
    bad(`${path}.options`, `only a select field takes options (this field is ${field.type})`);
  }
  if (f.max !== undefined) {
    if (field.type === 'text') {
      if (typeof f.max !== 'number' || !Number.isInteger(f.max) || f.max < 1 || f.max > LIMITS.maxTextChars) {
        bad(`${path}.max`, `must be a whole number from 1 to ${LIMITS.maxTextChars} (the longest answer, in characters)`);
      }
    } else if (field.type === 'number') {
      if (typeof f.max !== 'number' || !Number.isFinite(f.max)) bad(`${path}.max`, 'must be a number (the highest value allowed)');
    } else {
      bad(`${path}.max`, `only text and number fields take max (this field is ${field.type})`);
    }
    field.max = f.max;
  }
  return field;
}

function validateBlock(b: unknown, path: string, blockIds: Set<string>): CardBlock {
  if (!isObject(b)) bad(path, `must be an object, not ${describe(b)}`);
  const type = oneOf(b.type, `${path}.type`, BLOCK_TYPES);
  if (type === 'text') {
    onlyKeys(b, path, ['type', 'text']);
    return { type, text: str(b.text, `${path}.text`, LIMITS.maxTextChars)! };
  }
  if (type === 'buttons') {
    onlyKeys(b, path, ['type', 'id', 'options']);
    const blockId = id(b.id, `${path}.id`);
    unique(blockIds, blockId, `${path}.id`, 'the card');
    const seen = new Set<string>();
    const options = list(b.options, `${path}.options`, 1).map((o, i): ButtonOption => {
      const p = `${path}.options[${i}]`;
      if (!isObject(o)) bad(p, `must be an object, not ${describe(o)}`);
      onlyKeys(o, p, ['id', 'label', 'style']);
      const opt: ButtonOption = { id: id(o.id, `${p}.id`), label: str(o.label, `${p}.label`, LIMITS.maxTitleChars)! };
      unique(seen, opt.id, `${p}.id`, 'this block');
      if (o.style !== undefined) opt.style = oneOf(o.style, `${p}.style`, BUTTON_STYLES);
      return opt;
    });
    return { type, id: blockId, options };
  }
  onlyKeys(b, path, ['type', 'id', 'submit', 'fields']);
  const blockId = id(b.id, `${path}.id`);
  unique(blockIds, blockId, `${path}.id`, 'the card');
  const submit = str(b.submit, `${path}.submit`, LIMITS.maxTitleChars)!;
  const seen = new Set<string>();
  const fields = list(b.fields, `${path}.fields`, 1).map((f, i) => {
    const field = validateField(f, `${path}.fields[${i}]`);
    unique(seen, field.id, `${path}.fields[${i}].id`, 'this form');
    return field;
  });
  return { type, id: blockId, submit, fields };
}

/**
 * Validates a card fully and returns it normalized (only known fields). A bad card is refused
 * with invalid_argument naming the exact path, e.g.
 * `card.blocks[1].fields[0].type: must be one of text, number, select, checkbox`.
 */
export function validateCard(card: unknown, path = 'card'): Card {
  if (!isObject(card)) bad(path, `must be an object, not ${describe(card)}`);
  const json = JSON.stringify(card);
  const bytes = Buffer.byteLength(json ?? '');
  if (bytes > LIMITS.maxCardBytes) {
    throw new HubError(
      'too_large',
      `${path}: is ${bytes} bytes as JSON; the limit is ${LIMITS.maxCardBytes}.`,
      'Make the card smaller; put long material in a file or message and refer to it.',
      { path, bytes, limit: LIMITS.maxCardBytes },
    );
  }
  onlyKeys(card, path, ['title', 'blocks', 'once']);
  const out: Card = { blocks: [] };
  const title = str(card.title, `${path}.title`, LIMITS.maxTitleChars, { optional: true });
  if (title !== undefined) out.title = title;
  const blockIds = new Set<string>();
  out.blocks = list(card.blocks, `${path}.blocks`, 1).map((b, i) => validateBlock(b, `${path}.blocks[${i}]`, blockIds));
  if (card.once !== undefined) {
    if (typeof card.once !== 'boolean') bad(`${path}.once`, 'must be true or false');
    out.once = card.once;
  }
  return out;
}

// ---- sending ---------------------------------------------------------------------------------

export interface SendCardInput {
  conv_id: string;
  card: unknown;
  text: string;
  reply_to?: string;
}

/** send_card: the card becomes a message of kind 'card' with payload {card, responses: [], closed: false}. */
export function sendCard(hub: FeaturesHub, senderId: string, input: SendCardInput, opts: { brakes?: boolean } = {}) {
  return hub.write(() => {
    const access = requireMember(hub, senderId, input.conv_id);
    passGates('conversation', { hub, userId: senderId, access }); // may-speak (hub/talk/gates.ts)
    const card = validateCard(input.card);
    const payload: CardPayload = { card, responses: [], closed: false };
    const sent = insertMessageWithEvent(
      hub,
      senderId,
      access,
      {
        conv_id: input.conv_id,
        text: input.text,
        kind: 'card',
        reply_to: input.reply_to,
        payload: payload as unknown as Record<string, unknown>,
      },
      [],
      opts.brakes ?? true,
    );
    return {
      msg_id: sent.msg_id,
      conv_id: sent.conv_id,
      seq: sent.seq,
      created_at: sent.created_at,
      next_step: 'Responses come back to you in get_updates as card.response events for this msg_id.',
    };
  });
}

// ---- answering (people) ----------------------------------------------------------------------------

export interface AnswerCardInput {
  msg_id: string;
  block_id: string;
  /** buttons: an option id; form: an object of field values. */
  value: unknown;
}

function badValue(path: string, problem: string): never {
  throw new HubError('invalid_argument', `${path}: ${problem}`, 'Answer with a value the card allows.', { path });
}

function validateFormValue(form: Extract<CardBlock, { type: 'form' }>, value: unknown): Record<string, unknown> {
  if (!isObject(value)) badValue('value', `must be an object of field values, not ${describe(value)}`);
  const ids = form.fields.map((f) => f.id);
  for (const k of Object.keys(value))
    if (!ids.includes(k)) badValue(`value.${k}`, `no such field in form "${form.id}" (fields: ${ids.join(', ')})`);
  const out: Record<string, unknown> = {};
  for (const f of form.fields) {
    const path = `value.${f.id}`;
    const v = value[f.id];
    const empty = v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
    if (f.type === 'checkbox') {
      if (v === undefined || v === null) {
        if (f.required) badValue(path, `"${f.label}" must be checked`);
        continue;
      }
      if (typeof v !== 'boolean') badValue(path, 'must be true or false');
      if (f.required && v !== true) badValue(path, `"${f.label}" must be checked`);
      out[f.id] = v;
      continue;
    }
    if (empty) {
      if (f.required) badValue(path, `"${f.label}" is required`);
      continue;
    }
    if (f.type === 'text') {
      if (typeof v !== 'string') badValue(path, 'must be text');
      const max = f.max ?? LIMITS.maxTextChars;
      if (v.length > max) badValue(path, `is ${v.length} characters; at most ${max}`);
      out[f.id] = v;
    } else if (f.type === 'number') {
      const n = typeof v === 'string' && /^\s*-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i.test(v) ? Number(v) : v;
      if (typeof n !== 'number' || !Number.isFinite(n)) badValue(path, 'must be a number');
      if (f.max !== undefined && n > f.max) badValue(path, `is ${n}; at most ${f.max}`);
      out[f.id] = n;
    } else {
      // The person was shown the options through visibleText: the option as stored is the value.
      const chosen = typeof v === 'string' ? matchVisible(f.options!, v) : undefined;
      if (chosen === undefined) badValue(path, `must be one of ${f.options!.map((o) => JSON.stringify(o)).join(', ')}`);
      out[f.id] = chosen;
    }
  }
  return out;
}

/**
 * A person answers a card: a button (value = option id) or a form (value = field values). A
 * `once` card closes at its first response; later answers are refused (conflict). The response
 * is stored, shown in the message's payload and sent as card.response waking the card's sender.
 */
export function answerCard(hub: FeaturesHub, userId: string, input: AnswerCardInput) {
  return hub.write(() => {
    const user = hub.user(userId);
    if (user.kind !== 'human') {
      throw new HubError('forbidden', 'Cards are answered by people.', 'Ask a person to answer it in Perch.');
    }
    const msg = messageById(hub.db, input.msg_id);
    const m = msg && member(hub.db, msg.conv_id, userId);
    if (!msg || (!m && userId !== hub.ownerId) || (m && msg.seq < m.from_seq)) {
      throw new HubError('not_found', `No message ${input.msg_id} that you can see.`, 'Use the msg_id of a card message.');
    }
    if (msg.kind !== 'card')
      throw new HubError('invalid_argument', `Message ${msg.id} is not a card (it is ${msg.kind}).`, 'Answer a message of kind card.');
    if (msg.recalled_at || msg.payload == null)
      throw new HubError('conflict', `Card ${msg.id} was recalled by its sender.`, 'Nothing to answer.');
    const payload = JSON.parse(msg.payload) as CardPayload;
    if (payload.closed) {
      const first = payload.responses[0];
      throw new HubError(
        'conflict',
        `Card ${msg.id} is closed: it takes one response${first ? `, given by ${first.by.name}` : ''}.`,
        'Nothing more to answer.',
      );
    }
    const block = payload.card.blocks.find((b): b is Exclude<CardBlock, { type: 'text' }> => b.type !== 'text' && b.id === input.block_id);
    if (!block) {
      const ids = payload.card.blocks.flatMap((b) => (b.type === 'text' ? [] : [b.id]));
      throw new HubError(
        'invalid_argument',
        `block_id: no buttons or form block "${input.block_id}" in this card (blocks: ${ids.join(', ') || 'none'}).`,
        "Answer one of the card's buttons or forms.",
      );
    }
    let value: unknown;
    if (block.type === 'buttons') {
      const ids = block.options.map((o) => o.id);
      if (typeof input.value !== 'string' || !ids.includes(input.value)) badValue('value', `must be one of ${ids.join(', ')}`);
      value = input.value;
    } else {
      value = validateFormValue(block, input.value);
    }
    const at = hub.now();
    const by = hub.ref(userId);
    insertCardResponse(hub.db, { msg_id: msg.id, user_id: userId, block_id: block.id, value: JSON.stringify(value), at });
    const count = countCardResponses(hub.db, msg.id);
    const closed = payload.card.once === true;
    const responses = [...payload.responses, { block_id: block.id, value, by, at }].slice(-CARD_PAYLOAD_RESPONSES);
    const next: CardPayload = { card: payload.card, responses, closed };
    if (count > responses.length) next.response_count = count;
    setMessagePayload(hub.db, msg.id, JSON.stringify(next));
    const conv = conversationById(hub.db, msg.conv_id)!;
    const { seq } = hub.emit(msg.conv_id, 'card.response', userId, {
      msgId: msg.id,
      data: { msg_id: msg.id, block_id: block.id, value, by },
      wake: wakeable(hub, conv, userId, [msg.sender_id]),
    });
    return { msg_id: msg.id, conv_id: msg.conv_id, seq, block_id: block.id, value, closed, response_count: count };
  });
}

/** Every response to a card, oldest first (the owner API may show them all). */
export function listCardResponses(hub: FeaturesHub, msgId: string): CardResponse[] {
  return cardResponsesOf(hub.db, msgId).map((r) => ({
    block_id: r.block_id,
    value: JSON.parse(r.value),
    by: hub.ref(r.user_id),
    at: r.at,
  }));
}

// ---- agent tools ------------------------------------------------------------------------------

export const cardTools = {
  send_card: {
    run: ({ hub, agentId }, a) => sendCard(hub, agentId, { conv_id: a.conv_id, card: a.card, text: a.text, reply_to: a.reply_to }),
  },
} satisfies ToolHandlers<'send_card', FeaturesHub>;
