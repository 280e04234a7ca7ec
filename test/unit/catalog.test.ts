// The catalog in src/shared/api/catalog.ts must match the agent tool contract (test/fixtures/contract.json).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import {
  TOOLS,
  TOOL_BY_NAME,
  toolSchemaVersion,
  schemaFingerprint,
  toolInputJsonSchema,
  toolOutputJsonSchema,
  type ToolSpec,
} from '../../src/shared/api/catalog';
import { loadContract } from '../support/contract-fixture';

/** Arguments the catalog adds beyond the contract (docs/design.md, "What always holds" 3 and 4). */
const WAIT_ADDITION = { tool: 'get_updates', arg: 'wait_secs' };
const OPERATION_ID = 'operation_id';
/** Sessions of one agent: instance names on these tools, to_instance on send_message, a note on whoami. */
const INSTANCE_ADDITIONS: Record<string, readonly string[]> = {
  whoami: ['instance', 'instance_note'],
  send_message: ['instance', 'to_instance'],
  get_updates: ['instance'],
  get_context: ['instance'],
};

const contract = loadContract();

/** Requiredness and properties as published in tools/list. */
function published(t: ToolSpec) {
  const schema = toolInputJsonSchema(t) as {
    type: string;
    properties: Record<string, unknown>;
    required?: string[];
    additionalProperties?: unknown;
  };
  return schema;
}

test('the contract fixture holds 37 uniquely named tools, each with a description and well-formed arguments', () => {
  assert.equal(contract.length, 37);
  assert.equal(new Set(contract.map((t) => t.name)).size, 37, 'tool names are unique');
  const argTypes = new Set(['string', 'integer', 'boolean', 'array', 'object', 'any']);
  for (const t of contract) {
    assert.match(t.name, /^[a-z_]+$/);
    assert.ok(t.description.length > 20, `${t.name} has a description`);
    assert.equal(typeof t.read_only, 'boolean', `${t.name}: read_only is a boolean`);
    assert.equal(new Set(t.arguments.map((a) => a.name)).size, t.arguments.length, `${t.name}: argument names are unique`);
    for (const a of t.arguments) {
      assert.ok(argTypes.has(a.type), `${t.name}.${a.name}: known type ${a.type}`);
      assert.equal(typeof a.required, 'boolean');
      assert.equal(typeof a.description, 'string');
    }
  }
  assert.deepEqual(
    contract.filter((t) => t.heading_lost_in_source).map((t) => t.name),
    ['claim', 'react'],
    'the two tools whose heading the contract page lost are claim and react',
  );
  const sendMessage = contract.find((t) => t.name === 'send_message')!;
  assert.deepEqual(
    sendMessage.arguments.map((a) => [a.name, a.type, a.required]),
    [
      ['client_msg_id', 'string', false],
      ['conv_id', 'string', true],
      ['intent', 'string', false],
      ['refs', 'array', false],
      ['reply_to', 'string', false],
      ['sources', 'array', false],
      ['text', 'string', true],
      ['thread_id', 'string', false],
      ['to', 'array', false],
      ['topics', 'array', false],
    ],
  );
  assert.equal(sendMessage.arguments.find((a) => a.name === 'intent')!.description, 'One of request, proposal, answer, status, done.');
});

test('tools are listed with the contract names in the contract order', () => {
  assert.deepEqual(
    TOOLS.map((t) => t.name),
    contract.map((t) => t.name),
  );
  assert.equal(TOOL_BY_NAME.size, TOOLS.length);
  for (const t of TOOLS) assert.equal(TOOL_BY_NAME.get(t.name), t);
});

test('each description is the contract paragraph verbatim and the title is its first sentence', () => {
  for (const [k, c] of contract.entries()) {
    const t = TOOLS[k];
    assert.equal(t.description, c.description, `${t.name} description`);
    assert.ok(t.description.startsWith(`${t.title}. `), `${t.name} title "${t.title}" starts the description`);
    assert.ok(!t.title.includes('.'), `${t.name} title is one sentence`);
  }
});

test('readOnly matches "Read-only." in the contract', () => {
  for (const [k, c] of contract.entries()) assert.equal(TOOLS[k].readOnly, c.read_only, TOOLS[k].name);
});

