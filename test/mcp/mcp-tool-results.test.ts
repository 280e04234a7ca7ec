// Declared tool results over a real `perch serve`: every one of the 37 tools is called, and every write that review
// mode holds is called again held, through the OFFICIAL MCP clients, which check each answer's structuredContent
// against the tool's outputSchema and throw when it does not match. tools/list carries outputSchema in the
// 2026-07-28 era (the v2 client checks against what the hub serves); the 2025 era lists none, because the sdk v1
// client checks a failed call's structuredContent (isError) against it too: the v1 client here is given the schemas
// the hub serves in the other era, so it checks every answer the same way. Every answer is also read with the
// catalog's zod schema, which must keep all of it: a field a tool answers but does not declare fails.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { TOOLS, TOOL_BY_NAME, toolInputJsonSchema, toolOutputJsonSchema } from '../../src/shared/api/catalog';
import {
  ERAS,
  ERA_NAME,
  addAgent,
  ownerOk,
  uniqueName,
  useSharedServe,
  type AgentClient,
  type AgentKey,
  type Era,
  type ToolResult,
} from '../support/serve-harness';

type R = Record<string, any>;

let ownerName: string;
const served = useSharedServe({}, async (s) => {
  ownerName = (await ownerOk(s, 'hub.info')).owner.name;
});

/** An official client of the era, as an agent, that checks answers against outputSchema. */
interface Checked {
  era: Era;
  agent: AgentKey;
  /** tools/call through the client (it throws when structuredContent does not match outputSchema). */
  call(name: string, args?: R): Promise<ToolResult>;
  listTools(): Promise<Array<R>>;
  close(): Promise<void>;
  /** The underlying official client. */
  client: ClientV1 | ClientV2;
}

/** The tools/list the hub serves in the 2026-07-28 era (with outputSchema). */
async function modernList(): Promise<Array<R>> {
  const c = await connectChecked('v2', await addAgent(served.dataDir, uniqueName('lister')));
  try {
    return await c.listTools();
  } finally {
    await c.close();
  }
}

/**
 * Connects an official client as the agent. v2: pinned to 2026-07-28, tools/list read (the client keeps each tool's
 * outputSchema and checks answers against it). v1: the 2025 list (no outputSchema), then the client is given the
 * tools the hub lists in the 2026-07-28 era (its own cacheToolMetadata, which listTools calls with a list).
 */
async function connectChecked(era: Era, agent: AgentKey, schemasFrom?: Array<R>): Promise<Checked> {
  const headers = { Authorization: `Bearer ${agent.key}` };
  if (era === 'v1') {
    const client = new ClientV1({ name: 'perch-results-v1', version: '1.0.0' });
    await client.connect(new TransportV1(new URL(served.mcpUrl), { requestInit: { headers } }));
    const listTools = async () => (await client.listTools()).tools as Array<R>;
    await listTools();
    if (schemasFrom) (client as unknown as { cacheToolMetadata(tools: unknown[]): void }).cacheToolMetadata(schemasFrom);
    return {
      era,
      agent,
      client,
      listTools,
      call: async (name, args = {}) => (await client.callTool({ name, arguments: args }, undefined, { timeout: 90_000 })) as ToolResult,
      close: () => client.close(),
    };
  }
  const client = new ClientV2({ name: 'perch-results-v2', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new TransportV2(new URL(served.mcpUrl), { requestInit: { headers } }));
  assert.equal(client.getProtocolEra(), 'modern');
  const listTools = async () => (await client.listTools({}, { cacheMode: 'refresh' })).tools as unknown as Array<R>;
  await listTools();
  return {
    era,
    agent,
    client,
    listTools,
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args }, { timeout: 90_000 })) as unknown as ToolResult,
    close: () => client.close(),
  };
}

/** structuredContent less what the MCP door adds (request_id, or call_request_id beside a request's own request_id). */
function handlerPart(sc: R): R {
  const { call_request_id: _call, ...rest } = sc;
  if ('call_request_id' in sc) return rest;
  const { request_id: _id, ...answer } = sc;
  return answer;
}

/** A call that must succeed, its answer checked by the client and declared field by field in the catalog. */
async function ok(c: Checked, seen: Set<string>, name: string, args: R = {}): Promise<R> {
  const r = await c.call(name, args);
  assert.ok(!r.isError, `${name} failed: ${JSON.stringify(r.structuredContent)}`);
  const sc = r.structuredContent!;
  assert.equal(typeof sc.request_id, 'string', `${name}: the answer has the door's request_id`);
  const answer = handlerPart(sc);
  // zod drops what a schema does not declare: reading the answer back must give all of it.
  assert.deepEqual(
    TOOL_BY_NAME.get(name)!.output.parse(answer),
    answer,
    `${name}: every field of the answer is declared in its output schema`,
  );
  seen.add(sc.held === true ? `${name} (held)` : name);
  return sc;
}

/** B (a plain v1 agent) reads everything new, so that it and A share history. */
async function drain(c: AgentClient): Promise<void> {
  for (let i = 0; i < 50; i++) if ((await c.ok('get_updates', {})).events.length === 0) return;
  throw new Error('get_updates never ran dry');
}

