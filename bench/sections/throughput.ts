// The throughput section: send_message (and the raw and SDK echoes, get_updates) under load.
import { call, mcpHeaders, r3 } from '../client';
import { load } from '../lib/load';
import { type RunningHub, cpuTicksOf } from '../lib/processes';
import { CONNECTIONS, progress } from '../lib/settings';

export type Agent = { id: string; name: string; key: string };

/** send_message (and, with baselines, the raw and SDK echoes and get_updates) under load. */
export async function throughputPhase(hub: RunningHub, agents: Agent[], baselines?: { rawPort: number; sdkPort: number }) {
  // 16 senders in 4 groups of 4 (plus the owner); every other request names the next member in `to`.
  const senders = agents.slice(0, 16);
  const groups: string[] = [];
  for (let g = 0; g < 4; g++) {
    const members = senders.slice(g * 4, g * 4 + 4);
    const c = await call(hub.port, members[0]!.key, 'create_group', { title: `load-${g}`, members: members.slice(1).map((m) => m.name) });
    groups.push(c.value.conversation.conv_id);
  }
  const shapes = (tool: string) =>
    senders.flatMap((a, i) => {
      const conv = groups[i >> 2]!;
      const next = senders[(i & ~3) + ((i + 1) & 3)]!;
      return [
        { conv_id: conv, text: `Status from ${a.name}: build 4711 is green, moving on to the review of the queue worker.` },
        { conv_id: conv, text: `${next.name}, please check the latency numbers of the cache index before the release.`, to: [next.name] },
      ].map((args) => ({
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } }),
        headers: { 'Content-Type': 'application/json', ...mcpHeaders(a.key) },
      }));
    });
  // Sanity: each target answers one request of the same shape correctly.
  const targetsToCheck: Array<readonly [number, string]> = baselines
    ? [
        [baselines.rawPort, 'echo'],
        [baselines.sdkPort, 'echo'],
        [hub.port, 'send_message'],
      ]
    : [[hub.port, 'send_message']];
  for (const [port, tool] of targetsToCheck) {
    const r = await call(port, senders[0]!.key, tool, JSON.parse(shapes(tool)[1]!.body).params.arguments);
    if (!r.value) throw new Error(`${tool} on port ${port}: no structuredContent`);
  }
  const lastSeqs = async () => {
    let sum = 0;
    for (let g = 0; g < 4; g++)
      sum += (await call(hub.port, senders[g * 4]!.key, 'get_history', { conv_id: groups[g]!, limit: 1 })).value.conversation_last_seq;
    return sum;
  };

  // Without baselines (`--only send`, or the durability run) only the send_message load runs.
  const sendOnly = !baselines;
  const raw = baselines ? await load('raw node:http echo', baselines.rawPort, shapes('echo')) : undefined;
  const sdk = baselines ? await load('SDK stateless echo', baselines.sdkPort, shapes('echo')) : undefined;
  const before = await lastSeqs();
  const ticks0 = cpuTicksOf(hub.child.pid!);
  const send = await load(`perch send_message (${hub.name})`, hub.port, shapes('send_message'));
  const ticks1 = cpuTicksOf(hub.child.pid!);
  const committed = (await lastSeqs()) - before;
  const acknowledged = send.total_2xx + send.warmup_2xx;
  // The hub's CPU time per call over the load (warm-up included, as its calls are): USER_HZ = 100.
  const cpuUsPerCall = r3(((ticks1 - ticks0) * 10_000) / Math.max(1, acknowledged));
  progress(`send_message: hub CPU ${((ticks1 - ticks0) / 100).toFixed(2)} s for ${acknowledged} calls: ${cpuUsPerCall} µs a call`);
  progress(
    `send_message: ${committed} messages committed for ${acknowledged} answered (in-flight at the stop of a run may add up to ${2 * CONNECTIONS})`,
  );
  if (committed < acknowledged || committed > acknowledged + 2 * CONNECTIONS)
    throw new Error(`send_message: ${committed} committed vs ${acknowledged} answered`);

  if (sendOnly) return { raw, sdk, send, upd: undefined, committed, acknowledged, cpuUsPerCall };
  // get_updates: 16 other agents, each caught up, polling without waiting (the cheapest useful call).
  const pollers = agents.slice(16, 32);
  for (const p of pollers) {
    let ack: string | undefined;
    for (let i = 0; i < 20; i++) {
      const r = await call(hub.port, p.key, 'get_updates', { ...(ack ? { ack } : {}), limit: 500 });
      ack = r.value.ack;
      if (!r.value.more) break;
    }
    await call(hub.port, p.key, 'get_updates', { ack });
  }
  const upd = await load(
    'perch get_updates',
    hub.port,
    pollers.map((p) => ({
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_updates', arguments: {} } }),
      headers: { 'Content-Type': 'application/json', ...mcpHeaders(p.key) },
    })),
  );
  return { raw, sdk, send, upd, committed, acknowledged, cpuUsPerCall };
}
