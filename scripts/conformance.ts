// npm run conformance: the official MCP conformance suite (@modelcontextprotocol/conformance, pinned)
// runs its server scenarios that apply to Perch against a real hub: `perch serve --port 0 --json` on a
// temporary data dir with an agent added through the CLI. The suite's client sends no credentials, so it
// talks to a small loopback proxy that adds `Authorization: Bearer <agent key>` and forwards everything
// else (Host and Origin included, so the DNS-rebinding scenario reaches the hub's own check) unchanged.
//
// The suite needs Node 22 (it imports fs.globSync). When this Node is older, the npm package
// node@<NODE_VERSION> is installed on demand, with the suite, into a cache dir under os.tmpdir();
// nothing is added to the project's dependencies. Only the npm registry is contacted.
//
//   node --import tsx scripts/conformance.ts          the applicable scenarios (exit 1 on any failure)
//   node --import tsx scripts/conformance.ts --all    every server scenario, for information (exit 0)
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { addAgent, startServe, tempDataDir, type Served } from '../test/support/serve-harness';

const CONFORMANCE_VERSION = '0.1.16';
const NODE_VERSION = '22.23.3';

/** Server scenarios that test what Perch is: a tools + resources server over Streamable HTTP on loopback. */
const APPLICABLE = ['server-initialize', 'ping', 'tools-list', 'resources-list', 'dns-rebinding-protection'] as const;

/** Every other server scenario of the pinned suite, and why it does not apply to Perch. */
const NOT_APPLICABLE: Record<string, string> = {
  'logging-set-level': 'Perch declares no logging capability (it logs to its own stderr, not to agents).',
  'completion-complete': 'Perch has no prompts or resource templates, so no completions capability.',
  'tools-call-simple-text':
    "calls the fixture tool test_simple_text of the suite's reference server; Perch serves only its 37 contract tools.",
  'tools-call-image': 'calls the fixture tool test_image_content; not a Perch tool.',
  'tools-call-audio': 'calls the fixture tool test_audio_content; not a Perch tool.',
  'tools-call-embedded-resource': 'calls the fixture tool test_embedded_resource; not a Perch tool.',
  'tools-call-mixed-content': 'calls the fixture tool test_multiple_content_types; not a Perch tool.',
  'tools-call-with-logging': 'calls the fixture tool test_tool_with_logging and expects log notifications; Perch sends none.',
  'tools-call-error': "calls the fixture tool test_error_handling; Perch's tool errors are covered by test/mcp/mcp-errors.test.ts.",
  'tools-call-with-progress':
    'calls the fixture tool test_tool_with_progress and expects progress notifications over SSE; Perch answers JSON only.',
  'tools-call-sampling': 'needs server-to-client sampling requests; Perch never calls back into agents.',
  'tools-call-elicitation': "needs server-to-client elicitation; Perch asks its owner (request_human), not the agent's client.",
  'json-schema-2020-12': 'looks for the fixture tool json_schema_2020_12_tool; not a Perch tool.',
  'elicitation-sep1034-defaults': 'needs server-to-client elicitation; Perch does not elicit.',
  'elicitation-sep1330-enums': 'needs server-to-client elicitation; Perch does not elicit.',
  'server-sse-polling':
    'calls the fixture tool test_reconnection and needs SSE response streams; Perch answers JSON and serves no event stream.',
  'server-sse-multiple-streams': 'needs GET/POST SSE streams with a session; Perch is stateless JSON over POST (GET /mcp is 405).',
  'resources-read-text':
    "reads the fixture resource test://static-text; Perch's one resource is perch://guide (read in test/mcp/mcp-protocol.test.ts).",
  'resources-read-binary': 'reads the fixture resource test://static-binary; not a Perch resource.',
  'resources-templates-read': 'reads a fixture resource template; Perch has no resource templates.',
  'resources-subscribe': 'Perch declares resources.subscribe: false.',
  'resources-unsubscribe': 'Perch declares resources.subscribe: false.',
  'prompts-list': 'Perch declares no prompts capability.',
  'prompts-get-simple': 'Perch declares no prompts capability.',
  'prompts-get-with-args': 'Perch declares no prompts capability.',
  'prompts-get-embedded-resource': 'Perch declares no prompts capability.',
  'prompts-get-with-image': 'Perch declares no prompts capability.',
};

