// OpenCode in a wake run: the plugin `perch connect opencode NAME --write` writes (shared/agents/harnesses/opencode.ts)
// is imported in Node inside a real wake run of a real `perch serve` (the run's command is a small driver that calls
// its hooks as OpenCode 1.18.33 does: test/harness/hook-opencode.test.ts), with only the variables the run is given:
// PERCH_AGENT and the run's key PERCH_KEY, no PERCH_KEY_<NAME>. The plugin of the woken agent uses the run's key (a
// standing deny rule of the agent throws, its model calls are in its cost ledger); the plugin of another agent never
// sends it (it goes on without Perch, and nothing lands under either agent).
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addAgent, cliAsync, eventually, ownerOk, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';

const served = useSharedServe({ env: { PERCH_WAKE_BACKOFF_MS: '300', PERCH_WAKE_KILL_GRACE_MS: '300' } });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-wake-oc-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** The run's command: imports each plugin file given, calls its hooks, writes what happened to the last argument. */
const DRIVER = `import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
const [out, ...plugins] = process.argv.slice(2).reverse();
const result = { perch_vars: Object.keys(process.env).filter((k) => k.startsWith('PERCH_KEY')).sort(), plugins: [] };
for (const [i, [file, model]] of plugins.reverse().map((p) => p.split('=')).entries()) {
  const mod = await import(pathToFileURL(file).href);
  const p = await mod.PerchPlugin({ client: {}, directory: process.cwd(), worktree: '/', project: {}, $: undefined });
  const session = 'ses_run' + i;
  let before = 'went on';
  try {
    await p['tool.execute.before']({ tool: 'bash', sessionID: session, callID: 'call_rm' }, { args: { command: 'rm -rf build', description: 'clean' } });
  } catch (e) {
    before = 'threw: ' + e.message;
  }
  await p.event({ event: { type: 'message.updated', properties: { info: { id: 'msg_' + i, role: 'assistant', modelID: model, providerID: 'openai', sessionID: session, time: { created: 1 } } } } });
  await p.event({ event: { type: 'message.part.updated', properties: { sessionID: session, part: { id: 'prt_' + i, messageID: 'msg_' + i, sessionID: session, type: 'step-finish', reason: 'stop', tokens: { total: 1170, input: 600, output: 50, reasoning: 20, cache: { read: 400, write: 100 } }, cost: 0.0123 }, time: 2 } } });
  result.plugins.push({ file, before });
}
fs.writeFileSync(out, JSON.stringify(result));
`;

/** perch connect opencode NAME --write into a fresh HOME; the plugin it wrote, copied to a .mjs of its own. */
async function pluginFile(a: AgentKey): Promise<string> {
  const home = fs.mkdtempSync(path.join(dir, 'home-'));
  const r = await cliAsync(['connect', 'opencode', a.name, '--write', '--data-dir', served.dataDir], { env: { HOME: home } });
  assert.equal(r.code, 0, r.stderr);
  const file = path.join(dir, `${a.name}.mjs`);
  fs.copyFileSync(path.join(home, '.config', 'opencode', 'plugin', 'perch.js'), file);
  return file;
}

test("in a wake run of its agent, OpenCode's plugin uses the run's key (PERCH_KEY): the agent's standing rule holds and its model calls are in its ledger; another agent's plugin never sends that key", async () => {
  const a = await addAgent(served.dataDir, uniqueName('oc-run'));
  const other = await addAgent(served.dataDir, uniqueName('oc-other'));
  const { rule } = await ownerOk(served, 'rules.add', { agent: a.name, tool: 'bash', command_prefix: 'rm', behavior: 'deny' });
  const driver = path.join(dir, 'driver.mjs');
  fs.writeFileSync(driver, DRIVER);
  const out = path.join(dir, 'out.json');
  const own = await pluginFile(a);
  const others = await pluginFile(other);
  const set = await cliAsync([
    'agent',
    'wake',
    a.name,
    '--data-dir',
    served.dataDir,
    '--',
    process.execPath,
    driver,
    `${own}=gpt-4.1`,
    `${others}=claude-sonnet-4-5`,
    out,
  ]);
  assert.equal(set.code, 0, set.stderr);
  const g = await ownerOk(served, 'conversations.create_group', { title: `with ${a.name}`, members: [a.id] });
  await ownerOk(served, 'messages.send', { conv_id: g.conversation.conv_id, text: 'clean up', to: [a.id] });
  let run: any;
  await eventually(
    async () => {
      [run] = (await ownerOk(served, 'wake.runs', { agent: a.id })).runs;
      return run && run.status !== 'running' && run.status !== 'starting';
    },
    30_000,
    `the wake run of ${a.name} to end`,
  );
  const { tail } = await ownerOk(served, 'wake.log', { run_id: run.id });
  assert.ok(fs.existsSync(out), `the driver ran: ${JSON.stringify(run)}\n${tail}`);
  const result = JSON.parse(fs.readFileSync(out, 'utf8'));
  assert.deepEqual(result.perch_vars, ['PERCH_KEY'], "the run's key only: no PERCH_KEY_<NAME>");

  // The woken agent's plugin: the door knew it (its standing rule denied the command), and its model call is its cost.
  assert.match(result.plugins[0].before, new RegExp(`^threw: Denied by the owner in Perch: standing rule ${rule.rule_id}`));
  const { costs } = await ownerOk(served, 'ledger.costs', { agent: a.name });
  assert.deepEqual(
    costs.map((c: any) => [c.model, c.cost_usd, c.cost_source, c.requests]),
    [['gpt-4.1', 0.0123, 'harness', 1]],
    "only its own plugin's model call; the other agent's plugin did not report with the run's key",
  );
  // The other agent's plugin had no key of its own and sent none of the run's: it went on without Perch.
  assert.equal(result.plugins[1].before, 'went on');
  assert.match(tail, new RegExp(`the Perch hub did not answer ${other.name}'s plugin \\(HTTP 401`));
  assert.deepEqual((await ownerOk(served, 'ledger.costs', { agent: other.name })).costs, []);
});
