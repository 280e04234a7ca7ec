// The owner section: a message to an owner event-stream subscriber; and owner control (pauses, usage) shown.
import { call, ownerStream, summarize } from '../client';
import { runProcess, type RunningHub } from '../lib/processes';
import { CONTROL_SAMPLES, OWNER_SAMPLES, progress, checkDeadline } from '../lib/settings';
import { type Agent } from './throughput';

export async function ownerPhase(hub: RunningHub, sender: Agent, peer: Agent) {
  checkDeadline('owner');
  const conv = (await call(hub.port, sender.key, 'open_direct', { user: peer.name })).value.conversation.conv_id;
  const arrivals = new Map<string, (at: number) => void>();
  const stream = await ownerStream(hub.port, hub.ownerToken, (item, at) => {
    const text: string | undefined = item?.kind === 'event' ? item.value?.event?.message?.text : undefined;
    if (text?.startsWith('owner#')) arrivals.get(text)?.(at);
  });
  const lat: number[] = [];
  let lost = 0;
  progress(`owner: ${OWNER_SAMPLES} messages to an owner event-stream subscriber …`);
  const phaseDeadline = Date.now() + 60_000;
  for (let k = 0; k < OWNER_SAMPLES && Date.now() < phaseDeadline; k++) {
    const marker = `owner#${k}`;
    const arrived = new Promise<number | null>((resolve) => {
      const t = setTimeout(() => resolve(null), 2000);
      arrivals.set(marker, (at) => {
        clearTimeout(t);
        resolve(at);
      });
    });
    const t0 = performance.now();
    await call(hub.port, sender.key, 'send_message', { conv_id: conv, text: marker });
    const at = await arrived;
    arrivals.delete(marker);
    if (at === null) lost++;
    else lat.push(at - t0);
  }
  stream.close();
  const s = summarize(lat);
  progress(`owner: p50 ${s.p50_ms} ms, p99 ${s.p99_ms} ms (${lost} lost)`);
  const control = await controlPhase(hub, sender);
  return { owner: s, lost, control };
}

/**
 * Control state reaches the owner's screen (hub/control/fleet-live.ts): `perch agent pause` / `resume` from another
 * process, alternating, timed from the CLI's exit (its commit is done) to the fleet item on the owner's stream that
 * shows the new pause; and usage an agent reports (progress data.usage), timed from the call's answer to the fleet
 * item that shows it. Target: within 1 s.
 */
export async function controlPhase(hub: RunningHub, agent: Agent) {
  const waiting = new Set<{ test: (fleet: any) => boolean; done: (at: number) => void }>();
  const stream = await ownerStream(hub.port, hub.ownerToken, (item, at) => {
    const fleet = item?.kind === 'hub' ? item.value?.fleet : undefined;
    if (fleet)
      for (const w of waiting)
        if (w.test(fleet)) {
          waiting.delete(w);
          w.done(at);
        }
  });
  const arrival = (test: (fleet: any) => boolean) =>
    new Promise<number | null>((resolve) => {
      const w = {
        test,
        done: (at: number) => {
          clearTimeout(t);
          resolve(at);
        },
      };
      const t = setTimeout(() => {
        waiting.delete(w);
        resolve(null);
      }, 5000);
      waiting.add(w);
    });
  const mine = (fleet: any) => fleet.controls?.find((c: any) => c.agent.name === agent.name);
  const cli: number[] = [];
  const usage: number[] = [];
  let lost = 0;
  const samples = CONTROL_SAMPLES;
  progress(`control: ${samples} CLI pauses/resumes and ${samples} usage reports to an owner event-stream subscriber …`);
  for (let k = 0; k < samples; k++) {
    const pausing = k % 2 === 0;
    const shown = arrival((f) => (mine(f)?.paused != null) === pausing);
    await runProcess('perch agent', ['bin/perch.js', 'agent', pausing ? 'pause' : 'resume', agent.name, '--data-dir', hub.dataDir], 20_000);
    const t0 = performance.now();
    const at = await shown;
    if (at === null) lost++;
    else cli.push(Math.max(0, at - t0));
  }
  let cost = 0;
  for (let k = 0; k < samples; k++) {
    cost = Math.round((cost + 0.01) * 100) / 100;
    const want = cost;
    const shown = arrival((f) => Math.abs((mine(f)?.today?.cost_usd ?? -1) - want) < 1e-9);
    const conv = (await call(hub.port, agent.key, 'list_conversations', {})).value.conversations[0]?.conv_id;
    await call(hub.port, agent.key, 'progress', { conv_id: conv, kind: 'step', text: `usage ${k}`, data: { usage: { cost_usd: 0.01 } } });
    const t0 = performance.now();
    const at = await shown;
    if (at === null) lost++;
    else usage.push(Math.max(0, at - t0));
  }
  stream.close();
  const c = summarize(cli);
  const u = summarize(usage);
  progress(
    `control: CLI pause/resume shown p50 ${c.p50_ms} ms, max ${c.max_ms} ms; usage shown p50 ${u.p50_ms} ms, max ${u.max_ms} ms (${lost} lost)`,
  );
  return { cli_pause: c, usage: u, lost };
}
