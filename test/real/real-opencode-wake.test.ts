// A wake run of the REAL OpenCode (pinned, installed on demand: test/support/real-harness.ts) that a real `perch serve`
// starts, configured with exactly the OpenCode recipe's shell line (shared/agents/wake.ts wakeRecipes): the run's
// PERCH_OPENCODE_CONFIG, passed as OPENCODE_CONFIG_CONTENT, names this hub as the MCP server perch-NAME with the key
// as {env:PERCH_KEY}. The agent was connected once by `perch connect opencode NAME --write` (its plugin, and an MCP
// entry whose {env:PERCH_KEY_<NAME>} a run does not hold); the run's environment holds only the run key. The model is
// the scripted Chat Completions stand-in (test/support/model-standin.ts): it reads get_updates through Perch, confirms
// it with the ack, then runs `touch` with its bash tool, which a standing rule of the owner denies.
import { test, describe, after, before } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addAgent, ensureBuilt, eventually, ownerOk, uniqueName, useSharedServe } from '../support/serve-harness';
import { connectWrite, openCode, pathWithoutPerch } from '../support/real-harness';
import { chatToolNames, chatToolResult, startChatStandIn, type ChatReply, type ChatRequest } from '../support/model-standin';
import { wakeRecipes } from '../../src/shared/agents/wake';

const served = useSharedServe();
const opencode = openCode();
const MODEL = 'gpt-4.1';
const MARKER = 'perch-opencode-wake.marker';
const TEXT = 'please tidy the build folder';

/** get_updates through Perch (perch-NAME_get_updates), get_updates with its ack, bash, then a closing text. */
function script(req: ChatRequest): ChatReply {
  const tools = chatToolNames(req);
  if (tools.length === 0) return { type: 'text', text: 'A title' }; // OpenCode's own call for the session's title
  const updates = tools.find((n) => /^perch-.+_get_updates$/.test(n));
  const read = chatToolResult(req, 'call_updates');
  if (read === undefined && updates) return { type: 'tool_call', id: 'call_updates', name: updates, arguments: {} };
  const ack = read && /"ack":\s*"([^"]+)"/.exec(read)?.[1];
  if (ack && updates && chatToolResult(req, 'call_ack') === undefined)
    return { type: 'tool_call', id: 'call_ack', name: updates, arguments: { ack, limit: 1 } };
  const bash = chatToolResult(req, 'call_bash');
  if (bash === undefined)
    return { type: 'tool_call', id: 'call_bash', name: 'bash', arguments: { command: `touch ${MARKER}`, description: 'Mark it' } };
  return { type: 'text', text: `bash said: ${bash}` };
}

