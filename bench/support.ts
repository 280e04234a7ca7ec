// The support section of the benchmark (`--only support`): what Perch costs a coding agent's harness that runs
// `perch hook …` from its hooks config, against a running hub.
// - pre-tool-use runs before every tool call of the session, so its figure is the whole process: spawn → exit of
//   `perch hook pre-tool-use` with Claude Code's documented PreToolUse input on stdin (one POST /hook each), beside
//   node's own spawn → exit (`node -e ''`), the floor.
// - permission-request runs at every permission prompt: spawn of `perch hook permission-request` with Claude Code's
//   documented PermissionRequest input on stdin → the request.created item on the owner's live stream (what the
//   Approvals inbox shows); the owner then approves over the owner API and the hook must print the allow and exit.
// - the hook door (POST /hook/claude-code/<event>, what a Claude Code HTTP hook or a curl command hook sends, no
//   process started): a PreToolUse round trip, and a PermissionRequest from the POST → its request.created on the
//   owner's live stream (then approve → the allow answered). Each request on a new connection, as a harness opens one.
// The hook door takes at most a burst of 20 permission prompts per agent (then 2 a second; more answer 429 "Too many
// permission prompts at once", src/main/mcp/hook-door.ts): the prompts are spread over several agents, each filing at
// most PROMPTS_PER_AGENT of them, so the limit is never reached and every prompt is timed as an owner would see it.
import { spawn, execFileSync } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { ownerStream, percentile, post, r3, summarize } from './client';
import { claudeCodePreToolUseBash } from '../test/fixtures/status-hooks';
import { claudeCodeBash } from '../test/fixtures/permission-request';
import { decisionJson } from '../src/shared/agents/hook-wire';

const ROOT = path.resolve(__dirname, '..');
const BIN = path.join(ROOT, 'bin', 'perch.js');
const RUN_TIMEOUT_MS = 10_000;
/** Permission prompts one agent files in the section (its uncounted first included): under the hook door's burst of 20. */
const PROMPTS_PER_AGENT = 16;

/** How many agents the support section needs for `runs` prompts through each of the hook and the door (two at least, so
 * even a --smoke run goes through the turns). */
export function supportAgents(runs: number): number {
  return Math.max(2, Math.ceil((2 * runs) / (PROMPTS_PER_AGENT - 1)));
}

/** `perch agent add NAME --json` on a data dir (before its hub starts): the agent's id and key. */
export function addBenchAgent(dataDir: string, name: string): { id: string; key: string } {
  const out = execFileSync(process.execPath, [BIN, 'agent', 'add', name, '--data-dir', dataDir, '--json'], {
    cwd: ROOT,
    timeout: 30_000,
    encoding: 'utf8',
  });
  return JSON.parse(out) as { id: string; key: string };
}

/** One process fed stdin: t0 (just before spawn) and its exit; it must exit 0 with the expected stdout and no stderr. */
function started(args: string[], stdin: string, env: Record<string, string>, expectOut: string): { t0: number; exited: Promise<number> } {
  const t0 = performance.now();
  const exited = new Promise<number>((resolve, reject) => {
    const p = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
    p.stderr!.setEncoding('utf8').on('data', (c: string) => (err += c));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`${args.join(' ')}: no exit within ${RUN_TIMEOUT_MS / 1000} s`));
    }, RUN_TIMEOUT_MS);
    p.on('error', reject);
    p.on('close', (code) => {
      const at = performance.now();
      clearTimeout(timer);
      if (code !== 0 || out !== expectOut || err)
        return reject(new Error(`${args.join(' ')}: exit ${code}, stdout ${JSON.stringify(out)}, stderr ${JSON.stringify(err)}`));
      resolve(at);
    });
    p.stdin!.end(stdin);
  });
  return { t0, exited };
}

/** summarize() with the 95th percentile too. */
function withP95(samples: number[]): ReturnType<typeof summarize> & { p95_ms: number } {
  return {
    ...summarize(samples),
    p95_ms: r3(
      percentile(
        [...samples].sort((a, b) => a - b),
        95,
      ),
    ),
  };
}

