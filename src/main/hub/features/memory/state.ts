// Checkpoints: state_get / state_put / state_list / state_delete.
// Per agent (nobody reads another's keys), versioned with optimistic concurrency, keys in byte order.
// Keys under archive/ hold what was imported with an agent from another server: read-only for agents.
import type { FeaturesHub } from '../services';
import { HubError } from '../../../../shared/errors';
import { LIMITS } from '../../../../shared/limits';
import {
  deleteStateKey,
  listStateKeys,
  pruneStateVersions,
  stateKey,
  stateValue,
  writeStateVersion,
} from '../../../store/tables/talk/state';
import type { ToolHandlers } from '../../identity/tool-handler';

/** Older versions of a key stay readable; the newest this many (current included) are kept. */
export const STATE_VERSIONS_KEPT = 20;

export const ARCHIVE_PREFIX = 'archive/';

export interface StateWriteOptions {
  /** Lets the hub itself (an import) write under archive/. Never set for agent calls. */
  system?: boolean;
}

const LONE_SURROGATE = /\p{Cs}/u;

function requireWellFormed(text: string, field: string): void {
  if (LONE_SURROGATE.test(text)) {
    throw new HubError(
      'invalid_argument',
      `${field} contains a lone UTF-16 surrogate, which is not valid Unicode.`,
      `Use a ${field} of valid Unicode text.`,
    );
  }
  if (text.includes('\u0000')) {
    throw new HubError('invalid_argument', `${field} contains a NUL character.`, `Remove the NUL character from the ${field}.`);
  }
}

export function requireStateKey(key: string): string {
  if (key.length === 0) throw new HubError('invalid_argument', 'key is empty.', 'Use a non-empty key, e.g. "progress/step".');
  requireWellFormed(key, 'key');
  const bytes = Buffer.byteLength(key, 'utf8');
  if (bytes > LIMITS.maxStateKeyBytes) {
    throw new HubError('too_large', `key is ${bytes} bytes (UTF-8); the limit is ${LIMITS.maxStateKeyBytes}.`, 'Use a shorter key.');
  }
  return key;
}

function refuseArchive(key: string, verb: string, opts: StateWriteOptions): void {
  if (!opts.system && key.startsWith(ARCHIVE_PREFIX)) {
    throw new HubError(
      'forbidden',
      `Keys under ${ARCHIVE_PREFIX} are read-only; you cannot ${verb} ${JSON.stringify(key)}.`,
      `Read it with state_get and store your own copy under another key.`,
    );
  }
}

function conflict(key: string, expected: number, current: number): HubError {
  const what = current === 0 ? `does not exist (current version 0)` : `is at version ${current}`;
  return new HubError(
    'conflict',
    `Key ${JSON.stringify(key)} ${what}, not ${expected}: it changed since you read it.`,
    current === 0 ? 'Create it with version 0.' : 'Read it again with state_get, merge, and pass the version you read.',
    { current_version: current },
  );
}

export function stateGet(hub: FeaturesHub, userId: string, key: string, version?: number) {
  requireStateKey(key);
  const head = stateKey(hub.db, userId, key);
  if (!head) {
    throw new HubError(
      'not_found',
      `No key ${JSON.stringify(key)}.`,
      'List your keys with state_list, or create it with state_put and version 0.',
    );
  }
  const wanted = version ?? head.version;
  const row = stateValue(hub.db, userId, key, wanted);
  if (!row) {
    const oldest = Math.max(1, head.version - STATE_VERSIONS_KEPT + 1);
    throw new HubError(
      'not_found',
      wanted > head.version || wanted < 1
        ? `Key ${JSON.stringify(key)} has no version ${wanted}; it is at version ${head.version}.`
        : `Version ${wanted} of key ${JSON.stringify(key)} is no longer kept (versions ${oldest}..${head.version} are).`,
      'Read the current version (omit version) or one of the kept versions.',
      { current_version: head.version, oldest_version: oldest },
    );
  }
  return { key, version: row.version, value: JSON.parse(row.value) as unknown, updated_at: row.at, current_version: head.version };
}