let model: Awaited<ReturnType<typeof startChatStandIn>> | undefined;
let root: string | undefined;
before(async () => {
  if (opencode.skip) return;
  ensureBuilt();
  model = await startChatStandIn(script);
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-opencode-wake-'));
});
after(async () => {
  await model?.close();
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe(
  'a wake run of the real OpenCode with the OpenCode recipe (opencode run, Perch from PERCH_OPENCODE_CONFIG)',
  { skip: opencode.skip },
  () => {
    test("it reaches this hub's /mcp with the run's own key (get_updates answers the woken agent), its standing rule holds, and its model calls are in the ledger under it", async () => {
      const agent = await addAgent(served.dataDir, uniqueName('oc-wake'));
      const recipe = wakeRecipes(agent.name).find((r) => r.id === 'opencode');
      assert.ok(
        recipe,
        `an OpenCode wake recipe: ${wakeRecipes(agent.name)
          .map((r) => r.id)
          .join(', ')}`,
      );
      const shell = recipe.form.shell!;
      assert.match(shell, /^(\S+=\S+ )*opencode run /, 'the recipe runs opencode run');

      // The owner's OpenCode: its model is the stand-in, then `perch connect opencode NAME --write` (the recipe's "once").
      const home = fs.mkdtempSync(path.join(root!, 'home-'));
      fs.mkdirSync(path.join(home, '.config', 'opencode'), { recursive: true });
      const provider = {
        standin: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Stand-in',
          options: { baseURL: model!.url, apiKey: 'dummy' },
          models: { [MODEL]: { name: MODEL } },
        },
      };
      fs.writeFileSync(path.join(home, '.config', 'opencode', 'opencode.json'), JSON.stringify({ provider, model: `standin/${MODEL}` }));
      await connectWrite('opencode', agent.name, served.dataDir, home);
      const dir = fs.mkdtempSync(path.join(home, 'project-'));
      // The recipe's `opencode` is the pinned OpenCode, through a shim on the run's PATH (perch is not on it).
      const bin = fs.mkdtempSync(path.join(home, 'bin-'));
      fs.symlinkSync(opencode.bin!, path.join(bin, 'opencode'));
      const { rule } = await ownerOk(served, 'rules.add', { agent: agent.name, tool: 'bash', command_prefix: 'touch', behavior: 'deny' });

      await ownerOk(served, 'wake.set', {
        agent: agent.id,
        shell,
        cwd: dir,
        env: {
          HOME: home,
          XDG_CONFIG_HOME: path.join(home, '.config'),
          XDG_DATA_HOME: path.join(home, '.local', 'share'),
          XDG_CACHE_HOME: path.join(home, '.cache'),
          XDG_STATE_HOME: path.join(home, '.local', 'state'),
          PATH: `${bin}${path.delimiter}${pathWithoutPerch()}`,
          OPENCODE_DISABLE_MODELS_FETCH: 'true',
          OPENCODE_DISABLE_AUTOUPDATE: 'true',
          OPENCODE_DISABLE_DEFAULT_PLUGINS: 'true',
        },
        timeout_secs: 240,
        max_runs_per_hour: 1,
      });
      const first = model!.requests.length;
      const group = await ownerOk(served, 'conversations.create_group', { title: `with ${agent.name}`, members: [agent.id] });
      await ownerOk(served, 'messages.send', { conv_id: group.conversation.conv_id, text: TEXT, to: [agent.id] });
      let run: any;
      await eventually(
        async () => {
          [run] = (await ownerOk(served, 'wake.runs', { agent: agent.id })).runs;
          return run && run.status !== 'running' && run.status !== 'starting';
        },
        200_000,
        'the wake run to end',
      );
      const { tail } = await ownerOk(served, 'wake.log', { run_id: run.id });
      const requests = model!.requests.slice(first);
      const result = (id: string) => requests.map((q) => chatToolResult(q, id)).find((x) => x !== undefined);
      assert.equal(run.status, 'succeeded', `${JSON.stringify(run)}\n${tail}`);

      // Perch's MCP server answered the run as the woken agent: the message that woke it, read with the run key.
      assert.match(result('call_updates') ?? '', new RegExp(TEXT), `get_updates through Perch read the waking message\n${tail}`);
      assert.ok(run.first_call_at, 'the run made a tool call with its run key');
      assert.doesNotMatch(result('call_updates') ?? '', /401|unauthori[sz]ed/i);
      // Its plugin (with the run key) held it to the owner's standing rule.
      assert.equal(fs.existsSync(path.join(dir, MARKER)), false, 'the denied command did not run');
      assert.match(result('call_bash') ?? '', new RegExp(`Denied by the owner in Perch: standing rule ${rule.rule_id}`));
      assert.doesNotMatch(tail, /perch: the Perch hub did not answer/, 'the plugin reached the hub');

      // Each model call of the session (not the one for its title) is in the ledger under the woken agent.
      const answers = requests.filter((q) => chatToolNames(q).length > 0).length;
      assert.ok(answers >= 4, `the stand-in answered ${answers} model calls of the session`);
      let costs: any[] = [];
      await eventually(
        async () => {
          costs = (await ownerOk(served, 'ledger.costs', { agent: agent.name })).costs;
          return (costs.find((c: any) => c.model === MODEL)?.requests ?? 0) >= answers;
        },
        60_000,
        "the run's model calls in the ledger under the woken agent",
      );
      assert.deepEqual(
        costs.map((c: any) => [c.model, c.harness, c.requests, c.input_tokens, c.output_tokens]),
        [[MODEL, 'opencode', answers, 10 * answers, 5 * answers]],
      );
    });
  },
);
