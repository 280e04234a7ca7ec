// The kill -9 loop (docs/design.md, "What always holds" 7: nothing acknowledged is lost), shared by `npm run torture`
// (scripts/torture.ts) and test/stress/torture.test.ts. One data dir, one real `perch serve` at a time:
// concurrent writers (raw JSON-RPC send_message, each with a client_msg_id) hammer two conversations;
// the hub is SIGKILLed at a random moment of the burst; the crashed file gets PRAGMA integrity_check;
// the hub is restarted; every writer retries its unacknowledged ids with the same client_msg_id (and the
// same text); then the SQLite file is checked: every acknowledged message is there exactly once, with the
// msg_id its acknowledgement named, and each conversation's seq runs 1..n without a gap.
import path from 'node:path';
import Database from 'better-sqlite3';
import { addAgent, rawCall, rawPost, sleep, startServe, tempDataDir, removeDataDir, type AgentKey, type Served } from './serve-harness';

export interface TortureOptions {
  rounds: number;
  /** Concurrent writers (default 8). */
  writers?: number;
  /** The kill comes this many ms (uniformly at random, default 0..250) after the round's first acknowledgement. */
  maxKillDelayMs?: number;
  /** Bound on each phase of a round (default 60 s). */
  phaseTimeoutMs?: number;
  /** One line per round and the setup (default: none). */
  log?: (line: string) => void;
}

export interface TortureReport {
  rounds: number;
  /** Distinct client_msg_ids acknowledged. */
  acked: number;
  /** Acknowledgements that came from a retry after a crash. */
  retried: number;
  /** Unacknowledged sends the killed hub had stored anyway: their retry must return that message, not a copy. */
  storedUnacked: number;
  /** Acknowledged messages missing from the file (or present under another msg_id / seq). */
  lost: number;
  /** client_msg_ids stored more than once. */
  duplicated: number;
  /** Rounds whose crashed file, or the final file, failed PRAGMA integrity_check. */
  integrityFailures: number;
  /** Conversations whose event seqs were not 1..n at some check. */
  seqGaps: number;
  /** Tool or JSON-RPC errors answered by a running hub (none expected). */
  unexpectedErrors: number;
  /** Requests in flight at each kill. */
  inFlightAtKill: number[];
  restartMs: { mean: number; max: number; samples: number[] };
  /** The first problems found, for the failure message. */
  problems: string[];
}

interface Item {
  cid: string;
  conv: string;
  text: string;
  attempts: number;
}

export interface Ack {
  msg_id: string;
  seq: number;
  conv: string;
  text: string;
}

const TEXT_PREFIX = 'torture ';

/** PRAGMA integrity_check of the file as it is, opened read-only: 'ok' or what is wrong. */
export function integrityCheck(dbFile: string): string {
  try {
    const db = new Database(dbFile, { readonly: true, fileMustExist: true });
    try {
      return (db.pragma('integrity_check') as Array<{ integrity_check: string }>).map((r) => r.integrity_check).join('; ');
    } finally {
      db.close();
    }
  } catch (e) {
    return `cannot open: ${(e as Error).message}`;
  }
}

export interface StoreFindings {
  /** Texts (one per client_msg_id) stored more than once. */
  duplicated: Array<{ text: string; detail: string }>;
  /** Acknowledged client_msg_ids not stored exactly as acknowledged (msg_id, seq, conversation). */
  lost: Array<{ cid: string; detail: string }>;
  /** Conversations whose event seqs do not run 1..n. */
  gaps: string[];
}

/**
 * Reads the SQLite file (read-only; a running hub may hold it): every acknowledged message is stored
 * with the msg_id, seq and conversation its acknowledgement named; no torture text (one per
 * client_msg_id) is stored twice; each conversation's events run 1..n.
 */
