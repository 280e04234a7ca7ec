// The store section's queries: get_updates, get_history and search on an empty store and on the big one.
import { call, summarize } from '../client';
import { type Seeded, type RunningHub } from '../lib/processes';
import { QUERY_SAMPLES, QUERY_WARMUP, HOT_FRESH, progress, checkDeadline } from '../lib/settings';

export interface QueryFigures {
  get_updates: ReturnType<typeof summarize>;
  get_history: ReturnType<typeof summarize>;
  search_conv: ReturnType<typeof summarize>;
  search_all: ReturnType<typeof summarize>;
  results: Record<string, number>;
}

/**
 * The same queries on a store: agent a00 reads its hot group (a00, a01, a07 and the owner) where
 * a01 first posts 200 fresh messages. Samples of the four queries are interleaved.
 *   get_updates  a01 posts one message (not timed), a00 get_updates with its ack (timed): 1 event
 *   get_history  the newest page (50 events) of the hot group
 *   search_conv  "deploy" in the hot group (a common word: the 20 newest matches)
 *   search_all   "ticket-4711" without conv_id (a rare token, a00's 20 most recent conversations)
 */
export async function queryPhase(label: string, hub: RunningHub, fixture: Seeded): Promise<QueryFigures> {
  checkDeadline(`queries on ${label}`);
  const q = fixture.agents[0]!;
  const w = fixture.agents[1]!;
  const hot = fixture.hot!;
  for (let i = 0; i < HOT_FRESH; i++) {
    const text = `Fresh note ${i} from ${w.name}${i % 4 === 0 ? ': deploy the queue worker after review' : ''}${i % 50 === 7 ? ', see ticket-4711' : ''}.`;
    await call(hub.port, w.key, 'send_message', { conv_id: hot, text });
  }
  let ack: string | undefined;
  for (let i = 0; i < 50; i++) {
    const r = await call(hub.port, q.key, 'get_updates', { ...(ack ? { ack } : {}), limit: 500 });
    ack = r.value.ack;
    if (r.value.events.length === 0) break;
  }
  const samples: Record<'get_updates' | 'get_history' | 'search_conv' | 'search_all', number[]> = {
    get_updates: [],
    get_history: [],
    search_conv: [],
    search_all: [],
  };
  const results: Record<string, number> = {};
  progress(`${label}: ${QUERY_SAMPLES} samples of get_updates, get_history, search (conv), search (all) …`);
  const phaseDeadline = Date.now() + 120_000;
  for (let i = 0; i < QUERY_WARMUP + QUERY_SAMPLES && Date.now() < phaseDeadline; i++) {
    const keep = i >= QUERY_WARMUP;
    await call(hub.port, w.key, 'send_message', { conv_id: hot, text: `Steady update ${i}: queue depth is fine.` });
    const u = await call(hub.port, q.key, 'get_updates', { ack });
    ack = u.value.ack;
    const h = await call(hub.port, q.key, 'get_history', { conv_id: hot });
    const sc = await call(hub.port, q.key, 'search', { query: 'deploy', conv_id: hot });
    const sa = await call(hub.port, q.key, 'search', { query: 'ticket-4711' });
    if (keep) {
      samples.get_updates.push(u.ms);
      samples.get_history.push(h.ms);
      samples.search_conv.push(sc.ms);
      samples.search_all.push(sa.ms);
    }
    if (i === 0) {
      results.get_updates_events = u.value.events.length;
      results.get_history_events = h.value.events.length;
      results.search_conv_found = sc.value.messages.length;
      results.search_all_found = sa.value.messages.length;
    }
  }
  const out = {
    get_updates: summarize(samples.get_updates),
    get_history: summarize(samples.get_history),
    search_conv: summarize(samples.search_conv),
    search_all: summarize(samples.search_all),
    results,
  };
  progress(
    `${label}: p99 get_updates ${out.get_updates.p99_ms} ms, get_history ${out.get_history.p99_ms} ms, search(conv) ${out.search_conv.p99_ms} ms, search(all) ${out.search_all.p99_ms} ms; answers ${JSON.stringify(results)}`,
  );
  return out;
}
