// What a Perch export holds, kind by kind: the table each JSON-lines entry comes from, its fields (and their
// types, which the importer checks on every line), its order and how a scoped export picks its rows. Columns
// that hold secrets (key hashes and hints, tokens, device credentials, push keys, wake actions) are not in any
// kind, and tables of secrets are not kinds at all: an export cannot carry them. docs/archive-format.md.

export const EXPORT_FORMAT = 'perch-archive';
export const EXPORT_VERSION = 2;
/** The oldest version this Perch still imports (version 1: no ledger). */
export const EXPORT_MIN_VERSION = 1;
/** Kinds an archive of an older version does not have: the version they came with. */
export const KIND_SINCE: Readonly<Record<string, number>> = { ledger_records: 2 };

/** s string, S string or null, i integer, I integer or null, N a finite number or null. */
export type FieldType = 's' | 'S' | 'i' | 'I' | 'N';

export interface ExportKind {
  /** The entry is `${name}.jsonl`. */
  name: string;
  table: string;
  fields: Readonly<Record<string, FieldType>>;
  /**
   * Fields added within version 1: always written (after `fields`), but a reader takes a line without them (an
   * export written before they were added) as if they were null.
   */
  optional?: Readonly<Record<string, FieldType>>;
  /** SELECT list when it is not the fields themselves. */
  select?: string;
  orderBy: string;
  /** Which rows a scoped export takes: a WHERE clause over @convs (a JSON array of conversation ids) and @users. */
  scoped: string;
}

const IN_CONVS = 'conv_id IN (SELECT value FROM json_each(@convs))';
const OF_MESSAGES = 'msg_id IN (SELECT id FROM messages WHERE conv_id IN (SELECT value FROM json_each(@convs)))';
const OF_USERS = 'user_id IN (SELECT value FROM json_each(@users))';