const INSTALL_TIMEOUT_MS = 300_000;
const SCENARIO_TIMEOUT_MS = 90_000;

interface Check {
  id: string;
  name?: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | string;
  errorMessage?: string;
}

function fail(message: string): never {
  console.error(`conformance: ${message}`);
  process.exit(1);
}

// ---- the suite and a Node 22 to run it ----------------------------------------------------------

function runNpm(args: string[], cwd: string): void {
  const npmCli = process.env.npm_execpath;
  const r =
    npmCli && /\.c?js$/.test(npmCli)
      ? spawnSync(process.execPath, [npmCli, ...args], { cwd, encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS })
      : spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, {
          cwd,
          encoding: 'utf8',
          timeout: INSTALL_TIMEOUT_MS,
          shell: process.platform === 'win32',
        });
  if (r.error || r.status !== 0) {
    fail(`npm ${args.join(' ')} failed (${r.error?.message ?? `exit ${r.status}`}):\n${r.stderr ?? ''}${r.stdout ?? ''}`);
  }
}

/** The conformance CLI and a Node ≥ 22 to run it with; installed once into a cache dir under os.tmpdir(). */
function toolchain(): { node: string; cli: string } {
  const ownMajor = Number(process.versions.node.split('.')[0]);
  const needNode = ownMajor < 22;
  const dir = path.join(os.tmpdir(), `perch-conformance-${CONFORMANCE_VERSION}${needNode ? `-node${NODE_VERSION}` : ''}`);
  const cli = path.join(dir, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
  const node = needNode
    ? path.join(dir, 'node_modules', 'node', 'bin', process.platform === 'win32' ? 'node.exe' : 'node')
    : process.execPath;
  if (!fs.existsSync(cli) || !fs.existsSync(node)) {
    const packages = [`@modelcontextprotocol/conformance@${CONFORMANCE_VERSION}`, ...(needNode ? [`node@${NODE_VERSION}`] : [])];
    console.log(`Installing ${packages.join(' and ')} into ${dir} (once) …`);
    // Install next to the final dir, then rename: a concurrent or interrupted run never sees half an install.
    const staging = fs.mkdtempSync(`${dir}.tmp-`);
    try {
      fs.writeFileSync(path.join(staging, 'package.json'), JSON.stringify({ name: 'perch-conformance-cache', private: true }));
      runNpm(['install', '--no-audit', '--no-fund', '--no-save', '--no-package-lock', '--loglevel=error', ...packages], staging);
      fs.rmSync(dir, { recursive: true, force: true });
      fs.renameSync(staging, dir);
    } finally {
      fs.rmSync(staging, { recursive: true, force: true });
    }
  }
  const v = spawnSync(node, ['--version'], { encoding: 'utf8', timeout: 30_000 });
  const major = Number(/^v(\d+)/.exec(v.stdout ?? '')?.[1] ?? 0);
  if (major < 22)
    fail(`${node} is not a working Node ≥ 22 (got ${JSON.stringify(v.stdout ?? v.error?.message)}); remove ${dir} and retry.`);
  return { node, cli };
}

/** Server scenario names the pinned suite knows (`conformance list --server`). */
function listServerScenarios(tc: { node: string; cli: string }): string[] {
  const r = spawnSync(tc.node, [tc.cli, 'list', '--server'], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) fail(`conformance list failed: ${r.stderr}`);
  return [...r.stdout.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]!);
}

// ---- the proxy that adds the agent key -------------------------------------------------------

function startProxy(hubPort: number, agentKey: string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers, authorization: `Bearer ${agentKey}` };
    const upstream = http.request({ host: '127.0.0.1', port: hubPort, method: req.method, path: req.url, headers }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.setTimeout(SCENARIO_TIMEOUT_MS, () => upstream.destroy(new Error('hub did not answer')));
    upstream.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'Content-Type': 'text/plain' });
      res.end(`proxy: ${e.message}`);
    });
    req.pipe(upstream);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

// ---- running scenarios -------------------------------------------------------------------------

function findFiles(dir: string, name: string): string[] {
  const out: string[] = [];
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...findFiles(p, name));
    else if (e.name === name) out.push(p);
  }
  return out;
}

interface ScenarioResult {
  scenario: string;
  exitCode: number | null;
  checks: Check[];
  output: string;
}

