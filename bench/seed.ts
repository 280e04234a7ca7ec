// Seeds a Perch data dir directly through the store and hub functions (not over HTTP), in big
// transactions, before any hub is started on it. Used by bench/run.ts.
//   node --import tsx bench/seed.ts --data-dir D --agents 50 --conversations 1000 --messages 1000000
// Prints one JSON line: { agents: [{id,name,key}], conversations: [ids], hot: conv id, messages, ms }.
// Everything is deterministic (a seeded PRNG): the same arguments give the same store content.
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openDatabase, DB_FILE_NAME, tx } from '../src/main/store/db/db';
import { createHub } from '../src/main/hub-services';
import { addAgent } from '../src/main/hub/control/agents';
import { createGroup } from '../src/main/hub/talk/conversations';
import { insertMessageWithEvent } from '../src/main/hub/talk/messages';
import { requireMember } from '../src/main/hub/talk/access';
import { maxGid, saveCursor } from '../src/main/store/tables/talk/events';
import { startBackgroundStore } from '../src/main/store/worker/background';
import { makeText, mulberry32 } from './text';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    agents: { type: 'string', default: '50' },
    conversations: { type: 'string', default: '0' },
    messages: { type: 'string', default: '0' },
    prefix: { type: 'string', default: 'a' },
  },
  strict: true,
});
const dataDir = path.resolve(values['data-dir']!);
const nAgents = Number(values.agents);
const nConvs = Number(values.conversations);
const nMessages = Number(values.messages);
const started = performance.now();
const progress = (s: string) => process.stderr.write(`seed: ${s}\n`);

const DAY = 86_400_000;
const t0 = Date.now() - 30 * DAY;
let clock = t0;
const db = openDatabase(path.join(dataDir, DB_FILE_NAME));
// The seeder's own connection only: a big page cache makes bulk inserts into big indexes faster.
db.pragma('cache_size = -1000000');
const hub = createHub({ db, now: () => clock });

const agents: Array<{ id: string; name: string; key: string }> = [];
hub.write(() => {
  for (let i = 0; i < nAgents; i++) {
    const { agent, key } = addAgent(hub, { name: `${values.prefix}${String(i).padStart(2, '0')}`, description: 'benchmark agent' });
    agents.push({ id: agent.id, name: agent.name, key });
  }
});

// Conversation j: a group of the owner and three agents (creator j, j+1, j+7 mod the agent count).
const convs: Array<{ id: string; members: number[] }> = [];
if (nConvs > 0) {
  hub.write(() => {
    for (let j = 0; j < nConvs; j++) {
      const m = [j % nAgents, (j + 1) % nAgents, (j + 7) % nAgents];
      const c = createGroup(hub, agents[m[0]!]!.id, `room-${j}`, [agents[m[1]!]!.name, agents[m[2]!]!.name]);
      convs.push({ id: c.conv_id, members: m });
    }
  });
}

// Messages: a random conversation, a random member agent, one in ten names another member in `to`.
if (nMessages > 0 && convs.length > 0) {
  const rnd = mulberry32(42);
  const step = Math.max(1, Math.floor((29 * DAY) / nMessages));
  const accessCache = new Map<string, ReturnType<typeof requireMember>>();
  const BATCH = 50_000;
  for (let done = 0; done < nMessages;) {
    const end = Math.min(nMessages, done + BATCH);
    hub.write(() => {
      for (; done < end; done++) {
        clock += step;
        const c = convs[Math.floor(rnd() * convs.length)]!;
        const senderIdx = c.members[Math.floor(rnd() * 3)]!;
        const sender = agents[senderIdx]!;
        const k = `${c.id}:${sender.id}`;
        let access = accessCache.get(k);
        if (!access) accessCache.set(k, (access = requireMember(hub, sender.id, c.id)));
        const other = c.members.find((x) => x !== senderIdx);
        const to = rnd() < 0.1 && other !== undefined ? [agents[other]!.name] : undefined;
        insertMessageWithEvent(hub, sender.id, access, { conv_id: c.id, text: makeText(rnd), to }, [], false); // a fixture, not agents' sends: no brakes
      }
    });
    if (done % 200_000 === 0 || done === nMessages) progress(`${done} messages (${Math.round(performance.now() - started)} ms)`);
  }
}

// Every agent has read everything so far (a long-running agent is caught up).
const last = maxGid(db);
tx(db, () => {
  for (const a of agents) saveCursor(db, { user_id: a.id, confirmed_gid: last, last_upto: last });
});
async function finish(): Promise<void> {
  // The search index beside the database, built by the hub's own background worker (as a running hub
  // would have it); then the store is left as a stopped hub leaves it.
  const indexStarted = performance.now();
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('seed: the search index was not built within 10 minutes')), 600_000);
    const background = startBackgroundStore(db, {
      onIndexed: () => {
        clearTimeout(timer);
        background!.close();
        resolve();
      },
    });
    if (!background) {
      clearTimeout(timer);
      resolve();
    }
  });
  progress(`search index built in ${Math.round(performance.now() - indexStarted)} ms`);
  await new Promise((r) => setTimeout(r, 100)); // the worker closes its connections
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  process.stdout.write(
    `${JSON.stringify({ agents, conversations: convs.map((c) => c.id), hot: convs[0]?.id ?? null, messages: nMessages, ms: Math.round(performance.now() - started) })}\n`,
  );
}

finish().catch((err) => {
  process.stderr.write(`seed failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