/** In the order they are written and imported (what a row refers to comes before it). */
export const EXPORT_KINDS: readonly ExportKind[] = [
  {
    name: 'users',
    table: 'users',
    orderBy: 'id',
    fields: {
      id: 's',
      kind: 's',
      name: 's',
      description: 's',
      created_at: 'i',
      revoked_at: 'I',
      config: 's',
      config_version: 'i',
      inbox_id: 'S',
    },
    scoped: 'id IN (SELECT value FROM json_each(@users))',
  },
  {
    name: 'conversations',
    table: 'conversations',
    orderBy: 'id',
    fields: {
      id: 's',
      kind: 's',
      title: 's',
      created_by: 's',
      created_at: 'i',
      last_seq: 'i',
      last_event_at: 'i',
      direct_key: 'S',
      task_state: 'S',
      task_assignee: 'S',
      floor_holder: 'S',
      floor_until: 'I',
    },
    optional: { archived_at: 'I', archived_by: 'S' },
    scoped: 'id IN (SELECT value FROM json_each(@convs))',
  },
  {
    name: 'members',
    table: 'members',
    orderBy: 'conv_id, user_id',
    fields: { conv_id: 's', user_id: 's', role: 's', from_seq: 'i', joined_at: 'i', read_seq: 'i' },
    scoped: IN_CONVS,
  },
  {
    name: 'messages',
    table: 'messages',
    orderBy: 'id',
    fields: {
      id: 's',
      conv_id: 's',
      seq: 'i',
      sender_id: 's',
      kind: 's',
      text: 'S',
      intent: 'S',
      reply_to: 'S',
      thread_id: 'S',
      to_ids: 'S',
      topics: 'S',
      refs: 'S',
      sources: 'S',
      payload: 'S',
      created_at: 'i',
      edited_at: 'I',
      recalled_at: 'I',
      claimed_by: 'S',
      claimed_at: 'I',
      reviewed: 'I',
      sender_instance: 'S',
      to_instance: 'S',
      provenance: 'S',
    },
    scoped: IN_CONVS,
  },
  {
    name: 'events',
    table: 'events',
    orderBy: 'gid',
    fields: { gid: 'i', conv_id: 's', seq: 'i', type: 's', actor_id: 'S', msg_id: 'S', ts: 'i', data: 'S' },
    scoped: IN_CONVS,
  },
  {
    name: 'reactions',
    table: 'reactions',
    orderBy: 'msg_id, user_id, key',
    fields: { msg_id: 's', user_id: 's', key: 's', at: 'i' },
    scoped: OF_MESSAGES,
  },
  {
    name: 'pins',
    table: 'pins',
    orderBy: 'conv_id, msg_id',
    fields: { conv_id: 's', msg_id: 's', pinned_by: 's', pinned_at: 'i' },
    scoped: IN_CONVS,
  },
  {
    name: 'requests',
    table: 'requests',
    orderBy: 'id',
    fields: {
      id: 's',
      conv_id: 's',
      msg_id: 's',
      requester_id: 's',
      kind: 's',
      title: 's',
      options: 'S',
      context: 'S',
      assignees: 's',
      state: 's',
      outcome: 'S',
      created_at: 'i',
      expires_at: 'i',
      decided_at: 'I',
      decided_by: 'S',
    },
    // door: which door filed a harness's permission prompt ('hook', 'channel'); null for the agent's own request_human.
    optional: { door: 'S' },
    scoped: IN_CONVS,
  },
  {
    name: 'card_responses',
    table: 'card_responses',
    orderBy: 'rowid',
    fields: { msg_id: 's', user_id: 's', block_id: 's', value: 's', at: 'i' },
    scoped: OF_MESSAGES,
  },
  {
    name: 'handoffs',
    table: 'handoffs',
    orderBy: 'id',
    fields: { id: 'i', conv_id: 's', agent_id: 's', to_user: 's', note: 's', at: 'i', returned_at: 'I', return_note: 'S' },
    scoped: IN_CONVS,
  },
  {
    name: 'files',
    table: 'files',
    orderBy: 'id',
    fields: {
      id: 's',
      conv_id: 's',
      msg_id: 'S',
      uploader_id: 's',
      name: 's',
      mime: 's',
      size: 'i',
      sha256: 's',
      is_image: 'i',
      width: 'I',
      height: 'I',
      thumb_mime: 'S',
      created_at: 'i',
      has_thumb: 'i',
    },
    select:
      'id, conv_id, msg_id, uploader_id, name, mime, size, sha256, is_image, width, height, thumb_mime, created_at, (thumb IS NOT NULL) AS has_thumb',
    scoped: IN_CONVS,
  },
  {
    name: 'state_keys',
    table: 'state_keys',
    orderBy: 'user_id, key',
    fields: { user_id: 's', key: 's', version: 'i', at: 'i' },
    scoped: OF_USERS,
  },
  {
    name: 'state_values',
    table: 'state_values',
    orderBy: 'user_id, key, version',
    fields: { user_id: 's', key: 's', version: 'i', value: 's', at: 'i' },
    scoped: OF_USERS,
  },
  {
    name: 'summaries',
    table: 'summaries',
    orderBy: 'id',
    fields: { id: 'i', user_id: 's', conv_id: 's', from_seq: 'i', to_seq: 'i', text: 's', at: 'i' },
    scoped: IN_CONVS,
  },
  {
    name: 'progress',
    table: 'progress',
    orderBy: 'id',
    fields: { id: 'i', user_id: 's', conv_id: 's', kind: 's', text: 's', data: 'S', msg_id: 'S', ts: 'i' },
    scoped: IN_CONVS,
  },
  {
    name: 'hidden_messages',
    table: 'hidden_messages',
    orderBy: 'user_id, msg_id',
    fields: { user_id: 's', msg_id: 's', hidden_at: 'i' },
    scoped: OF_MESSAGES,
  },
  {
    // The flight recorder (version 2 on), each row as the hub chained it (dedupe and hash in hex), so an import
    // verifies every day's chain before it takes any (store/export/ledger-rows.ts). Whole-hub exports only: a day's
    // chain runs through every agent's records, so a scoped export could not carry one that verifies.
    name: 'ledger_records',
    table: 'ledger_records',
    orderBy: 'id',
    fields: {
      id: 'i',
      day: 's',
      received_at: 'i',
      at: 'i',
      agent_id: 's',
      harness: 's',
      kind: 's',
      session_id: 'S',
      call_id: 'S',
      tool: 'S',
      model: 'S',
      detail: 's',
      input_tokens: 'I',
      output_tokens: 'I',
      cache_read_tokens: 'I',
      cache_write_tokens: 'I',
      cost_usd: 'N',
      cost_source: 'S',
      dedupe: 's',
      hash: 's',
    },
    select:
      'id, day, received_at, at, agent_id, harness, kind, session_id, call_id, tool, model, detail, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, cost_source, lower(hex(dedupe)) AS dedupe, lower(hex(hash)) AS hash',
    scoped: '0',
  },
];

export const KIND_BY_NAME: ReadonlyMap<string, ExportKind> = new Map(EXPORT_KINDS.map((k) => [k.name, k]));

/** The SELECT of a kind's rows in the export's order; `scoped` adds the kind's WHERE. */
export function kindQuery(k: ExportKind, scoped: boolean): string {
  return `SELECT ${k.select ?? [...Object.keys(k.fields), ...Object.keys(k.optional ?? {})].join(', ')} FROM ${k.table}${scoped ? ` WHERE ${k.scoped}` : ''} ORDER BY ${k.orderBy}`;
}

/** A file's bytes are `files/<id>`, its thumbnail `files/<id>.thumb`; a transcript is `transcripts/<title>-<conv id>.md` (transcript.ts transcriptName). */
export const SAFE_ID = /^[A-Za-z0-9_-]{1,80}$/;

export interface ManifestEntry {
  name: string;
  size: number;
  sha256: string;
  /** Rows in a JSON-lines entry. */
  rows?: number;
}

export interface Manifest {
  format: typeof EXPORT_FORMAT;
  version: number;
  created_at: string;
  perch_version: string;
  schema_version: number;
  scope: { conversations: string[] | null; agent: string | null; since: string | null };
  counts: Record<string, number>;
  entries: ManifestEntry[];
}