test('tool facts: only recall_message and state_delete are destructive; every write but progress is group-committed, no read is', () => {
  assert.deepEqual(
    TOOLS.filter((t) => t.destructive).map((t) => t.name),
    ['recall_message', 'state_delete'],
  );
  for (const t of TOOLS) {
    assert.ok(!(t.destructive && t.readOnly), `${t.name}: a destructive tool is not read-only`);
    assert.equal(t.groupCommitted, !t.readOnly && t.name !== 'progress', `${t.name}: groupCommitted`);
  }
});

test('arguments: every contract argument exists with its required flag; extras are only the allowed additions', () => {
  for (const [k, c] of contract.entries()) {
    const t = TOOLS[k];
    const schema = published(t);
    assert.equal(schema.type, 'object');
    assert.equal(schema.additionalProperties, false, `${t.name} refuses unknown arguments`);
    const props = Object.keys(schema.properties);
    const required = new Set(schema.required ?? []);
    for (const a of c.arguments) {
      assert.ok(props.includes(a.name), `${t.name}.${a.name} is in the schema`);
      assert.equal(required.has(a.name), a.required, `${t.name}.${a.name} required flag`);
    }
    const contractNames = new Set(c.arguments.map((a) => a.name));
    for (const p of props.filter((p) => !contractNames.has(p))) {
      const allowed =
        (t.name === WAIT_ADDITION.tool && p === WAIT_ADDITION.arg) ||
        (p === OPERATION_ID && !t.readOnly) ||
        (INSTANCE_ADDITIONS[t.name]?.includes(p) ?? false);
      assert.ok(allowed, `${t.name}.${p} is not in the contract and not an allowed addition`);
      assert.ok(!required.has(p), `${t.name}.${p} (an addition) is optional`);
    }
  }
});

test('argument descriptions: the contract text where it has one, some text everywhere', () => {
  for (const [k, c] of contract.entries()) {
    const t = TOOLS[k];
    const props = published(t).properties as Record<string, { description?: string }>;
    for (const [name, p] of Object.entries(props)) {
      assert.ok(p.description && p.description.length > 3, `${t.name}.${name} has a description`);
    }
    for (const a of c.arguments) {
      if (a.description) assert.equal(props[a.name].description, a.description, `${t.name}.${a.name} description`);
    }
  }
});

test('argument types match the contract', () => {
  const jsonType: Record<string, string | undefined> = {
    string: 'string',
    integer: 'integer',
    boolean: 'boolean',
    array: 'array',
    object: 'object',
    any: undefined, // any JSON value: no type constraint
  };
  for (const [k, c] of contract.entries()) {
    const t = TOOLS[k];
    const props = published(t).properties as Record<string, { type?: string }>;
    for (const a of c.arguments) assert.equal(props[a.name].type, jsonType[a.type], `${t.name}.${a.name} type`);
  }
});

test('write tools without their own client id take an optional operation_id; reads, progress and get_updates do not', () => {
  // progress is not a durable write; get_updates' retries are made safe by its ack.
  const notDurableWrites = new Set(['progress', 'get_updates']);
  for (const t of TOOLS) {
    const props = Object.keys(published(t).properties);
    const ownId = props.includes('client_msg_id') || props.includes('client_req_id');
    const expected = !t.readOnly && !ownId && !notDurableWrites.has(t.name);
    assert.equal(props.includes(OPERATION_ID), expected, `${t.name} operation_id`);
  }
});