const HELD_TOOLS = [
  'send_message',
  'send_card',
  'send_file',
  'edit_message',
  'request_human',
  'create_task',
  'create_group',
  'update_task',
  'handoff',
];

const CARD = {
  title: 'Ship it?',
  blocks: [
    { type: 'text', text: 'v2 is ready.' },
    {
      type: 'buttons',
      id: 'go',
      options: [
        { id: 'yes', label: 'Yes', style: 'primary' },
        { id: 'no', label: 'No' },
      ],
    },
  ],
};

/** Every tool (and every held write) once, by agent `a`; b and c are plain helpers. Returns what was seen. */
async function everyTool(a: Checked, b: AgentClient, c: AgentClient): Promise<Set<string>> {
  const seen = new Set<string>();
  const call = (name: string, args: R = {}) => ok(a, seen, name, args);
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3366aa' } })
    .png()
    .toBuffer();

  await call('whoami', { instance: 'desk', instance_note: 'the results test' });
  await call('get_config');
  await call('find_user', { name: ownerName });
  const direct = (await call('open_direct', { user: ownerName })).conversation.conv_id as string;
  const group = (await call('create_group', { title: 'results crew', members: [b.agent.name] })).conversation.conv_id as string;
  await call('add_member', { conv_id: group, user: c.agent.name, history: 5 });
  await call('list_conversations');
  const root = await call('send_message', {
    conv_id: group,
    text: 'Please check the deploy.',
    intent: 'request',
    to: [b.agent.name],
    topics: ['ops'],
    refs: ['doc:1', { type: 'url', url: 'https://example.com' }],
    instance: 'desk',
  });
  const reply = await call('send_message', { conv_id: group, text: 'Details in the doc.', thread_id: root.msg_id });
  await call('edit_message', { msg_id: reply.msg_id, text: 'Details are in the doc.' });
  await call('react', { conv_id: group, msg_id: root.msg_id, key: '👀' });
  await b.ok('react', { conv_id: group, msg_id: root.msg_id, key: '✅' });
  await ownerOk(served, 'messages.pin', { conv_id: group, msg_id: root.msg_id, on: true });
  await call('claim', { msg_id: root.msg_id });
  await call('release_claim', { msg_id: root.msg_id });
  await call('floor_grant', { conv_id: group, agent: b.agent.name, ttl_secs: 60 });
  await call('floor_release', { conv_id: group });
  await call('progress', { conv_id: group, kind: 'step', text: 'checking', data: { step: 1 }, msg_id: root.msg_id });
  await call('get_history', { conv_id: group });
  await call('get_history', { conv_id: group, after_seq: 1000 }); // an empty page: first_seq / last_seq null
  await call('get_thread', { conv_id: group, thread_id: root.msg_id });
  await call('list_pins', { conv_id: group });
  await call('search', { query: 'deploy' });
  const last = (await call('get_history', { conv_id: group, limit: 1 })).last_seq as number;
  await call('put_summary', { conv_id: group, from_seq: 1, to_seq: last, text: 'We are checking the deploy.' });
  await call('get_context', { conv_id: group });
  await call('get_context', { conv_id: group, max_tokens: 1 }); // nothing fits: next_step
  await call('state_put', { key: 'plan', value: { step: 1, done: [] }, version: 0 });
  await call('state_get', { key: 'plan' });
  await call('state_list', {});
  await call('state_delete', { key: 'plan', version: 1 });

  const asked = await call('request_human', {
    conv_id: direct,
    kind: 'choose',
    title: 'Which region?',
    options: ['eu', 'us'],
    context: { why: 'latency' },
  });
  await call('get_request', { request_id: asked.request_id });
  await ownerOk(served, 'requests.decide', { request_id: asked.request_id, decision: 'choose', choice: 'eu', comment: 'closer' });
  await call('get_request', { request_id: asked.request_id, wait_secs: 1 });
  const withdrawn = await call('request_human', { conv_id: direct, kind: 'approve', title: 'Restart the box?' });
  await call('cancel_request', { request_id: withdrawn.request_id, operation_id: 'cancel-1' });

  const task = (await call('create_task', { title: 'Fix the deploy', members: [b.agent.name], assignee: b.agent.name })).conversation
    .conv_id as string;
  await call('update_task', { conv_id: task, state: 'working', note: 'on it' });
  await call('send_card', { conv_id: group, text: 'Ship it? (yes/no)', card: CARD });
  const file = await call('send_file', { conv_id: group, data: png.toString('base64'), name: 'dot.png', caption: 'the chart' });
  await call('file_url', { conv_id: group, file_id: file.file_id, variant: 'thumb' });
  await call('unreact', { conv_id: group, msg_id: root.msg_id, key: '👀' });
  await call('recall_message', { msg_id: reply.msg_id });
  await call('get_updates', { limit: 500 });
  await call('get_updates', { instance: 'desk' }); // a named instance's reading: from_you
  await call('handoff', { conv_id: direct, note: 'Over to you for the region.' });
  await drain(b);

  // Review mode: the writes others would read answer held: true and a held_id.
  await ownerOk(served, 'agents.set_review', { agent: a.agent.name, on: true });
  await call('whoami');
  await call('send_message', { conv_id: group, text: 'A held message.' });
  await call('send_card', { conv_id: group, text: 'A held card.', card: CARD });
  await call('send_file', { conv_id: group, data: png.toString('base64'), name: 'held.png' });
  await call('send_file', { conv_id: group, data: Buffer.from('plain text').toString('base64'), name: 'notes.txt', mime: 'text/plain' });
  await call('edit_message', { msg_id: root.msg_id, text: 'Please check the deploy today.' });
  await call('request_human', { conv_id: group, kind: 'approve', title: 'Deploy now?' });
  await call('create_task', { title: 'A held task', members: [b.agent.name] });
  await call('create_group', { title: 'A held group', members: [b.agent.name] });
  await call('update_task', { conv_id: task, state: 'input_required', note: 'A held note.' });
  await call('handoff', { conv_id: group, note: 'A held handoff.' });
  await call('get_updates', {});
  return seen;
}

