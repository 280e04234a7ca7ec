// The owner's live stream carries the fleet (hub/control/fleet-live.ts): every change the hub learns of — the `perch` CLI
// writing the same SQLite file from another process, the hub's own caps, the agents' calls — arrives as a
// { kind: 'hub', value: { fleet } } item, with no owner action. A real `perch serve`, the real CLI, official MCP clients.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { cliAsync, ownerOk, runtimeInfo, useSharedServe } from '../support/serve-harness';

type R = Record<string, any>;

const served = useSharedServe();

/** The owner's event stream, with a wait for the first fleet item that passes a test. */
async function ownerStream(): Promise<{ next(test: (fleet: R) => boolean, what: string): Promise<R>; close(): void }> {
  const rt = runtimeInfo(served);
  const ac = new AbortController();
  const res = await fetch(`${rt.base_url}/api/owner/events`, { headers: { Authorization: `Bearer ${rt.owner_token}` }, signal: ac.signal });
  assert.equal(res.status, 200);
  const fleets: R[] = [];
  const waiters = new Set<() => void>();
  let ended: string | undefined;
  const tell = () => {
    for (const w of [...waiters]) w();
  };
  void (async () => {
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i);
          buf = buf.slice(i + 2);
          for (const line of block.split('\n')) {
            if (!line.startsWith('data: ')) continue;
            const item = JSON.parse(line.slice(6));
            if (item.kind === 'hub' && item.value.fleet) fleets.push(item.value.fleet);
          }
        }
        tell();
      }
      ended = 'the stream ended';
    } catch (err) {
      ended = `the stream failed: ${(err as Error).message}`;
    }
    tell();
  })();
  return {
    // Waits for the state itself: woken by each item that arrives (or the stream's end), never by a tick; bounded
    // by one deadline for the whole wait.
    async next(test, what) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const hit = fleets.find(test);
        if (hit) {
          fleets.splice(0, fleets.indexOf(hit) + 1);
          return hit;
        }
        const left = deadline - Date.now();
        if (ended || left <= 0) throw new Error(`no fleet item on the owner's stream: ${what}${ended ? ` (${ended})` : ''}`);
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            waiters.delete(done);
            resolve();
          };
          const timer = setTimeout(done, left);
          waiters.add(done);
        });
      }
    },
    close: () => ac.abort(),
  };
}

const control = (f: R, name: string): R | undefined => f.controls.find((c: R) => c.agent.name === name);
const agentOf = (f: R, name: string): R | undefined => f.agents.find((a: R) => a.name === name);

async function perch(...args: string[]): Promise<void> {
  const r = await cliAsync([...args, '--data-dir', served.dataDir]);
  assert.equal(r.code, 0, r.stderr);
}

describe("the live fleet on the owner's stream", () => {
  test("perch agent pause / resume / caps / add from another process reach the owner's stream, marked outside", async () => {
    const a = await served.agent('cli-target');
    const name = a.agent.name;
    const s = await ownerStream();
    try {
      await perch('agent', 'pause', name, '--reason', 'lunch');
      let f = await s.next((x) => control(x, name)?.paused?.reason === 'lunch', 'the CLI pause');
      assert.equal(f.outside, true, 'written by another process');
      assert.equal(agentOf(f, name)?.paused?.by, 'owner', 'the agents list says so too');
      await perch('agent', 'resume', name);
      await s.next((x) => control(x, name)?.paused === null, 'the CLI resume');
      await perch('agent', 'caps', name, '--messages', '7');
      f = await s.next((x) => control(x, name)?.caps.messages === 7, 'the CLI cap');
      assert.equal(control(f, name)!.caps.cost_usd, null);
      await perch('agent', 'caps', name, '--off');
      await s.next((x) => control(x, name)?.caps.messages === null, 'the CLI caps --off');
      await perch('agent', 'add', `${name}-new`);
      f = await s.next((x) => !!agentOf(x, `${name}-new`), 'the CLI agent add');
      assert.deepEqual(
        agentOf(f, `${name}-new`)!.presence,
        { seen_at: null, connected_since: null, active_at: null, busy_since: null },
        'never connected',
      );
    } finally {
      s.close();
    }
  });

  test("the hub's own cap pauses an agent and usage counts arrive live; presence shows its calls", async () => {
    const a = await served.agent('spender');
    const name = a.agent.name;
    await ownerOk(served, 'agents.set_caps', { agent: name, cost_usd: 0.5 });
    const conv = (await a.ok('open_direct', { user: 'owner' })).conversation.conv_id;
    const s = await ownerStream();
    try {
      const t0 = Date.now();
      await a.ok('progress', { conv_id: conv, kind: 'step', text: 'tests', data: { usage: { cost_usd: 0.2 } } });
      let f = await s.next((x) => control(x, name)?.today.cost_usd === 0.2, 'usage reported');
      assert.ok(control(f, name)!.today.tool_calls >= 2, 'tool calls counted');
      const p = agentOf(f, name)!.presence;
      assert.ok(p.seen_at >= t0 && p.active_at >= t0, `presence: ${JSON.stringify(p)}`);
      await a.ok('send_message', { conv_id: conv, text: 'one' });
      await s.next((x) => control(x, name)?.today.messages === 1, 'a message counted');
      await a.ok('progress', { conv_id: conv, kind: 'step', text: 'more', data: { usage: { cost_usd: 0.4 } } });
      f = await s.next((x) => control(x, name)?.paused?.by === 'budget', "the cap's pause");
      assert.equal(f.outside, undefined, "the hub's own change");
      assert.equal(agentOf(f, name)!.paused.by, 'budget');
    } finally {
      s.close();
    }
  });
});
