// Today's cost as the daily cost cap counts it, where the owner reads it: the fleet view (owner API agents.controls,
// the Agents page's usage meter and its resume-from-cap dialog) and `perch agent caps`. Once the agent's harness has
// reported a cost (the cost ledger), the cap counts that measured figure; before, what the agent reported itself in
// progress. The owner must see the figure the cap counts, with its source, not the self-reported one beside a pause
// the measured one caused.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addAgent, cliAsync, ownerOk, rawPost, uniqueName, useSharedServe } from '../support/serve-harness';
import { claudeCodeCall } from '../support/otlp-bodies';

const served = useSharedServe();

async function perch(...args: string[]): Promise<{ stdout: string; json?: any }> {
  const r = await cliAsync([...args, '--data-dir', served.dataDir]);
  assert.equal(r.code, 0, `perch ${args.join(' ')}: ${r.stderr}`);
  return { stdout: r.stdout, json: args.includes('--json') ? JSON.parse(r.stdout) : undefined };
}

test("the fleet view and perch agent caps show today's cost as the cap counts it: measured once the harness reported, self-reported before", async () => {
  const a = await addAgent(served.dataDir, uniqueName('cap-shown'));
  const { json: tok } = await perch('ledger', 'token', a.name, '--json');
  await ownerOk(served, 'agents.set_caps', { agent: a.name, cost_usd: 0.05 });

  let row = (await ownerOk(served, 'agents.controls', {})).agents.find((x: any) => x.agent.id === a.id);
  assert.deepEqual(row.cap_cost, { usd: 0, source: 'self-reported' }, 'nothing measured yet');

  const url = served.mcpUrl.replace(/\/mcp$/, '/v1/logs');
  const r = await rawPost(url, tok.token, claudeCodeCall('s', 'toolu_over', 0.06));
  assert.equal(r.status, 200, r.text);

  row = (await ownerOk(served, 'agents.controls', {})).agents.find((x: any) => x.agent.id === a.id);
  assert.equal(row.paused?.by, 'budget');
  assert.equal(row.today.cost_usd, 0, 'the self-reported figure stays as it was');
  assert.deepEqual(row.cap_cost, { usd: 0.06, source: 'measured' }, 'the figure the cap paused on');

  const caps = await perch('agent', 'caps', a.name, '--json');
  assert.deepEqual(caps.json.cap_cost, { usd: 0.06, source: 'measured' });
  const text = await perch('agent', 'caps', a.name);
  assert.match(text.stdout, /Today \(\d{4}-\d{2}-\d{2}\): \$0\.06 measured from the harness's own reports/);
});