export function statePut(
  hub: FeaturesHub,
  userId: string,
  input: { key: string; value: unknown; version: number },
  opts: StateWriteOptions = {},
) {
  const key = requireStateKey(input.key);
  refuseArchive(key, 'write', opts);
  if (input.value === undefined) throw new HubError('invalid_argument', 'value is missing.', 'Pass any JSON value (null is allowed).');
  const value = JSON.stringify(input.value);
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > LIMITS.maxStateValueBytes) {
    throw new HubError(
      'too_large',
      `value is ${bytes} bytes as JSON; the limit is ${LIMITS.maxStateValueBytes}.`,
      'Store less, or split it over several keys.',
    );
  }
  return hub.write(() => {
    const current = stateKey(hub.db, userId, key)?.version ?? 0;
    if (current !== input.version) throw conflict(key, input.version, current);
    const version = current + 1;
    const at = hub.now();
    writeStateVersion(hub.db, { user_id: userId, key, version, value, at });
    pruneStateVersions(hub.db, userId, key, version, STATE_VERSIONS_KEPT);
    return { key, version, updated_at: at };
  });
}

export function stateDelete(hub: FeaturesHub, userId: string, input: { key: string; version: number }, opts: StateWriteOptions = {}) {
  const key = requireStateKey(input.key);
  refuseArchive(key, 'delete', opts);
  return hub.write(() => {
    const head = stateKey(hub.db, userId, key);
    if (!head) throw new HubError('not_found', `No key ${JSON.stringify(key)}.`, 'List your keys with state_list.');
    if (head.version !== input.version) throw conflict(key, input.version, head.version);
    deleteStateKey(hub.db, userId, key);
    return { key, deleted: true as const, version: head.version };
  });
}

/**
 * [lower, upper) holding exactly the strings that start with prefix, in byte (= code point) order:
 * upper is the prefix with its last code point below U+10FFFF incremented; null when there is none.
 */
export function prefixRange(prefix: string): { lower: string; upper: string | null } {
  const cps = [...prefix].map((c) => c.codePointAt(0)!);
  while (cps.length && cps[cps.length - 1] === 0x10ffff) cps.pop();
  if (cps.length === 0) return { lower: prefix, upper: null };
  let last = cps.pop()! + 1;
  if (last === 0xd800) last = 0xe000; // skip the surrogate block, which UTF-8 cannot encode
  return { lower: prefix, upper: String.fromCodePoint(...cps, last) };
}

export function stateList(hub: FeaturesHub, userId: string, input: { prefix?: string; after?: string; limit?: number }) {
  const prefix = input.prefix ?? '';
  if (prefix) requireWellFormed(prefix, 'prefix');
  if (input.after !== undefined) requireWellFormed(input.after, 'after');
  const limit = Math.max(1, Math.min(input.limit ?? 100, LIMITS.historyMaxLimit));
  const { lower, upper } = prefixRange(prefix);
  const rows = listStateKeys(hub.db, userId, { after: input.after ?? '', lower, upper, limit: limit + 1 });
  const page = rows.slice(0, limit);
  return {
    keys: page.map((r) => ({ key: r.key, version: r.version, updated_at: r.at })),
    next_after: rows.length > limit ? page[page.length - 1]!.key : null,
  };
}

export const stateTools = {
  state_get: {
    run: ({ hub, agentId }, a) => stateGet(hub, agentId, a.key, a.version),
  },
  state_put: {
    run: ({ hub, agentId }, a) => statePut(hub, agentId, { key: a.key, value: a.value, version: a.version }),
  },
  state_list: {
    run: ({ hub, agentId }, a) => stateList(hub, agentId, a),
  },
  state_delete: {
    run: ({ hub, agentId }, a) => stateDelete(hub, agentId, { key: a.key, version: a.version }),
  },
} satisfies ToolHandlers<'state_get' | 'state_put' | 'state_list' | 'state_delete', FeaturesHub>;
