// The MCP endpoint over a real `perch serve`, driven by the official clients of both protocol eras:
// tools/list, instructions and the guide resource, the result envelope (structuredContent + text +
// request_id that is also in the hub's log), whoami and get_config.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { TOOLS, toolSchemaVersion } from '../../src/shared/api/catalog';
import { LIMITS } from '../../src/shared/limits';
import { implementedTools } from '../../src/main/hub/tools/tools';
import { ERAS, ERA_NAME, addAgent, connect, eventually, uniqueName, useSharedServe, type AgentClient } from '../support/serve-harness';

const served = useSharedServe();

for (const era of ERAS) {
  describe(`MCP protocol, ${ERA_NAME[era]}`, () => {
    let a: AgentClient;
    before(async () => {
      a = await connect(era, served.mcpUrl, await addAgent(served.dataDir, uniqueName(`proto-${era}`)));
    });
    after(async () => {
      await a?.close();
    });

    test('tools/list returns the implemented tools in contract order, with descriptions, inputSchema and _meta.tool_schema_version', async () => {
      const list = await a.listTools();
      const implemented = implementedTools();
      const expected = TOOLS.filter((t) => implemented.has(t.name as never));
      assert.deepEqual(
        list.tools.map((t) => t.name),
        expected.map((t) => t.name),
      );
      // The messaging half of the contract is all there, in the contract's order.
      const core = new Set([
        'whoami',
        'get_config',
        'list_conversations',
        'get_updates',
        'send_message',
        'edit_message',
        'recall_message',
        'find_user',
        'open_direct',
        'create_group',
        'add_member',
        'get_history',
        'get_thread',
        'search',
        'progress',
        'react',
        'unreact',
        'list_pins',
      ]);
      const names = list.tools.map((t) => t.name as string);
      assert.deepEqual(
        names.filter((n) => core.has(n)),
        TOOLS.map((t) => t.name).filter((n) => core.has(n)),
      );
      assert.equal(names.filter((n) => core.has(n)).length, core.size);
      for (const t of list.tools) {
        const spec = TOOLS.find((s) => s.name === t.name)!;
        assert.equal(t.description, spec.description, `${t.name}: description is the contract's`);
        assert.equal(t.inputSchema?.type, 'object', `${t.name}: inputSchema is an object schema`);
        assert.equal(typeof t.inputSchema.properties, 'object', `${t.name}: inputSchema has properties`);
        assert.equal(t.annotations?.readOnlyHint, spec.readOnly, `${t.name}: readOnlyHint`);
        assert.equal(t.annotations?.destructiveHint, spec.destructive, `${t.name}: destructiveHint is the catalog's destructive`);
      }
      assert.deepEqual(
        list.tools.filter((t) => t.annotations?.destructiveHint).map((t) => t.name),
        ['recall_message', 'state_delete'],
      );
      const send = list.tools.find((t) => t.name === 'send_message')!;
      assert.deepEqual([...send.inputSchema.required].sort(), ['conv_id', 'text']);
      assert.equal(list._meta?.tool_schema_version, toolSchemaVersion());
    });

    test('initialize / server/discover carry instructions pointing to the guide, and resources/read returns the guide', async () => {
      const instructions = a.instructions();
      assert.ok(instructions, 'the server sent instructions');
      const m = /perch:\/\/[a-z/_-]+/.exec(instructions!);
      assert.ok(m, `instructions name the guide resource: ${instructions}`);
      const resources = await a.listResources();
      assert.ok(
        resources.some((r) => r.uri === m![0]),
        'the guide is listed in resources/list',
      );
      const contents = await a.readResource(m![0]);
      assert.equal(contents.length, 1);
      assert.equal(contents[0]!.uri, m![0]);
      assert.equal(contents[0]!.mimeType, 'text/markdown');
      assert.match(contents[0]!.text!, /get_updates/);
      assert.match(contents[0]!.text!, /ack/);
    });

    test('every tool result has structuredContent, a text copy and a request_id that appears in <data_dir>/logs/hub.log', async () => {
      const ids: string[] = [];
      const ok = await a.call('whoami');
      assert.ok(!ok.isError);
      ids.push(ok.structuredContent!.request_id);
      assert.deepEqual(JSON.parse(ok.content[0]!.text!), ok.structuredContent);
      const bad = await a.call('get_history', { conv_id: 'c_nope' });
      assert.equal(bad.isError, true);
      assert.deepEqual(JSON.parse(bad.content[0]!.text!), bad.structuredContent);
      ids.push(bad.structuredContent!.request_id);
      assert.notEqual(ids[0], ids[1], 'request ids differ per request');
      const logFile = path.join(served.dataDir, 'logs', 'hub.log');
      await eventually(
        () => {
          const log = fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8') : '';
          return ids.every((id) => log.includes(`"request_id":"${id}"`));
        },
        3000,
        `request ids ${ids.join(', ')} in ${logFile}`,
      );
      const lines = fs
        .readFileSync(logFile, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const okLine = lines.find((l) => l.request_id === ids[0]);
      assert.equal(okLine.tool, 'whoami');
      assert.equal(okLine.agent, a.agent.name);
      const badLine = lines.find((l) => l.request_id === ids[1]);
      assert.equal(badLine.error, 'not_found');
    });

    test('whoami reports the agent, its owner, the limits and tool_schema_version', async () => {
      const me = await a.ok('whoami');
      assert.equal(me.agent.id, a.agent.id);
      assert.equal(me.agent.name, a.agent.name);
      assert.equal(me.agent.kind, 'agent');
      assert.equal(me.owner.kind, 'human');
      assert.equal(typeof me.owner.id, 'string');
      assert.deepEqual(me.limits, JSON.parse(JSON.stringify(LIMITS)));
      assert.equal(me.tool_schema_version, toolSchemaVersion());
    });

    test('get_config returns the role and a version', async () => {
      const c = await a.ok('get_config');
      assert.equal(typeof c.version, 'number');
      assert.equal(c.role.name, a.agent.name);
      assert.equal(typeof c.role.instructions, 'string');
      assert.ok(Array.isArray(c.skills));
      assert.ok(Array.isArray(c.mcp_servers));
      assert.ok(Array.isArray(c.apis));
    });
  });
}