for (const era of ERAS) {
  describe(`declared tool results, ${ERA_NAME[era]}`, () => {
    let served2026: Array<R>;
    let a: Checked;
    let b: AgentClient;
    let c: AgentClient;
    before(async () => {
      served2026 = await modernList();
      a = await connectChecked(era, await addAgent(served.dataDir, uniqueName(`res-${era}`)), served2026);
      [b, c] = await Promise.all([served.agent(`res-b-${era}`), served.agent(`res-c-${era}`)]);
      served.closeAfter({ close: () => a.close() } as AgentClient);
    });

    test(
      'every tool answers what its outputSchema declares, checked by the official client (held writes too)',
      { timeout: 120_000 },
      async () => {
        const seen = await everyTool(a, b, c);
        const want = [...TOOLS.map((t) => t.name), ...HELD_TOOLS.map((n) => `${n} (held)`)].sort();
        assert.deepEqual([...seen].sort(), want, 'all 37 tools answered, and every write review mode holds answered held');
      },
    );

    test('the client checks answers: one that does not match the outputSchema it holds is refused', async () => {
      const wrong = {
        ...served2026.find((t) => t.name === 'find_user')!,
        outputSchema: { type: 'object', properties: { nope: { type: 'string' } }, required: ['nope'] },
      };
      const call =
        a.era === 'v1'
          ? (() => {
              (a.client as unknown as { cacheToolMetadata(tools: unknown[]): void }).cacheToolMetadata(
                served2026.map((t) => (t.name === 'find_user' ? wrong : t)),
              );
              return a
                .call('find_user', { name: ownerName })
                .finally(() => (a.client as unknown as { cacheToolMetadata(tools: unknown[]): void }).cacheToolMetadata(served2026));
            })()
          : (a.client as ClientV2).callTool({ name: 'find_user', arguments: { name: ownerName } }, { toolDefinition: wrong as never });
      await assert.rejects(call, /does not match the tool's output schema/);
    });
  });
}

describe('outputSchema in tools/list', () => {
  test("the 2026-07-28 era lists each tool's outputSchema (the catalog's, byte for byte); the 2025 era lists none, its list otherwise the same", async () => {
    const modern = await modernList();
    const v1 = await connectChecked('v1', await addAgent(served.dataDir, uniqueName('list-v1')));
    const legacy = await v1.listTools();
    await v1.close();
    assert.equal(modern.length, 37);
    for (const [i, t] of modern.entries()) {
      const spec = TOOLS[i]!;
      assert.equal(t.name, spec.name);
      assert.equal(JSON.stringify(t.outputSchema), JSON.stringify(toolOutputJsonSchema(spec)), `${t.name}: outputSchema is the catalog's`);
      assert.equal(t.outputSchema.type, 'object', `${t.name}: the root is an object schema`);
      assert.equal('outputSchema' in legacy[i]!, false, `${t.name}: no outputSchema in the 2025 era`);
      const { outputSchema: _o, ...rest } = t;
      assert.equal(JSON.stringify(rest), JSON.stringify(legacy[i]), `${t.name}: otherwise the same entry in both eras`);
      assert.equal(JSON.stringify(t.inputSchema), JSON.stringify(toolInputJsonSchema(spec)));
    }
  });

  test("the sdk v1 client checks a failed call's structuredContent against outputSchema too (why the 2025 era lists none); the v2 client hands the error over", async () => {
    const modern = await modernList();
    const error = { request_id: 'r_nope' };
    const v2 = await connectChecked('v2', await addAgent(served.dataDir, uniqueName('err-v2')));
    const failed = await v2.call('get_request', error);
    await v2.close();
    assert.equal(failed.isError, true);
    assert.equal(failed.structuredContent!.error.code, 'not_found', 'the v2 client returns the tool error to the agent');

    const v1 = await connectChecked('v1', await addAgent(served.dataDir, uniqueName('err-v1')), modern);
    try {
      // If this starts to pass (a v1 client that skips isError results), the 2025 era can list outputSchema too.
      await assert.rejects(v1.call('get_request', error), /does not match the tool's output schema/);
    } finally {
      await v1.close();
    }
  });
});
