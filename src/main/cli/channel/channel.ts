// `perch channel`: a stdio MCP server that is a Claude Code session's one Perch entry, identified by the agent's
// key from the environment (PERCH_KEY, or PERCH_KEY_<AGENT> with --agent; never argv) at PERCH_URL:
//   - a bridge: every request of the session (initialize, tools/list, tools/call, resources/*, ping) is POSTed to
//     the hub's /mcp as it came, with the agent's key, and the hub's answer written back unchanged, so the hub's
//     tools are served as they are (stdio-only clients can use it like mcp-remote);
//   - a channel (Claude Code's channels, code.claude.com/docs/en/channels-reference): initialize's answer also
//     declares capabilities.experimental["claude/channel"] and ["claude/channel/permission"]; the events of
//     get_updates that would wake the agent are pushed as notifications/claude/channel (channel-events.ts);
//   - a permission relay: notifications/claude/channel/permission_request goes to the owner's Approvals inbox
//     and the decision comes back as notifications/claude/channel/permission (channel-prompts.ts).
//
// Delivery: the channel reads get_updates under its own instance name ("channel", or --instance), so it never
// moves the position of the session's own get_updates calls: every event it pushes stays in get_updates too.
// Its own position moves only by the ack of an answer whose events were all written to stdout (each get_updates
// call carries the previous answer's ack), so what a channel session had not pushed comes with the next one.
//
// Loaded on its own by bin/perch.js (dist/channel.js, node built-ins only): it starts with the session.
import { parseArgs } from 'node:util';
import { keyEnvName, mcpUrl } from '../hook/hook-common';
import { CALL_TIMEOUT_MS, ChannelHub, HubDown, ToolError, obj } from './channel-hub';
import { BACKLOG_PUSH_MAX, CHANNEL_INSTRUCTIONS, backlogNotices, channelNotice, type ChannelNotice } from './channel-events';
import { PromptRelay, parsePermissionRequest } from './channel-prompts';
import { DEFAULT_PORT } from '../../paths';
import { LIMITS } from '../../../shared/limits';

type Json = Record<string, unknown>;

export const CHANNEL_HELP = `perch channel [--agent NAME] [--instance NAME] [--url URL]

A stdio MCP server for Claude Code (see docs/guide/harnesses.md): the agent's Perch tools, the
messages that need it pushed into the running session, and its permission prompts in your Approvals inbox.
  --agent NAME     the agent's key is PERCH_KEY_<NAME> (upper case, other characters as _), else PERCH_KEY
  --instance NAME  the delivery position the channel pushes from (default "channel"; give each session of one
                   agent that runs at the same time a name of its own)
  --url URL        the hub's MCP URL (default PERCH_URL, else the running hub of the data dir, else port ${DEFAULT_PORT})
Start Claude Code with: claude --dangerously-load-development-channels server:perch`;

/** get_updates waits this long per call (LIMITS.maxWaitSecs is 60). */
const WAIT_SECS = 50;
const UPDATES_LIMIT = 100;
/** The backlog read at a session's start: at most this many pages (of UPDATES_LIMIT); the rest stays in get_updates. */
const BACKLOG_MAX_PAGES = 50;
/** JSON-RPC error codes of the bridge's own answers. */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
const INTERNAL_ERROR = -32603;
/** The longest line the channel reads (bytes): the largest body the hub takes (a send_file call); longer is dropped as it streams. */
export const MAX_LINE_BYTES = LIMITS.maxFileBodyBytes;

/** A start that cannot go on: one stderr line, exit code 1. */
class Refused extends Error {}

function write(line: string): Promise<void> {
  return new Promise((resolve) => {
    process.stdout.write(`${line}\n`, () => resolve());
  });
}

function send(msg: Json): Promise<void> {
  return write(JSON.stringify(msg));
}

function warn(line: string): void {
  process.stderr.write(`perch channel: ${line}\n`);
}

/**
 * Splits stdin into lines without holding more than MAX_LINE_BYTES of one: a longer line is dropped while it streams
 * in and reported once (onTooLong) when its newline comes. onEnd runs once, when stdin ends or fails.
 */
function readLines(input: NodeJS.ReadableStream, onLine: (line: string) => void, onTooLong: () => void, onEnd: () => void): void {
  let parts: Buffer[] = [];
  let size = 0;
  let skipping = false;
  input.on('data', (chunk: Buffer) => {
    let start = 0;
    for (let nl = chunk.indexOf(10, start); ; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl === -1 ? chunk.length : nl);
      if (!skipping) {
        size += piece.length;
        if (size > MAX_LINE_BYTES) {
          skipping = true;
          parts = [];
        } else if (piece.length) parts.push(piece);
      }
      if (nl === -1) break;
      if (skipping) onTooLong();
      else onLine(Buffer.concat(parts).toString('utf8').replace(/\r$/, ''));
      parts = [];
      size = 0;
      skipping = false;
      start = nl + 1;
    }
  });
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    if (!skipping && size > 0) onLine(Buffer.concat(parts).toString('utf8').replace(/\r$/, ''));
    onEnd();
  };
  input.once('end', end);
  input.once('error', end);
  input.once('close', end);
}

