// What the values of an export row may be (docs/archive-format.md, "Import rules"): the checks live input gets,
// applied to every imported row before anything is written. Ids are short ids; agent names are what agents.add
// takes; texts are within the hub's limits (shared/limits.ts); columns that hold JSON parse, within the depth and
// size the live API takes; kinds, roles and states are ones the hub writes. store/export/read.ts calls
// checkRowValues on every line it reads; the references between rows are checked by store/export/import.ts.
import { NAME_PATTERN } from '../../../shared/agents/agents';
import { MIME_TOKEN } from '../../../shared/features/files';
import { tooDeep } from '../../../shared/text/json-depth';
import { LIMITS } from '../../../shared/limits';
import { REQUEST_KINDS, REQUEST_STATES } from '../../../shared/types';
import { ExportFileError } from './tar';
import { SAFE_ID, type ExportKind } from './kinds';

type Rule =
  | { t: 'id' }
  /** A JSON array of ids (to_ids, assignees). */
  | { t: 'ids' }
  /** JSON text of at most `bytes` bytes (UTF-8). */
  | { t: 'json'; bytes: number }
  /** Text of at most `chars` characters. */
  | { t: 'text'; chars: number }
  /** A short word the hub writes (a type, a kind): no control characters, at most `chars`. */
  | { t: 'word'; chars: number }
  | { t: 'one of'; values: readonly string[] }
  | { t: 'match'; re: RegExp; what: string };

const ID: Rule = { t: 'id' };
const IDS: Rule = { t: 'ids' };
const word = (chars: number): Rule => ({ t: 'word', chars });
const text = (chars: number): Rule => ({ t: 'text', chars });
const json = (bytes: number): Rule => ({ t: 'json', bytes });
const oneOf = (...values: string[]): Rule => ({ t: 'one of', values });
/** JSON columns without a limit of their own at the live doors (event data, payloads, request options). */
const JSON_DEFAULT = 256 * 1024;
/** A string field not listed below. */
const OTHER = word(200);
/** A file's name as send_file stores it: no folders, no control or bidi-override characters. */
const FILE_NAME = /^(?!\.{1,2}$)[^/\\\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]{1,255}$/u;
const CONTROL = /\p{Cc}/u;

const RULES: Readonly<Record<string, Readonly<Record<string, Rule>>>> = {
  users: { id: ID, kind: oneOf('human', 'agent'), description: text(4000), config: json(JSON_DEFAULT), inbox_id: ID },
  conversations: {
    id: ID,
    kind: oneOf('direct', 'group', 'task', 'inbox'),
    title: text(LIMITS.maxTitleChars),
    created_by: ID,
    direct_key: { t: 'match', re: /^[A-Za-z0-9_-]{1,80}:[A-Za-z0-9_-]{1,80}$/, what: 'two ids joined by ":"' },
    task_state: word(40),
    task_assignee: ID,
    floor_holder: ID,
    archived_by: oneOf('owner', 'retention'),
  },
  members: { conv_id: ID, user_id: ID, role: oneOf('owner', 'admin', 'member') },
  messages: {
    id: ID,
    conv_id: ID,
    sender_id: ID,
    kind: word(40),
    text: text(LIMITS.maxTextChars),
    intent: word(40),
    reply_to: ID,
    thread_id: ID,
    to_ids: IDS,
    topics: json(16 * 1024),
    refs: json(16 * 1024),
    sources: json(16 * 1024),
    payload: json(JSON_DEFAULT),
    claimed_by: ID,
    sender_instance: word(40),
    to_instance: word(40),
    provenance: word(40),
  },
  events: { conv_id: ID, type: word(80), actor_id: ID, msg_id: ID, data: json(JSON_DEFAULT) },
  reactions: { msg_id: ID, user_id: ID, key: word(100) },
  pins: { conv_id: ID, msg_id: ID, pinned_by: ID },
  requests: {
    id: ID,
    conv_id: ID,
    msg_id: ID,
    requester_id: ID,
    kind: oneOf(...REQUEST_KINDS),
    title: text(LIMITS.maxTitleChars),
    options: json(JSON_DEFAULT),
    context: json(2 * LIMITS.maxContextBytes),
    assignees: IDS,
    state: oneOf(...REQUEST_STATES),
    outcome: json(JSON_DEFAULT),
    decided_by: ID,
    door: oneOf('hook', 'channel'),
  },
  card_responses: { msg_id: ID, user_id: ID, block_id: word(200), value: text(LIMITS.maxTextChars) },
  handoffs: { conv_id: ID, agent_id: ID, to_user: ID, note: text(LIMITS.maxTextChars), return_note: text(LIMITS.maxTextChars) },
  files: {
    id: ID,
    conv_id: ID,
    msg_id: ID,
    uploader_id: ID,
    name: { t: 'match', re: FILE_NAME, what: 'a file name (no folders or control characters, at most 255 characters)' },
    mime: { t: 'match', re: MIME_TOKEN, what: 'a media type' },
    sha256: { t: 'match', re: /^[0-9a-f]{64}$/, what: 'a sha256 in hex' },
    thumb_mime: { t: 'match', re: MIME_TOKEN, what: 'a media type' },
  },
  state_keys: { user_id: ID, key: text(LIMITS.maxStateKeyBytes) },
  state_values: { user_id: ID, key: text(LIMITS.maxStateKeyBytes), value: json(LIMITS.maxStateValueBytes) },
  summaries: { user_id: ID, conv_id: ID, text: text(LIMITS.maxSummaryChars) },
  progress: {
    user_id: ID,
    conv_id: ID,
    kind: word(40),
    text: text(LIMITS.maxTextChars),
    data: json(LIMITS.maxProgressDataBytes),
    msg_id: ID,
  },
  hidden_messages: { user_id: ID, msg_id: ID },
  ledger_records: {
    day: { t: 'match', re: /^\d{4}-\d{2}-\d{2}$/, what: 'a day (YYYY-MM-DD)' },
    agent_id: ID,
    harness: word(40),
    kind: oneOf('tool_decision', 'tool_result', 'api_request', 'perch_decision', 'perch_event'),
    // As the OTLP receiver keeps them (cut to 200 characters, any text the harness sent).
    session_id: text(200),
    call_id: text(200),
    tool: text(200),
    model: text(200),
    detail: json(JSON_DEFAULT),
    cost_source: oneOf('harness', 'price_table', 'unknown'),
    dedupe: { t: 'match', re: /^[0-9a-f]{64}$/, what: 'a sha256 in hex' },
    hash: { t: 'match', re: /^[0-9a-f]{64}$/, what: 'a sha256 in hex' },
  },
};