/** ms from spawn to exit of one process fed stdin. */
async function timedRun(args: string[], stdin: string, env: Record<string, string>, expectOut: string): Promise<number> {
  const run = started(args, stdin, env, expectOut);
  return (await run.exited) - run.t0;
}

export interface SupportFigures {
  runs: number;
  /** `node -e ''`: spawn → exit of node itself, the floor of any hook command. */
  node_floor: ReturnType<typeof summarize>;
  /** `perch hook pre-tool-use`, the agent running (decides nothing): spawn → exit. */
  pre_tool_use: ReturnType<typeof summarize>;
  /** `perch hook permission-request`: spawn → the request on the owner's live stream. */
  permission_request_visible: ReturnType<typeof withP95>;
  /** … and the owner's approve (sent when it was seen) → the hook's exit with the allow printed. */
  permission_request_decided_to_exit: ReturnType<typeof withP95>;
  /** POST /hook/claude-code/pre-tool-use, the agent running: request → answer ({}), a new connection each. */
  door_pre_tool_use: ReturnType<typeof withP95>;
  /** POST /hook/claude-code/permission-request → the request on the owner's live stream. */
  door_permission_request_visible: ReturnType<typeof withP95>;
  /** … and the owner's approve (sent when it was seen) → the allow answered. */
  door_permission_request_decided_to_answer: ReturnType<typeof withP95>;
}

/** One POST to the hook door on a new connection: t0 (just before the request) and its answer (must be expectOut). */
function doorPost(port: number, pathName: string, key: string, body: string, expectOut: string): { t0: number; answered: Promise<number> } {
  const t0 = performance.now();
  const answered = new Promise<number>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path: pathName,
        method: 'POST',
        agent: false,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), Authorization: `Bearer ${key}` },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c: string) => (text += c));
        res.on('end', () => {
          const at = performance.now();
          clearTimeout(timer);
          if (res.statusCode !== 200 || text !== expectOut)
            return reject(new Error(`POST ${pathName}: HTTP ${res.statusCode} ${text.slice(0, 200)}`));
          resolve(at);
        });
      },
    );
    const timer = setTimeout(() => req.destroy(new Error(`POST ${pathName}: no answer within ${RUN_TIMEOUT_MS / 1000} s`)), RUN_TIMEOUT_MS);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end(body);
  });
  return { t0, answered };
}

/**
 * One permission prompt: spawns the hook (or, with door, POSTs it to the hook door), waits for its request.created on
 * the owner's stream, approves it as the owner and waits for the hook to print the allow and exit (the door to answer
 * it). Returns [spawn → visible, approve sent → exit] in ms.
 */