function parseChannelArgs(argv: string[]): { help: boolean; agent?: string; instance: string; url?: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: { agent: { type: 'string' }, instance: { type: 'string' }, url: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      allowPositionals: false,
      strict: true,
    });
  } catch (e) {
    throw new Refused((e as Error).message);
  }
  const v = parsed.values;
  if (v.agent !== undefined && !v.agent.trim()) throw new Refused('--agent needs a NAME');
  const instance = v.instance ?? 'channel';
  if (!/^[a-z0-9_-]{2,40}$/.test(instance))
    throw new Refused(`--instance must be 2-40 characters a-z, 0-9, - and _, not ${JSON.stringify(instance)}`);
  return { help: !!v.help, agent: v.agent, instance, url: v.url };
}

class Channel {
  private closing = false;
  private readonly stopPush = new AbortController();
  private readonly inflight = new Map<string, AbortController>();
  private pushing: Promise<void> | undefined;
  readonly relay: PromptRelay;

  constructor(
    private readonly hub: ChannelHub,
    ownerName: string,
    private readonly instance: string,
  ) {
    this.relay = new PromptRelay(
      hub,
      (request_id, behavior) =>
        send({ jsonrpc: '2.0', method: 'notifications/claude/channel/permission', params: { request_id, behavior } }),
      warn,
    );
  }

  /** One message from the session. */
  handle(line: string): void {
    if (!line.trim()) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      void send({ jsonrpc: '2.0', id: null, error: { code: PARSE_ERROR, message: 'Parse error: one JSON-RPC 2.0 message per line' } });
      return;
    }
    const msg = obj(parsed);
    const id = msg && (typeof msg.id === 'string' || typeof msg.id === 'number') ? msg.id : null;
    const invalid = (why: string) =>
      void send({ jsonrpc: '2.0', id, error: { code: INVALID_REQUEST, message: `Invalid Request: ${why}` } });
    if (!msg)
      return invalid(Array.isArray(parsed) ? 'batches are not taken; one JSON-RPC 2.0 message per line' : 'not a JSON-RPC 2.0 message');
    if (msg.jsonrpc !== '2.0') return invalid('jsonrpc must be "2.0"');
    const method = typeof msg.method === 'string' ? msg.method : undefined;
    if (method === undefined) {
      // A response (result or error) is dropped: the hub asks the session nothing.
      if (msg.id !== undefined && ('result' in msg || 'error' in msg)) return;
      return invalid('no method');
    }
    if (msg.id === undefined) return this.notification(method, msg);
    void this.forward(msg, method);
  }

  private notification(method: string, msg: Json): void {
    if (method === 'notifications/claude/channel/permission_request') {
      const p = parsePermissionRequest(msg.params);
      if (typeof p === 'string') warn(p);
      else this.relay.relay(p);
      return;
    }
    if (method === 'notifications/cancelled') {
      const id = obj(msg.params)?.requestId;
      this.inflight.get(JSON.stringify(id))?.abort();
      return;
    }
    if (method === 'notifications/initialized') this.startPush();
    void this.hub.post(msg).catch(() => undefined);
  }

  private async forward(msg: Json, method: string): Promise<void> {
    const key = JSON.stringify(msg.id);
    const stop = new AbortController();
    this.inflight.set(key, stop);
    try {
      // A waiting call (get_updates, get_request with wait_secs) may take up to a minute.
      const body = await this.hub.post(msg, { signal: stop.signal, timeoutMs: 60_000 + CALL_TIMEOUT_MS });
      if (!body) throw new HubDown(`no answer to ${method}`);
      if (method === 'initialize') this.dressInitialize(body);
      await send(body);
    } catch (e) {
      if (stop.signal.aborted) return; // cancelled by the session: no answer (MCP cancellation)
      await send({ jsonrpc: '2.0', id: msg.id, error: { code: INTERNAL_ERROR, message: (e as Error).message } });
    } finally {
      this.inflight.delete(key);
    }
  }

  /** The hub's initialize answer, plus the channel's capabilities and instructions. */
  private dressInitialize(body: Json): void {
    const result = obj(body.result);
    if (!result) return;
    if (typeof result.protocolVersion === 'string') this.hub.protocolVersion = result.protocolVersion;
    const caps = (obj(result.capabilities) ?? {}) as Json;
    caps.experimental = { ...(obj(caps.experimental) ?? {}), 'claude/channel': {}, 'claude/channel/permission': {} };
    result.capabilities = caps;
    result.instructions = `${typeof result.instructions === 'string' ? `${result.instructions}\n\n` : ''}${CHANNEL_INSTRUCTIONS}`;
  }

  private startPush(): void {
    this.pushing ??= this.push().catch((e) => warn(`pushing stopped: ${(e as Error).message}`));
  }

  /** Long-polls get_updates under the channel's instance; pushes what would wake the agent; acks what was written. */
  private async push(): Promise<void> {
    const { signal } = this.stopPush;
    let ack: string | undefined;
    let failures = 0;
    // The backlog (what came while no session ran) first, without waiting: only its newest events are pushed.
    let backlog = true;
    let newest: ChannelNotice[] = [];
    let skipped = 0;
    let pages = 0;
    while (!this.closing) {
      let r: Json;
      try {
        r = await this.hub.call(
          'get_updates',
          { instance: this.instance, wait_secs: backlog ? 0 : WAIT_SECS, limit: UPDATES_LIMIT, ...(ack ? { ack } : {}) },
          { signal, timeoutMs: WAIT_SECS * 1000 + CALL_TIMEOUT_MS },
        );
        failures = 0;
      } catch (e) {
        if (this.closing) return;
        if (e instanceof HubDown && e.unauthorized) throw e;
        // An ack this hub no longer knows (e.g. a restored backup) is dropped; anything else is retried.
        if (e instanceof ToolError && e.code === 'invalid_argument') ack = undefined;
        if (failures++ === 0) warn(`${(e as Error).message}; retrying`);
        await new Promise((res) => setTimeout(res, Math.min(5_000, 250 * 2 ** Math.min(failures, 5))));
        continue;
      }
      const events = Array.isArray(r.events) ? r.events : [];
      const notices = events.map((ev) => obj(ev) && channelNotice(ev as Json)).filter((n): n is ChannelNotice => !!n);
      if (typeof r.ack === 'string') ack = r.ack;
      if (backlog) {
        // Only the newest BACKLOG_PUSH_MAX are kept as the pages come (the rest are counted); bounded in pages too.
        newest = [...newest, ...notices];
        const over = Math.max(0, newest.length - BACKLOG_PUSH_MAX);
        skipped += over;
        newest = newest.slice(over);
        if (r.more === true && ++pages < BACKLOG_MAX_PAGES) continue;
        backlog = false;
        for (const notice of backlogNotices(newest, skipped))
          await send({ jsonrpc: '2.0', method: 'notifications/claude/channel', params: notice });
        newest = [];
        continue;
      }
      for (const notice of notices) await send({ jsonrpc: '2.0', method: 'notifications/claude/channel', params: notice });
    }
  }

  /** The session ended (stdin closed): open prompts leave the Approvals inbox, waits end. */
  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.stopPush.abort();
    for (const c of this.inflight.values()) c.abort();
    await this.relay.closeAll();
  }
}

