// The wake section (50 waiting agents on hub A) and the fleet's (hub S): send → the waiter's answer, memory, idle CPU.
import { call, summarize, r3, sleep } from '../client';
import { type RunningHub, hubInfo, memoryOf, cpuTicksOf } from '../lib/processes';
import { progress, checkDeadline, IDLE_MS, SETTLE_MS } from '../lib/settings';
import { type Agent } from './throughput';

/**
 * N agents wait in get_updates (wait_secs 60, re-waiting at once); one sender wakes them in turn
 * (`to` names the waiter) and times send → the waiter's answer. Then, with all N waiting and nothing
 * written, the hub's RSS and its CPU over a few idle seconds. Used for 50 agents (hub A) and for the
 * fleet (hub S, 500). Every waiter's long poll holds its own keep-alive connection (client.ts's agent
 * has no socket limit); the hub runs with --rate 0.
 */
export async function wakePhase(label: string, hub: RunningHub, sender: Agent, waiters: Agent[], wakes: number) {
  checkDeadline(label);
  const directs: string[] = [];
  for (const w of waiters) directs.push((await call(hub.port, sender.key, 'open_direct', { user: w.name })).value.conversation.conv_id);
  const arrivals = new Map<string, (at: number, woken: boolean) => void>();
  const controllers = new Set<AbortController>();
  let stopping = false;
  const loops = waiters.map(async (w) => {
    let ack: string | undefined;
    for (let i = 0; i < wakes * 2 && !stopping; i++) {
      const ac = new AbortController();
      controllers.add(ac);
      let r;
      try {
        // The longest wait (LIMITS.maxWaitSecs): no wait times out during the idle measurement.
        r = await call(hub.port, w.key, 'get_updates', { ...(ack ? { ack } : {}), wait_secs: 60 }, ac.signal);
      } catch (e) {
        if (stopping) return;
        throw e;
      } finally {
        controllers.delete(ac);
      }
      ack = r.value.ack;
      for (const ev of r.value.events) {
        const text: string | undefined = ev.message?.text;
        if (text?.startsWith('wake#')) arrivals.get(text)?.(r.at, r.value.woken);
      }
    }
  });
  // Every waiter has answered its first call and is waiting again (the hub counts them).
  const waitDeadline = Date.now() + 30_000 + waiters.length * 20;
  let waiting = 0;
  while ((waiting = (await hubInfo(hub)).waiting_agents) < waiters.length) {
    if (Date.now() > waitDeadline) throw new Error(`${label}: only ${waiting} of ${waiters.length} agents are waiting`);
    await sleep(100);
  }
  await sleep(200);
  const lat: number[] = [];
  const sendLat: number[] = [];
  let notWoken = 0;
  let lost = 0;
  const phaseDeadline = Date.now() + 120_000;
  progress(`${label}: ${wakes} wakes over ${waiters.length} waiting agents …`);
  for (let k = 0; k < wakes && Date.now() < phaseDeadline; k++) {
    const i = k % waiters.length;
    const marker = `wake#${k}`;
    const arrived = new Promise<{ at: number; woken: boolean } | null>((resolve) => {
      const t = setTimeout(() => resolve(null), 2000);
      arrivals.set(marker, (at, woken) => {
        clearTimeout(t);
        resolve({ at, woken });
      });
    });
    const t0 = performance.now();
    const s = await call(hub.port, sender.key, 'send_message', { conv_id: directs[i]!, text: marker, to: [waiters[i]!.name] });
    sendLat.push(s.ms);
    const a = await arrived;
    arrivals.delete(marker);
    if (!a) {
      lost++;
      continue;
    }
    if (!a.woken) notWoken++;
    lat.push(a.at - t0);
  }
  // Memory and CPU of the hub while all N agents wait.
  await sleep(SETTLE_MS); // background work of the last writes (index, checkpoint) is done
  const waitingAtIdle = (await hubInfo(hub)).waiting_agents;
  const ticks0 = cpuTicksOf(hub.child.pid!);
  const idleMs = IDLE_MS;
  await sleep(idleMs);
  const ticks1 = cpuTicksOf(hub.child.pid!);
  const mem = memoryOf(hub.child.pid!);
  const idleCpuPct = r3((((ticks1 - ticks0) * (1000 / 100)) / idleMs) * 100); // USER_HZ = 100
  stopping = true;
  for (const ac of controllers) ac.abort();
  await Promise.race([Promise.allSettled(loops), sleep(5000)]);
  const w = summarize(lat);
  progress(
    `${label}: p50 ${w.p50_ms} ms, p99 ${w.p99_ms} ms over ${w.n} wakes (${notWoken} not woken, ${lost} lost); hub RSS ${mem.rss_mb} MB with ${waitingAtIdle} waiting, idle CPU ${idleCpuPct}%`,
  );
  return { wake: w, send: summarize(sendLat), notWoken, lost, mem, idleCpuPct, waitingAtIdle };
}