async function permissionPrompt(
  port: number,
  ownerToken: string,
  env: Record<string, string>,
  input: string,
  seen: { next: ((requestId: string, at: number) => void) | undefined },
  door?: { port: number; key: string },
): Promise<[number, number]> {
  const visible = new Promise<[string, number]>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('permission-request hook: no request on the owner stream within 10 s')), RUN_TIMEOUT_MS);
    seen.next = (id, at) => {
      clearTimeout(t);
      seen.next = undefined;
      resolve([id, at]);
    };
  });
  const run = door
    ? (({ t0, answered }) => ({ t0, exited: answered }))(
        doorPost(door.port, '/hook/claude-code/permission-request?timeout=30', door.key, input, decisionJson({ behavior: 'allow' })),
      )
    : started([BIN, 'hook', 'permission-request', '--timeout', '30'], input, env, `${decisionJson({ behavior: 'allow' })}\n`);
  run.exited.catch(() => undefined); // awaited below; a failure before the request shows is reported by `visible`
  const [requestId, at] = await Promise.race([
    visible,
    run.exited.then(() => Promise.reject(new Error('permission-request hook exited before its request showed'))),
  ]);
  const sent = performance.now();
  const r = await post(port, '/api/owner/requests.decide', JSON.stringify({ request_id: requestId, decision: 'approve' }), {
    Authorization: `Bearer ${ownerToken}`,
  });
  if (!JSON.parse(r.text).ok) throw new Error(`requests.decide: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  const exit = await run.exited;
  return [at - run.t0, exit - sent];
}

/**
 * Runs the hooks against a running hub on this port, `runs` times each (one uncounted first), with these agents' keys
 * (supportAgents(runs) of them): the permission prompts go to each agent in turn.
 */
export async function supportPhase(
  port: number,
  keys: string[],
  ownerToken: string,
  runs: number,
  progress: (line: string) => void,
): Promise<SupportFigures> {
  if (keys.length < supportAgents(runs)) throw new Error(`support: ${runs} runs need ${supportAgents(runs)} agents, not ${keys.length}`);
  const key = keys[0]!;
  const envOf = (k: string) => ({ PERCH_URL: `http://127.0.0.1:${port}/mcp`, PERCH_KEY: k });
  const env = envOf(key);
  const input = JSON.stringify(claudeCodePreToolUseBash);
  const floor: number[] = [];
  const pre: number[] = [];
  await timedRun([BIN, 'hook', 'pre-tool-use'], input, env, ''); // warms the OS file cache and bin/perch.js's code cache
  for (let i = 0; i < runs; i++) {
    floor.push(await timedRun(['-e', ''], '', {}, ''));
    pre.push(await timedRun([BIN, 'hook', 'pre-tool-use'], input, env, ''));
  }

  const seen: { next: ((requestId: string, at: number) => void) | undefined } = { next: undefined };
  const stream = await ownerStream(port, ownerToken, (item, at) => {
    const ev = item?.kind === 'event' ? item.value?.event : undefined;
    if (ev?.type === 'request.created' && typeof ev.data?.request_id === 'string') seen.next?.(ev.data.request_id, at);
  });
  const visible: number[] = [];
  const toExit: number[] = [];
  const doorVisible: number[] = [];
  const doorToAnswer: number[] = [];
  try {
    const prompt = JSON.stringify(claudeCodeBash);
    // Each agent's first prompt (uncounted) also opens its direct conversation with the owner.
    for (const k of keys) await permissionPrompt(port, ownerToken, envOf(k), prompt, seen);
    let turn = 0;
    const nextKey = () => keys[turn++ % keys.length]!;
    for (let i = 0; i < runs; i++) {
      const [v, x] = await permissionPrompt(port, ownerToken, envOf(nextKey()), prompt, seen);
      visible.push(v);
      toExit.push(x);
    }
    // The same prompts through the hook door: one request, no process.
    for (let i = 0; i < runs; i++) {
      const [v, x] = await permissionPrompt(port, ownerToken, env, prompt, seen, { port, key: nextKey() });
      doorVisible.push(v);
      doorToAnswer.push(x);
    }
  } finally {
    stream.close();
  }
  const doorPre: number[] = [];
  for (let i = 0; i <= runs; i++) {
    const d = doorPost(port, '/hook/claude-code/pre-tool-use', key, input, '{}');
    const ms = (await d.answered) - d.t0;
    if (i > 0) doorPre.push(ms); // the first is uncounted, as above
  }
  const figures = {
    runs,
    node_floor: summarize(floor),
    pre_tool_use: summarize(pre),
    permission_request_visible: withP95(visible),
    permission_request_decided_to_exit: withP95(toExit),
    door_pre_tool_use: withP95(doorPre),
    door_permission_request_visible: withP95(doorVisible),
    door_permission_request_decided_to_answer: withP95(doorToAnswer),
  };
  progress(
    `pre-tool-use hook: spawn → exit p50 ${figures.pre_tool_use.p50_ms} ms, p99 ${figures.pre_tool_use.p99_ms} ms (node itself p50 ${figures.node_floor.p50_ms} ms)`,
  );
  progress(
    `permission-request hook: spawn → request on the owner's stream p50 ${figures.permission_request_visible.p50_ms} ms, p95 ${figures.permission_request_visible.p95_ms} ms; approve → exit p50 ${figures.permission_request_decided_to_exit.p50_ms} ms`,
  );
  progress(
    `hook door: PreToolUse round trip p50 ${figures.door_pre_tool_use.p50_ms} ms; PermissionRequest → request on the owner's stream p50 ${figures.door_permission_request_visible.p50_ms} ms, p95 ${figures.door_permission_request_visible.p95_ms} ms; approve → answer p50 ${figures.door_permission_request_decided_to_answer.p50_ms} ms`,
  );
  return figures;
}