export function checkStore(dbFile: string, convs: string[], acked: ReadonlyMap<string, Ack>): StoreFindings {
  const found: StoreFindings = { duplicated: [], lost: [], gaps: [] };
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  try {
    const byText = new Map<string, Array<{ id: string; seq: number; conv_id: string }>>();
    const rows = db
      .prepare(`SELECT id, seq, conv_id, text FROM messages WHERE conv_id IN (${convs.map(() => '?').join(',')})`)
      .all(...convs) as Array<{ id: string; seq: number; conv_id: string; text: string | null }>;
    for (const row of rows) {
      if (!row.text?.startsWith(TEXT_PREFIX)) continue;
      const list = byText.get(row.text) ?? [];
      list.push(row);
      byText.set(row.text, list);
    }
    for (const [text, list] of byText) {
      if (list.length > 1)
        found.duplicated.push({ text, detail: `"${text}" is stored ${list.length} times (${list.map((r) => r.id).join(', ')})` });
    }
    for (const [cid, a] of acked) {
      const list = byText.get(a.text) ?? [];
      if (list.some((r) => r.id === a.msg_id && r.seq === a.seq && r.conv_id === a.conv)) continue;
      const where = list.length ? `stored as ${list.map((r) => `${r.id}/seq ${r.seq}`).join(', ')}` : 'missing';
      found.lost.push({ cid, detail: `acknowledged ${cid} (${a.msg_id}, seq ${a.seq}) is ${where}` });
    }
    for (const conv of convs) {
      const seqs = (db.prepare('SELECT seq FROM events WHERE conv_id = ? ORDER BY seq').all(conv) as Array<{ seq: number }>).map(
        (r) => r.seq,
      );
      const gap = seqs.findIndex((seq, i) => seq !== i + 1);
      if (gap >= 0) found.gaps.push(`conversation ${conv}: event ${gap + 1} has seq ${seqs[gap]} (seqs must run 1..n)`);
    }
  } finally {
    db.close();
  }
  return found;
}

/** The text each client_msg_id is sent with (so the file can be searched by client_msg_id). */
export function tortureText(cid: string): string {
  return `${TEXT_PREFIX}${cid}`;
}