test('every tool names the key scope it needs: reads read, writes write, and asking, files and state their own', () => {
  const scopes = new Map(TOOLS.map((t) => [t.name, t.scope]));
  assert.equal(scopes.get('whoami'), 'any', 'whoami works with any key');
  assert.equal(scopes.get('get_updates'), 'read', 'get_updates is a read (it only moves your own position)');
  for (const n of ['request_human', 'get_request', 'cancel_request']) assert.equal(scopes.get(n), 'ask', n);
  for (const n of ['send_file', 'file_url']) assert.equal(scopes.get(n), 'files', n);
  for (const n of ['state_get', 'state_put', 'state_list', 'state_delete', 'put_summary']) assert.equal(scopes.get(n), 'state', n);
  for (const n of ['send_message', 'edit_message', 'send_card', 'progress', 'react', 'create_task', 'handoff'])
    assert.equal(scopes.get(n), 'write', n);
  for (const n of ['list_conversations', 'get_history', 'get_thread', 'search', 'get_context', 'list_pins', 'find_user', 'get_config'])
    assert.equal(scopes.get(n), 'read', n);
  for (const t of TOOLS) assert.ok(['any', 'read', 'write', 'files', 'state', 'ask'].includes(t.scope), `${t.name}: scope ${t.scope}`);
});

test('enums from the contract are enforced', () => {
  const enumOf = (tool: string, arg: string) => (published(TOOL_BY_NAME.get(tool)!).properties[arg] as { enum?: string[] }).enum;
  assert.deepEqual(enumOf('send_message', 'intent'), ['request', 'proposal', 'answer', 'status', 'done']);
  assert.deepEqual(enumOf('search', 'intent'), ['request', 'proposal', 'answer', 'status', 'done']);
  assert.deepEqual(enumOf('request_human', 'kind'), ['approve', 'answer', 'choose']);
  assert.deepEqual(enumOf('update_task', 'state'), ['submitted', 'working', 'input_required', 'completed', 'failed', 'canceled']);
  assert.deepEqual(enumOf('search', 'sender_type'), ['human', 'agent']);
  assert.deepEqual(enumOf('progress', 'kind'), ['thinking', 'tool_call', 'tool_result', 'plan', 'step', 'error']);
  assert.deepEqual(enumOf('file_url', 'variant'), ['original', 'thumb']);
  const send = TOOL_BY_NAME.get('send_message')!.input;
  assert.equal(send.safeParse({ conv_id: 'c1', text: 'hi', intent: 'shout' }).success, false);
});

test('schemas accept valid calls and refuse unknown, missing or mistyped arguments', () => {
  const input = (name: string) => TOOL_BY_NAME.get(name)!.input;
  const ok = (name: string, args: unknown) =>
    assert.equal(input(name).safeParse(args).success, true, `${name} accepts ${JSON.stringify(args)}`);
  const bad = (name: string, args: unknown) =>
    assert.equal(input(name).safeParse(args).success, false, `${name} refuses ${JSON.stringify(args)}`);

  ok('whoami', {});
  bad('whoami', { x: 1 });
  ok('send_message', {
    conv_id: 'c1',
    text: 'see the doc',
    to: ['bob'],
    topics: ['build'],
    intent: 'request',
    refs: ['doc-1', { type: 'url', url: 'https://example.com', title: 'Example' }, { conv_id: 'c1', msg_id: 'm1' }],
    client_msg_id: 'abc',
  });
  bad('send_message', { conv_id: 'c1' });
  bad('send_message', { conv_id: 'c1', text: 'x', refs: [{ href: 'nope' }] });
  bad('send_message', { conv_id: 'c1', text: 'x', to: Array.from({ length: 51 }, (_, k) => `a${k}`) });
  bad('send_message', { conv_id: 'c1', text: 'x', operation_id: 'op' });
  ok('get_updates', { wait_secs: 30, limit: 100 });
  bad('get_updates', { wait_secs: 61 });
  bad('get_updates', { limit: 0 });
  bad('get_updates', { limit: 1.5 });
  ok('state_put', { key: 'k', value: null, version: 0 });
  ok('state_put', { key: 'k', value: { a: [1, 2] }, version: 3, operation_id: 'op-1' });
  bad('state_put', { key: 'k', version: 0 });
  bad('state_put', { key: 'k', value: 1, version: -1 });
  ok('send_card', { conv_id: 'c1', text: 'Pick', card: { blocks: [{ type: 'text', text: 'hi' }] } });
  bad('send_card', { conv_id: 'c1', text: 'Pick', card: 'not a card' });
  ok('progress', { conv_id: 'c1', kind: 'tool_call', text: 'running tests', data: { n: 1 } });
  bad('progress', { conv_id: 'c1', kind: 'tool_call', text: 'x', operation_id: 'op' });
  ok('search', { query: 'deploy', has_refs: true, since: 0, sender_type: 'agent' });
  bad('search', { query: 'deploy', has_refs: 'yes' });
});