function runScenario(tc: { node: string; cli: string }, url: string, scenario: string, outDir: string): Promise<ScenarioResult> {
  const dir = path.join(outDir, scenario);
  fs.mkdirSync(dir, { recursive: true });
  return new Promise((resolve) => {
    const p = spawn(tc.node, [tc.cli, 'server', '--url', url, '--scenario', scenario, '--output-dir', dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    p.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
    p.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
    const timer = setTimeout(() => {
      output += `\n(killed after ${SCENARIO_TIMEOUT_MS} ms)`;
      p.kill('SIGKILL');
    }, SCENARIO_TIMEOUT_MS);
    p.on('close', (code) => {
      clearTimeout(timer);
      const checks: Check[] = [];
      for (const f of findFiles(dir, 'checks.json')) checks.push(...(JSON.parse(fs.readFileSync(f, 'utf8')) as Check[]));
      resolve({ scenario, exitCode: code, checks, output });
    });
  });
}

async function main(): Promise<void> {
  const all = process.argv.includes('--all');
  const started = performance.now();
  const tc = toolchain();

  const known = listServerScenarios(tc);
  const unclassified = known.filter((s) => !(APPLICABLE as readonly string[]).includes(s) && !(s in NOT_APPLICABLE));
  const missing = APPLICABLE.filter((s) => !known.includes(s));
  if (unclassified.length || missing.length) {
    fail(
      `the suite's server scenarios changed: unclassified ${JSON.stringify(unclassified)}, missing ${JSON.stringify(missing)}; classify them in scripts/conformance.ts.`,
    );
  }

  const dataDir = tempDataDir();
  let hub: Served | undefined;
  let proxy: http.Server | undefined;
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-conformance-results-'));
  try {
    hub = await startServe(dataDir);
    const agent = await addAgent(dataDir, 'conformance');
    proxy = await startProxy(hub.port, agent.key);
    const url = `http://127.0.0.1:${(proxy.address() as { port: number }).port}/mcp`;
    console.log(
      `@modelcontextprotocol/conformance ${CONFORMANCE_VERSION} on Node ${spawnSync(tc.node, ['--version'], { encoding: 'utf8' }).stdout.trim()}`,
    );
    console.log(`hub ${hub.mcpUrl} (agent ${agent.name}), through the key-adding proxy ${url}\n`);

    const scenarios = all ? known : [...APPLICABLE];
    const results: ScenarioResult[] = [];
    for (const s of scenarios) {
      const r = await runScenario(tc, url, s, outDir);
      results.push(r);
      const count = (st: string) => r.checks.filter((c) => c.status === st).length;
      const failed = r.exitCode !== 0 || count('FAILURE') > 0 || r.checks.length === 0;
      console.log(
        `${failed ? 'FAIL' : 'PASS'}  ${s.padEnd(28)} checks: ${count('SUCCESS')} passed, ${count('FAILURE')} failed, ${count('WARNING')} warnings`,
      );
      for (const c of r.checks.filter((x) => x.status === 'FAILURE' || x.status === 'WARNING')) {
        console.log(`        ${c.status} ${c.id}: ${c.errorMessage ?? ''}`);
      }
      if (failed && r.checks.length === 0)
        console.log(
          r.output
            .split('\n')
            .map((l) => `        ${l}`)
            .join('\n'),
        );
    }

    const failedScenarios = results.filter(
      (r) => r.exitCode !== 0 || r.checks.length === 0 || r.checks.some((c) => c.status === 'FAILURE'),
    );
    console.log(`\nNot run (do not apply to Perch): ${all ? 'none (--all)' : Object.keys(NOT_APPLICABLE).length}`);
    if (!all) for (const [s, why] of Object.entries(NOT_APPLICABLE)) console.log(`  ${s}: ${why}`);
    const secs = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`\nconformance: ${results.length - failedScenarios.length}/${results.length} scenarios passed in ${secs} s`);
    if (failedScenarios.length && !all) process.exitCode = 1;
    if (hub.proc.exitCode !== null) fail(`the hub exited during the run: ${hub.stderr()}`);
  } finally {
    proxy?.close();
    proxy?.closeAllConnections();
    await hub?.stop();
    fs.rmSync(outDir, { recursive: true, force: true });
  }
}

main().catch((e) => fail(e instanceof Error ? (e.stack ?? e.message) : String(e)));
