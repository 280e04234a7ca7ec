// The brakes section: send_message with the brakes off and on, side by side.
import path from 'node:path';
import { post, call, mcpHeaders, r3 } from '../client';
import { type LoadResult, load } from '../lib/load';
import { tmpRoot, stopProcess, seed, type RunningHub, BRAKES_OFF, startHub } from '../lib/processes';
import { CONNECTIONS, checkDeadline } from '../lib/settings';
import { type Agent } from './throughput';

/**
 * Brakes: send_message with brakes off and on, on two hubs seeded alike, side by side (off, on, on, off).
 * 16 agents, each in a conversation of its own (no change of speaker: no loop), every text different (no
 * duplicate), each agent's budget set by the owner to the highest allowed (counted, never reached): every
 * send is checked by every brake and none stops it. Every answer must be a success that was committed.
 */
export async function brakesPhase(pick: (r: LoadResult) => { calls_per_s: number; p50_ms: number; p99_ms: number }) {
  checkDeadline('brakes');
  const hubs: Array<{
    hub: RunningHub;
    shapes: Array<{ body: string; headers: Record<string, string> }>;
    convs: string[];
    agents: Agent[];
  }> = [];
  for (const [name, env] of [
    ['brakes-off', BRAKES_OFF],
    ['brakes-on', { PERCH_BRAKES: 'on' }],
  ] as const) {
    const dir = path.join(tmpRoot, `hub-${name}`);
    const fixture = await seed(dir, ['--agents', '16', '--prefix', 'k'], 60_000);
    const hub = await startHub(name, dir, [], env);
    const agents: Agent[] = fixture.agents;
    const convs: string[] = [];
    for (const a of agents) {
      const set = await post(hub.port, '/api/owner/agents.set_brakes', JSON.stringify({ agent: a.name, budget: 1_000_000 }), {
        Authorization: `Bearer ${hub.ownerToken}`,
      });
      if (!JSON.parse(set.text).ok) throw new Error(`agents.set_brakes: HTTP ${set.status} ${set.text.slice(0, 200)}`);
      convs.push((await call(hub.port, a.key, 'create_group', { title: `brakes-${a.name}`, members: [] })).value.conversation.conv_id);
    }
    const shapes = agents.map((a, i) => ({
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'send_message',
          arguments: {
            conv_id: convs[i],
            text: `Status from ${a.name}: build 4711 is green, moving on to the review of the queue worker (step %N%).`,
          },
        },
      }),
      headers: { 'Content-Type': 'application/json', ...mcpHeaders(a.key) },
    }));
    hubs.push({ hub, shapes, convs, agents });
  }
  const committed = async (h: (typeof hubs)[number]) => {
    let sum = 0;
    for (let i = 0; i < h.convs.length; i++)
      sum += (await call(h.hub.port, h.agents[i]!.key, 'get_history', { conv_id: h.convs[i]!, limit: 1 })).value.conversation_last_seq;
    return sum;
  };
  const runs: Record<string, LoadResult[]> = { 'brakes-off': [], 'brakes-on': [] };
  for (const i of [0, 1, 1, 0]) {
    const h = hubs[i]!;
    const before = await committed(h);
    const r = await load(`perch send_message (${h.hub.name})`, h.hub.port, h.shapes, true);
    const stored = (await committed(h)) - before;
    const answered = r.total_2xx + r.warmup_2xx;
    if (r.non2xx || r.errors || stored < answered || stored > answered + 2 * CONNECTIONS)
      throw new Error(
        `brakes (${h.hub.name}): ${stored} committed for ${answered} answered, ${r.non2xx} non-2xx, ${r.errors} errors (did a brake stop the load?)`,
      );
    runs[h.hub.name]!.push(r);
  }
  for (const h of hubs) await stopProcess(h.hub.child);
  const mean = (rs: LoadResult[]) => ({
    ...pick({
      ...rs[0]!,
      rps: (rs[0]!.rps + rs[1]!.rps) / 2,
      p50_ms: (rs[0]!.p50_ms + rs[1]!.p50_ms) / 2,
      p90_ms: (rs[0]!.p90_ms + rs[1]!.p90_ms) / 2,
      p99_ms: (rs[0]!.p99_ms + rs[1]!.p99_ms) / 2,
      mean_ms: (rs[0]!.mean_ms + rs[1]!.mean_ms) / 2,
      non2xx: rs[0]!.non2xx + rs[1]!.non2xx,
      errors: rs[0]!.errors + rs[1]!.errors,
    }),
    runs_calls_per_s: rs.map((r) => Math.round(r.rps)),
  });
  const off = mean(runs['brakes-off']!);
  const on = mean(runs['brakes-on']!);
  return { off, on, on_vs_off: r3(on.calls_per_s / off.calls_per_s) };
}