/** `perch channel ...`: resolves with the process's exit code. */
export async function cmdChannel(argv: string[]): Promise<number> {
  let channel: Channel | undefined;
  try {
    const opts = parseChannelArgs(argv);
    if (opts.help) {
      process.stdout.write(`${CHANNEL_HELP}\n`);
      return 0;
    }
    const keyName = keyEnvName(opts.agent);
    const key = process.env[keyName];
    if (!key)
      throw new Refused(`no agent key: set ${keyName} in the environment Claude Code starts this server with (the "env" of its MCP entry)`);
    const hub = new ChannelHub(mcpUrl(opts.url), key);
    // The session's first lines wait until the key is known good.
    const lines: string[] = [];
    let ended = false;
    let stdinDone: () => void = () => undefined;
    const end = new Promise<void>((resolve) => (stdinDone = resolve));
    const tooLong = () => {
      warn(`a line over ${MAX_LINE_BYTES} bytes was dropped`);
      void send({
        jsonrpc: '2.0',
        id: null,
        error: { code: INVALID_REQUEST, message: `Invalid Request: a line over ${MAX_LINE_BYTES} bytes` },
      });
    };
    readLines(
      process.stdin,
      (l) => (channel ? channel.handle(l) : lines.push(l)),
      tooLong,
      () => ((ended = true), stdinDone()),
    );
    let me: Json;
    try {
      me = await hub.call('whoami', {});
    } catch (e) {
      throw new Refused((e as Error).message);
    }
    const ownerName = obj(me.owner)?.name;
    if (typeof ownerName !== 'string') throw new Refused('whoami gave no owner name');
    channel = new Channel(hub, ownerName, opts.instance);
    for (const l of lines.splice(0)) channel.handle(l);
    // Claude Code gone (stdout closed under us): the session ended.
    process.stdout.on('error', () => ((ended = true), stdinDone()));
    const onSignal = () => void channel?.close().finally(() => process.exit(0));
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    if (!ended) await end;
    await channel.close();
    return 0;
  } catch (e) {
    await channel?.close();
    warn(e instanceof Refused ? e.message : `unexpected error: ${(e as Error)?.message ?? String(e)}`);
    return 1;
  }
}

/** The entry of dist/channel.js, which bin/perch.js loads alone for `perch channel ...`. */
export async function main(argv: string[]): Promise<number> {
  return cmdChannel(argv[0] === 'channel' ? argv.slice(1) : argv);
}