export async function runTorture(opts: TortureOptions): Promise<TortureReport> {
  const writers = opts.writers ?? 8;
  const maxKillDelay = opts.maxKillDelayMs ?? 250;
  const phaseTimeout = opts.phaseTimeoutMs ?? 60_000;
  const log = opts.log ?? (() => {});
  if (!Number.isInteger(opts.rounds) || opts.rounds < 1) throw new Error(`rounds must be a positive integer, not ${opts.rounds}`);
  if (!Number.isInteger(writers) || writers < 2) throw new Error(`writers must be an integer ≥ 2, not ${writers}`);

  const report: TortureReport = {
    rounds: 0,
    acked: 0,
    retried: 0,
    storedUnacked: 0,
    lost: 0,
    duplicated: 0,
    integrityFailures: 0,
    seqGaps: 0,
    unexpectedErrors: 0,
    inFlightAtKill: [],
    restartMs: { mean: 0, max: 0, samples: [] },
    problems: [],
  };
  const problem = (p: string) => {
    if (report.problems.length < 20) report.problems.push(p);
  };

  const dir = tempDataDir();
  const dbFile = path.join(dir, 'perch.sqlite');
  // A load, not a conversation: no rate limit and no brakes (8 writers trading turns would trip the loop brake).
  const serveArgs = { args: ['--rate', '0'], env: { PERCH_BRAKES: 'off' } };
  let hub: Served = await startServe(dir, serveArgs);
  try {
    const keys: AgentKey[] = await Promise.all(Array.from({ length: writers }, (_, i) => addAgent(dir, `writer-${i}`)));
    const others = (i: number) => keys.filter((_, k) => k !== i).map((k) => k.name);
    const convs: string[] = [];
    for (const i of [0, 1]) {
      const g = await rawCall(hub.mcpUrl, keys[i]!.key, 'create_group', { title: `torture ${i}`, members: others(i) });
      convs.push(g.structuredContent!.conversation.conv_id as string);
    }
    log(`data dir ${dir}: ${writers} writers in ${convs.length} conversations`);

    // ---- shared state between the controller and the writers -----------------------------------
    const acked = new Map<string, Ack>();
    const pending: Item[][] = keys.map(() => []);
    let mode: 'burst' | 'drain' | 'idle' = 'idle';
    let stopped = false;
    let generation = 0;
    let inFlight = 0;
    let roundAcks = 0;
    /** A client_msg_id acknowledged twice under different msg_ids. */
    let ackMismatches = 0;
    let counter = 0;
    let wake: () => void = () => {};
    let changed = new Promise<void>((r) => (wake = r));
    /** Wakes every writer waiting for a mode or hub change. */
    const signal = () => {
      const w = wake;
      changed = new Promise<void>((r) => (wake = r));
      w();
    };
    const hubAlive = () => hub.proc.exitCode === null && hub.proc.signalCode === null;

    const writer = async (w: number) => {
      const key = keys[w]!.key;
      const conv = convs[w % convs.length]!;
      while (!stopped) {
        let item = pending[w]!.shift();
        if (!item && mode === 'burst') {
          const cid = `w${w}-${++counter}`;
          item = { cid, conv, text: tortureText(cid), attempts: 0 };
        }
        if (!item) {
          await changed;
          continue;
        }
        const gen = generation;
        const url = hub.mcpUrl;
        item.attempts++;
        inFlight++;
        let r;
        try {
          r = await rawPost(
            url,
            key,
            {
              jsonrpc: '2.0',
              id: counter,
              method: 'tools/call',
              params: { name: 'send_message', arguments: { conv_id: item.conv, text: item.text, client_msg_id: item.cid } },
            },
            { 'MCP-Protocol-Version': '2025-11-25' },
          );
        } catch {
          r = undefined; // the hub went away (or the request timed out): retry the same id
        } finally {
          inFlight--;
        }
        if (!r || r.status >= 500 || r.status === 0) {
          pending[w]!.unshift(item);
          // Wait for the restarted hub; if this one is still alive, back off briefly and retry.
          if (gen === generation && !hubAlive()) await changed;
          else if (gen === generation) await sleep(20);
          continue;
        }
        const result = r.json?.result;
        if (r.status !== 200 || !result || result.isError) {
          report.unexpectedErrors++;
          problem(`${item.cid}: HTTP ${r.status} ${r.text.slice(0, 300)}`);
          continue;
        }
        const sc = result.structuredContent as { msg_id: string; seq: number };
        const before = acked.get(item.cid);
        if (before && before.msg_id !== sc.msg_id) {
          ackMismatches++;
          problem(`${item.cid} acknowledged twice with different msg_ids ${before.msg_id} and ${sc.msg_id}`);
        }
        acked.set(item.cid, { msg_id: sc.msg_id, seq: sc.seq, conv: item.conv, text: item.text });
        if (item.attempts > 1) report.retried++;
        roundAcks++;
      }
    };

    const until = async (cond: () => boolean, what: string) => {
      const end = Date.now() + phaseTimeout;
      while (!cond()) {
        if (Date.now() > end) throw new Error(`torture: timed out after ${phaseTimeout} ms waiting for ${what}`);
        await sleep(5);
      }
    };

    const integrity = (when: string): boolean => {
      const result = integrityCheck(dbFile);
      if (result === 'ok') return true;
      report.integrityFailures++;
      problem(`integrity_check ${when}: ${result}`);
      return false;
    };

    /** How many of these unacknowledged sends the crashed hub had stored anyway (their answer was lost). */
    const storedBeforeRetry = (items: Item[]): number => {
      if (items.length === 0) return 0;
      const db = new Database(dbFile, { readonly: true, fileMustExist: true });
      try {
        const q = db.prepare('SELECT 1 FROM messages WHERE text = ? LIMIT 1');
        return items.filter((i) => q.get(i.text) !== undefined).length;
      } finally {
        db.close();
      }
    };

    const lostSet = new Set<string>();
    const dupSet = new Set<string>();
    const verify = (when: string) => {
      const found = checkStore(dbFile, convs, acked);
      for (const d of found.duplicated) {
        if (dupSet.has(d.text)) continue;
        dupSet.add(d.text);
        problem(`${when}: ${d.detail}`);
      }
      for (const l of found.lost) {
        if (lostSet.has(l.cid)) continue;
        lostSet.add(l.cid);
        problem(`${when}: ${l.detail}`);
      }
      for (const g of found.gaps) {
        report.seqGaps++;
        problem(`${when}: ${g}`);
      }
      report.lost = lostSet.size;
      report.duplicated = dupSet.size + ackMismatches;
    };

    const running = Array.from({ length: writers }, (_, w) => writer(w));
    try {
      for (let round = 1; round <= opts.rounds; round++) {
        const ackedBefore = acked.size;
        roundAcks = 0;
        mode = 'burst';
        signal();
        await until(() => roundAcks > 0, `round ${round}'s first acknowledgement`);
        const delay = Math.random() * maxKillDelay;
        await sleep(delay);
        const atKill = inFlight;
        report.inFlightAtKill.push(atKill);
        mode = 'drain';
        await hub.kill();
        await until(() => inFlight === 0, `round ${round}'s requests to fail`);
        const intact = integrity(`after the kill of round ${round}`);
        const stored = intact ? storedBeforeRetry(pending.flat()) : 0;
        report.storedUnacked += stored;

        const t0 = performance.now();
        hub = await startServe(dir, serveArgs);
        const restart = performance.now() - t0;
        report.restartMs.samples.push(restart);
        generation++;
        signal();
        const retriedBefore = report.retried;
        await until(() => pending.every((p) => p.length === 0) && inFlight === 0, `round ${round}'s retries`);
        mode = 'idle';
        verify(`round ${round}`);
        report.rounds = round;
        log(
          `round ${round}/${opts.rounds}: +${acked.size - ackedBefore} acked (${report.retried - retriedBefore} after a retry, ` +
            `${stored} of them stored before the kill), killed ${Math.round(delay)} ms into the burst with ${atKill} requests in flight, ` +
            `integrity ${intact ? 'ok' : 'FAILED'}, ` +
            `restart ${Math.round(restart)} ms; lost ${report.lost}, duplicated ${report.duplicated}`,
        );
      }
    } finally {
      stopped = true;
      mode = 'idle';
      signal();
      // Writers finish their last request (bounded by its 30 s timeout) and see stopped.
      let timer: NodeJS.Timeout | undefined;
      const ended = await Promise.race([
        Promise.all(running).then(() => true),
        new Promise<false>((r) => (timer = setTimeout(() => r(false), 35_000))),
      ]);
      clearTimeout(timer);
      if (!ended) {
        report.unexpectedErrors++;
        problem('the writers did not stop within 35 s');
      }
    }
    await hub.stop();
    integrity('after the final clean stop');
    verify('after the final clean stop');
    report.acked = acked.size;
    const s = report.restartMs.samples;
    report.restartMs.mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
    report.restartMs.max = Math.max(0, ...s);
    return report;
  } finally {
    await hub.stop();
    removeDataDir(dir);
  }
}

/** True when the run found nothing lost, duplicated, corrupt, gapped or erroring. */
export function tortureClean(r: TortureReport): boolean {
  return r.lost === 0 && r.duplicated === 0 && r.integrityFailures === 0 && r.seqGaps === 0 && r.unexpectedErrors === 0;
}

export function formatTortureSummary(r: TortureReport): string {
  const ms = (x: number) => `${Math.round(x)} ms`;
  return [
    `rounds ${r.rounds}`,
    `acked ${r.acked} (${r.retried} after a retry, ${r.storedUnacked} of them already stored by the killed hub)`,
    `lost ${r.lost}`,
    `duplicated ${r.duplicated}`,
    `integrity failures ${r.integrityFailures}`,
    `seq gaps ${r.seqGaps}`,
    `unexpected errors ${r.unexpectedErrors}`,
    `restart mean ${ms(r.restartMs.mean)}, max ${ms(r.restartMs.max)}`,
  ].join(' · ');
}