test('the published state_put schema requires value', () => {
  const schema = published(TOOL_BY_NAME.get('state_put')!);
  assert.deepEqual([...(schema.required ?? [])].sort(), ['key', 'value', 'version']);
});

test('toolInputJsonSchema is memoized and frozen', () => {
  const t = TOOL_BY_NAME.get('send_message')!;
  assert.equal(toolInputJsonSchema(t), toolInputJsonSchema(t));
  assert.ok(Object.isFrozen(toolInputJsonSchema(t)));
  assert.equal('$schema' in toolInputJsonSchema(t), false);
});

test('toolSchemaVersion() is a stable fingerprint that changes with any description, title, schema or readOnly', () => {
  assert.match(toolSchemaVersion(), /^[0-9a-f]{16}$/);
  assert.equal(schemaFingerprint(TOOLS), toolSchemaVersion());
  assert.equal(schemaFingerprint([...TOOLS]), toolSchemaVersion());

  const changed = (k: number, patch: Partial<ToolSpec>) => schemaFingerprint(TOOLS.map((t, j) => (j === k ? { ...t, ...patch } : t)));
  const k = TOOLS.findIndex((t) => t.name === 'send_message');
  const t = TOOLS[k];
  assert.notEqual(changed(k, { description: `${t.description} ` }), toolSchemaVersion());
  assert.notEqual(changed(k, { title: `${t.title}!` }), toolSchemaVersion());
  assert.notEqual(changed(k, { readOnly: !t.readOnly }), toolSchemaVersion());
  assert.notEqual(changed(k, { name: 'send_message2' }), toolSchemaVersion());
  assert.notEqual(changed(k, { input: t.input.extend({ extra: z.string().optional() }) }), toolSchemaVersion());
  const recall = TOOLS.findIndex((x) => x.name === 'recall_message');
  const out = TOOLS[recall].output as z.ZodObject;
  assert.notEqual(
    changed(recall, { output: out.extend({ extra: z.string() }) }),
    toolSchemaVersion(),
    'an output schema is part of the fingerprint',
  );
  assert.notEqual(schemaFingerprint(TOOLS.slice().reverse()), toolSchemaVersion());
});

test('every tool declares its result: an object schema, open to the fields the MCP door adds, frozen and memoized', () => {
  for (const t of TOOLS) {
    const schema = toolOutputJsonSchema(t) as {
      type?: string;
      additionalProperties?: unknown;
      anyOf?: Array<{ type: string; additionalProperties?: unknown }>;
    };
    assert.equal(schema.type, 'object', `${t.name}: outputSchema's root is an object`);
    assert.equal('$schema' in schema, false);
    for (const s of schema.anyOf ?? [schema])
      assert.equal(s.additionalProperties, undefined, `${t.name}: more fields (request_id) are allowed`);
    assert.equal(toolOutputJsonSchema(t), toolOutputJsonSchema(t));
    assert.ok(Object.isFrozen(toolOutputJsonSchema(t)));
  }
});

test('the writes review mode holds declare both answers: done, or held with a held_id', () => {
  const held = { held: true, held_id: 'h_1', conv_id: 'c_1', created_at: 1, next_step: 'Wait for your owner.' };
  for (const name of ['send_message', 'send_card']) assert.ok(TOOL_BY_NAME.get(name)!.output.safeParse(held).success, name);
  for (const name of ['edit_message', 'request_human', 'create_task', 'create_group', 'update_task', 'handoff']) {
    assert.ok(TOOL_BY_NAME.get(name)!.output.safeParse({ ...held, kind: 'edit' }).success, name);
  }
  assert.ok(TOOL_BY_NAME.get('send_file')!.output.safeParse({ ...held, kind: 'image', name: 'a.png', mime: 'image/png', size: 3 }).success);
  assert.equal(
    TOOL_BY_NAME.get('recall_message')!.output.safeParse(held).success,
    false,
    'a write review mode never holds has no held answer',
  );
});