/** Integer fields with bounds beyond their type. */
/** A seq leaves room after it: the conversation's next seqs stay exact integers (a seq near 2^53 would end its writes). */
const MAX_SEQ = 2 ** 48;

const INTS: Readonly<Record<string, Readonly<Record<string, [number, number]>>>> = {
  messages: { seq: [1, MAX_SEQ] },
  events: { seq: [1, MAX_SEQ], gid: [1, Number.MAX_SAFE_INTEGER] },
  conversations: { last_seq: [0, Number.MAX_SAFE_INTEGER] },
  files: { size: [0, LIMITS.maxFileBytes], is_image: [0, 1], has_thumb: [0, 1] },
  ledger_records: {
    id: [1, Number.MAX_SAFE_INTEGER],
    input_tokens: [0, Number.MAX_SAFE_INTEGER],
    output_tokens: [0, Number.MAX_SAFE_INTEGER],
    cache_read_tokens: [0, Number.MAX_SAFE_INTEGER],
    cache_write_tokens: [0, Number.MAX_SAFE_INTEGER],
  },
};

function shown(v: string): string {
  return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
}

/** Why the value breaks the rule, or undefined when it keeps it. */
function broken(rule: Rule, v: string): string | undefined {
  switch (rule.t) {
    case 'id':
      return SAFE_ID.test(v) ? undefined : `${shown(v)} is not an id (1-80 of A-Z a-z 0-9 _ -)`;
    case 'ids': {
      let list: unknown;
      try {
        list = JSON.parse(v);
      } catch {
        return 'is not JSON';
      }
      if (!Array.isArray(list) || list.length > LIMITS.maxListItems || !list.every((x) => typeof x === 'string' && SAFE_ID.test(x))) {
        return `is not a JSON list of at most ${LIMITS.maxListItems} ids`;
      }
      return undefined;
    }
    case 'json': {
      // Counted before parsing: UTF-8 is at most 3 bytes per UTF-16 unit, so a string this short is within the limit.
      if (v.length * 3 > rule.bytes && Buffer.byteLength(v, 'utf8') > rule.bytes) return `is over ${rule.bytes} bytes`;
      let parsed: unknown;
      try {
        parsed = JSON.parse(v);
      } catch {
        return 'is not JSON';
      }
      const deep = tooDeep(parsed, LIMITS.maxJsonDepth);
      return deep === undefined ? undefined : `nests deeper than ${LIMITS.maxJsonDepth} levels`;
    }
    case 'text':
      return v.length > rule.chars ? `is over ${rule.chars} characters` : undefined;
    case 'word':
      if (v.length > rule.chars) return `is over ${rule.chars} characters`;
      return CONTROL.test(v) ? `${shown(v)} has control characters` : undefined;
    case 'one of':
      return rule.values.includes(v) ? undefined : `${shown(v)} is not one of ${rule.values.join(', ')}`;
    case 'match':
      return rule.re.test(v) ? undefined : `${shown(v)} is not ${rule.what}`;
  }
}

/**
 * The values of one row of a kind (its fields and their types already checked): each as the live API would take
 * it. Throws ExportFileError naming `where` (the entry and line) and the field.
 */
export function checkRowValues(kind: ExportKind, row: Record<string, unknown>, where: string): void {
  const rules = RULES[kind.name] ?? {};
  for (const [f, v] of Object.entries(row)) {
    if (typeof v === 'string') {
      const why = f === 'name' && kind.name === 'users' ? userName(row.kind, v) : broken(rules[f] ?? OTHER, v);
      if (why !== undefined) throw new ExportFileError(`${where}: field ${f} ${why}`);
    } else if (typeof v === 'number') {
      const range = INTS[kind.name]?.[f];
      if (range && (v < range[0] || v > range[1]))
        throw new ExportFileError(`${where}: field ${f} is ${v}, outside ${range[0]}..${range[1]}`);
    }
  }
}

/** An agent's name as agents.add takes it; the owner's as a short line. */
function userName(kind: unknown, v: string): string | undefined {
  if (kind === 'agent') {
    return NAME_PATTERN.test(v)
      ? undefined
      : `${shown(v)} is not an agent name (1-40 characters a-z, 0-9, - and _, starting with a letter or digit)`;
  }
  if (v.length < 1 || v.length > 80) return 'is not 1-80 characters';
  return CONTROL.test(v) ? `${shown(v)} has control characters` : undefined;
}
