// Fuzz: one real `perch serve` gets a few thousand raw requests over node:net — junk methods, paths
// (percent junk, NUL, dot-dot, unicode, very long), headers (Host, Origin, Cookie, Authorization,
// Content-Length lies, Mcp-*), and bodies (random JSON-RPC, wrong types for real tools, deep nesting,
// truncation) across /mcp, the owner API and its event stream, the UI files and /files/ links, the device door,
// with and without real credentials; a quarter of them to the container listener (`--listen 127.0.0.2`, serving /mcp
// only, with the Host names containers use), where nothing but /mcp (and a genuine container file link, which junk never forges) may ever answer 200. It proves docs/design.md, "What always holds" 8: the hub never dies, never hangs on a
// request, never answers 5xx to input, and afterwards still serves a real tools/call and the UI; and the device
// audit was not flooded by the unauthenticated junk (tallied, a paired device's entries all kept).
//
// Deterministic: a fixed seed, then one random seed printed in the output (PERCH_FUZZ_SEED=<n> replays it;
// PERCH_FUZZ_VERBOSE=<kind> prints each answer to one kind of request).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { TOOLS, toolInputJsonSchema } from '../../src/shared/api/catalog';
import { OWNER_ACTIONS } from '../../src/shared/api/owner-api';
import { addAgent, cli, connect, ownerOk, ROOT, runtimeInfo, uniqueName, useSharedServe, type AgentKey } from '../support/serve-harness';
import { pairDeviceOnFile } from '../support/push-endpoint';
import { buildRequest, rawExchange, type RawAnswer } from '../support/raw-http';
import { Rng } from '../support/rng';

const FIXED_SEED = 20260728;
const RANDOM_SEED = process.env.PERCH_FUZZ_SEED ? Number(process.env.PERCH_FUZZ_SEED) >>> 0 : crypto.randomInt(2 ** 31);
const REQUESTS_PER_SEED = 1500;
const CONCURRENCY = 16;
/** A request with no answer and no close within this long is a hang. */
const PER_REQUEST_TIMEOUT_MS = 12_000;
/** The hub under fuzz cuts off requests it is still reading after these (short, so lies resolve fast). */
const HUB_ENV = { PERCH_HEADERS_TIMEOUT_MS: '1500', PERCH_REQUEST_TIMEOUT_MS: '2500' };

// ---- the world the fuzzer knows (real keys, ids and links) -------------------------------------

interface World {
  port: number;
  agentKey: string;
  /** A scoped key of the fuzzing agent allowed from containers (the container listener's). */
  containerKey: string;
  ownerToken: string;
  sessionCookie: string;
  convId: string;
  fileIds: string[];
  fileLinks: string[];
  names: string[];
  msgIds: string[];
  /** A paired device (its audit entries must outlive the junk). */
  device: { id: string; token: string };
}

/** Requests that crashed `perch serve` before the doors were made total, sent verbatim in every run. */
function verbatim(port: number): Buffer[] {
  const h = `Host: 127.0.0.1:${port}\r\nConnection: close\r\n`;
  return [
    `GET /% HTTP/1.1\r\n${h}\r\n`,
    `GET /%E0%A4%A HTTP/1.1\r\n${h}\r\n`,
    `GET /a%00b.js HTTP/1.1\r\n${h}\r\n`,
    `GET // HTTP/1.1\r\n${h}\r\n`,
    `GET http://[bad HTTP/1.1\r\n${h}\r\n`,
    `GET /files/% HTTP/1.1\r\n${h}\r\n`,
    `POST /api/owner/hub.info HTTP/1.1\r\n${h}Cookie: perch_owner=%\r\nX-Perch-Owner: 1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
    `POST /api/owner/agents.list HTTP/1.1\r\n${h}Cookie: perch_owner=%\r\nContent-Length: 2\r\n\r\n{}`,
    `GET /api/owner/events HTTP/1.1\r\n${h}Cookie: perch_owner=%\r\n\r\n`,
  ].map((s) => Buffer.from(s, 'latin1'));
}

const utf8AsLatin1 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');

const JUNK_STRINGS = [
  '',
  ' ',
  '%',
  '%%',
  '%E0%A4%A',
  '%00',
  '\u0000',
  '..',
  '../..',
  '报告',
  '🦜',
  '\u202e',
  '\ud800',
  'a'.repeat(300),
  'null',
  'true',
  '-1',
  '1e309',
  '__proto__',
  'constructor',
  '<script>',
  "'; DROP TABLE x;--",
  '=?base64?AAAA?=',
  '\r\n',
];

function junkString(r: Rng, w: World): string {
  switch (r.int(6)) {
    case 0:
      return r.pick(JUNK_STRINGS);
    case 1:
      return r.pick([w.convId, ...w.fileIds, ...w.names, ...w.msgIds, 'c_nope', 'u_nope']);
    case 2:
      return crypto
        .createHash('sha1')
        .update(String(r.next()))
        .digest('base64')
        .slice(0, 1 + r.int(27));
    case 3:
      return String.fromCharCode(...Array.from({ length: 1 + r.int(20) }, () => r.int(0x3000)));
    case 4:
      return r.pick(['x', 'hello', 'approve', 'answer', 'original', 'thumb', 'open', 'done', 'request']);
    default:
      return 'z'.repeat(r.int(5000));
  }
}

function junkValue(r: Rng, w: World, depth = 0): unknown {
  const k = r.int(depth > 3 ? 6 : 9);
  switch (k) {
    case 0:
      return null;
    case 1:
      return r.chance(0.5);
    case 2:
      return r.pick([0, -1, 1, 2 ** 53, -(2 ** 31), 0.5, 1e300, 3, 60, 61]);
    case 3:
    case 4:
    case 5:
      return junkString(r, w);
    case 6:
      return Array.from({ length: r.int(5) }, () => junkValue(r, w, depth + 1));
    case 7: {
      const o: Record<string, unknown> = {};
      for (let i = r.int(5); i > 0; i--)
        o[r.pick(['a', 'toString', '__proto__', 'constructor', 'valueOf', 'x', 'conv_id', 'name'])] = junkValue(r, w, depth + 1);
      return o;
    }
    default:
      return { toString: 1, valueOf: 'x' };
  }
}

/** Arrays or objects nested 2..2000 deep (past LIMITS.maxJsonDepth most of the time). */
function deepValue(r: Rng): unknown {
  const d = 2 + r.int(r.chance(0.5) ? 100 : 2000);
  return JSON.parse(r.chance(0.5) ? '['.repeat(d) + ']'.repeat(d) : '{"a":'.repeat(d) + '1' + '}'.repeat(d));
}

/** Arguments for a real tool: its own property names with values of the right type, or of any type. */
function toolArgs(r: Rng, w: World, tool: (typeof TOOLS)[number]): unknown {
  if (r.chance(0.08)) return junkValue(r, w);
  const schema = toolInputJsonSchema(tool) as { properties?: Record<string, { type?: string | string[] }> };
  const args: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    if (r.chance(0.35)) continue;
    const type = Array.isArray(prop.type) ? prop.type[0] : prop.type;
    if (r.chance(0.25)) args[name] = r.chance(0.1) ? deepValue(r) : junkValue(r, w);
    else if (name === 'conv_id') args[name] = r.chance(0.8) ? w.convId : junkString(r, w);
    else if (name === 'file_id') args[name] = r.pick(w.fileIds);
    else if (name === 'data') args[name] = r.chance(0.7) ? Buffer.from(junkString(r, w)).toString('base64') : junkString(r, w);
    else if (type === 'string') args[name] = junkString(r, w);
    else if (type === 'integer' || type === 'number') args[name] = r.pick([0, 1, 5, -1, 1.5, 1e9]);
    else if (type === 'boolean') args[name] = r.chance(0.5);
    else if (type === 'array') args[name] = Array.from({ length: r.int(4) }, () => (r.chance(0.6) ? r.pick(w.names) : junkValue(r, w, 2)));
    else args[name] = junkValue(r, w, 1);
    if (r.chance(0.05)) args[junkString(r, w).slice(0, 20) || 'extra'] = junkValue(r, w);
  }
  // Waiting calls wait at most a second here: the fuzzer looks for hangs, not for patience.
  if ('wait_secs' in args) args.wait_secs = r.pick([0, 1, -1, 'x', 0.5]);
  return args;
}

const RPC_METHODS = [
  'initialize',
  'server/discover',
  'ping',
  'tools/list',
  'tools/call',
  'tools/call',
  'tools/call',
  'tools/call',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'prompts/get',
  'notifications/initialized',
  'nope/nope',
  '',
];

function mcpBody(r: Rng, w: World, modern: boolean): string {
  if (r.chance(0.1)) return junkBody(r, w);
  const method = r.pick(RPC_METHODS);
  const params: Record<string, unknown> = {};
  if (method === 'tools/call') {
    const tool = r.pick(TOOLS);
    params.name = r.chance(0.95) ? tool.name : junkValue(r, w);
    params.arguments = toolArgs(r, w, tool);
  } else if (method === 'resources/read') {
    params.uri = r.chance(0.5) ? 'perch://guide' : junkValue(r, w);
  } else if (method === 'initialize') {
    params.protocolVersion = r.pick(['2025-11-25', '2025-03-26', '1999-01-01', 7]);
  }
  if (modern || r.chance(0.1)) {
    params._meta = r.chance(0.8)
      ? {
          'io.modelcontextprotocol/protocolVersion': r.pick(['2026-07-28', '2025-11-25', 'x']),
          'io.modelcontextprotocol/clientCapabilities': r.chance(0.9) ? {} : 'x',
        }
      : junkValue(r, w);
  }
  const msg: Record<string, unknown> = {
    jsonrpc: r.chance(0.95) ? '2.0' : junkValue(r, w),
    method: r.chance(0.97) ? method : junkValue(r, w),
    params: r.chance(0.95) ? params : junkValue(r, w),
  };
  if (r.chance(0.9)) msg.id = r.chance(0.9) ? r.int(1e6) : junkValue(r, w);
  const text = JSON.stringify(msg);
  return r.chance(0.05) ? text.slice(0, r.int(text.length)) : text;
}

function junkBody(r: Rng, w: World): string {
  switch (r.int(8)) {
    case 0:
      return '';
    case 1: {
      const d = 1 + r.int(20_000);
      return '['.repeat(d) + ']'.repeat(d);
    }
    case 2: {
      const d = 1 + r.int(5_000);
      return '{"a":'.repeat(d) + '1' + '}'.repeat(d);
    }
    case 3:
      return JSON.stringify(junkValue(r, w));
    case 4:
      return '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"send_message","arguments":{"conv_id":';
    case 5:
      return String.fromCharCode(...Array.from({ length: r.int(200) }, () => r.int(256)));
    case 6:
      return 'x'.repeat(r.chance(0.1) ? 1_100_000 : r.int(10_000));
    default:
      return JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
  }
}

const OWNER_ACTION_NAMES = Object.keys(OWNER_ACTIONS).filter((a) => a !== 'agents.revoke' && a !== 'agents.rotate_key');

function ownerBody(r: Rng, w: World, action: string): string {
  if (r.chance(0.15)) return junkBody(r, w);
  const spec = Object.hasOwn(OWNER_ACTIONS, action)
    ? (OWNER_ACTIONS as Record<string, { input: { shape?: Record<string, unknown> } }>)[action]
    : undefined;
  const shape = spec?.input.shape ?? {};
  const o: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    if (r.chance(0.3)) continue;
    if (key === 'conv_id') o[key] = r.chance(0.8) ? w.convId : junkString(r, w);
    else if (key === 'file_id') o[key] = r.pick(w.fileIds);
    else if (key === 'msg_id') o[key] = r.pick(w.msgIds);
    else if (key === 'user' || key === 'agent' || key === 'assignee') o[key] = r.pick(w.names);
    else if (key === 'members' || key === 'to') o[key] = r.chance(0.7) ? [r.pick(w.names)] : junkValue(r, w);
    else o[key] = r.chance(0.5) ? junkString(r, w) : r.chance(0.1) ? deepValue(r) : junkValue(r, w);
  }
  if (r.chance(0.1)) o[junkString(r, w).slice(0, 10) || 'extra'] = 1;
  return JSON.stringify(o);
}

function mutateToken(r: Rng, link: string): string {
  const p = new URL(link).pathname;
  switch (r.int(9)) {
    case 0:
      return p;
    case 1: {
      const i = r.int(p.length - 7) + 7;
      return p.slice(0, i) + String.fromCharCode(33 + r.int(90)) + p.slice(i + 1);
    }
    case 2:
      return p.slice(0, 7 + r.int(p.length - 7));
    case 3:
      return `${p}%`;
    case 4:
      return `${p}%00`;
    case 5:
      return p.replace(/\./g, '%2E');
    case 6:
      return `${p}/../..`;
    case 7:
      return `${p}${utf8AsLatin1('报告')}`;
    default:
      return p.toUpperCase();
  }
}

function target(r: Rng, w: World): { target: string; kind: 'mcp' | 'owner' | 'events' | 'files' | 'static' | 'device' | 'junk' } {
  const roll = r.int(100);
  if (roll < 35)
    return {
      target: r.pick(['/mcp', '/mcp', '/mcp', '/mcp/', '/mcp?x=1', `http://127.0.0.1:${w.port}/mcp`, '/MCP', '/mcp%']),
      kind: 'mcp',
    };
  if (roll < 58) {
    const action = r.chance(0.9)
      ? r.pick(OWNER_ACTION_NAMES)
      : r.pick(['', 'login-link', 'logout', '..%2Fevents', '%E0', 'x'.repeat(300), '__proto__', 'hub.info/extra']);
    return { target: `/api/owner/${action}`, kind: 'owner' };
  }
  if (roll < 63) return { target: r.pick(['/api/owner/events', '/api/owner/events?x=%', '/api/owner/events/']), kind: 'events' };
  if (roll < 75)
    return { target: r.chance(0.5) ? new URL(r.pick(w.fileLinks)).pathname : mutateToken(r, r.pick(w.fileLinks)), kind: 'files' };
  if (roll < 85)
    return {
      target: r.pick([
        '/',
        '/index.html',
        '/favicon.svg',
        '/assets/x.js',
        '/assets/../index.html',
        '/login',
        '/login?token=%',
        '/login?token=abc',
        '/.env',
        '/a/b/c',
        '/%2e%2e/%2e%2e/etc/passwd',
      ]),
      kind: 'static',
    };
  // The device door (pairing, device credential, push) and the pairing page.
  if (roll < 90)
    return {
      target: r.pick([
        '/api/device/pair/claim',
        '/api/device/pair/wait',
        '/api/device/me',
        '/api/device/push/subscribe',
        '/api/device/push/unsubscribe',
        '/api/device/action',
        '/api/device/notice',
        '/api/device/',
        '/api/device/x%',
        '/pair',
        '/pair?x=%',
      ]),
      kind: 'device',
    };
  // Path junk: percent junk, NUL, dot-dot, unicode (raw UTF-8 and encoded), very long, odd forms.
  const parts = Array.from({ length: 1 + r.int(6) }, () =>
    r.pick([
      '%',
      '%Z1',
      '%E0%A4%A',
      '%00',
      '%2F',
      '..',
      '.',
      '%2e%2e',
      utf8AsLatin1('报告'),
      encodeURIComponent('🦜'),
      '%FF%FE',
      'a',
      '',
      '\\',
      '?',
      '#',
      ';',
      '\t',
    ]),
  );
  let t = `/${parts.join('/')}`;
  const roll2 = r.int(12);
  if (roll2 === 0) t = `/${'a'.repeat(1 + r.int(40_000))}`;
  else if (roll2 === 1)
    t = r.pick(['*', '//', '///x', 'http://[bad', 'http://127.0.0.1', 'https://evil.com/mcp', 'x', '/\x00', '/a b', 'mailto:x']);
  else if (roll2 === 2) t = `/mcp/${t}`;
  return { target: t, kind: 'junk' };
}

/** The container listener's address (--listen, standing in for docker0). */
const BRIDGE = '127.0.0.2';

function headers(r: Rng, w: World, kind: string, modern: boolean): Array<[string, string]> {
  const h: Array<[string, string]> = [];
  const host = r.int(20);
  if (host < 17) h.push(['Host', r.pick([`127.0.0.1:${w.port}`, 'localhost', '127.0.0.1', '[::1]:1'])]);
  else if (host < 19 || kind === 'junk')
    h.push(['Host', r.pick(['evil.example', '', '127.0.0.1.evil', '[::1', ':', utf8AsLatin1('报告')])]);
  if (r.chance(0.15))
    h.push([
      'Origin',
      r.pick([`http://127.0.0.1:${w.port}`, 'http://localhost:1', 'https://evil.example', 'null', '', 'http://[::1', '%']),
    ]);
  if (r.chance(kind === 'owner' || kind === 'events' ? 0.5 : 0.15)) {
    h.push([
      'Cookie',
      r.pick([
        `perch_owner=${w.sessionCookie}`,
        `perch_owner=${w.sessionCookie}`,
        'perch_owner=%',
        'perch_owner=%E0%A4%A',
        '=;;',
        'perch_owner="x',
        'a=b; perch_owner=',
        `perch_owner=${'x'.repeat(5000)}`,
        utf8AsLatin1('perch_owner=报告'),
      ]),
    ]);
  }
  if (r.chance(0.5)) h.push(['X-Perch-Owner', r.pick(['1', '0', ''])]);
  // What an HTTPS front (tailscale serve) adds, Funnel's marker, a device credential.
  if (r.chance(0.2))
    h.push([
      r.pick(['X-Forwarded-For', 'X-Forwarded-Host', 'Forwarded', 'X-Real-IP', 'Tailscale-User-Login', 'Tailscale-Funnel-Request']),
      r.pick(['100.64.0.1', '?1', '', '%', utf8AsLatin1('报告')]),
    ]);
  if (kind === 'device' && r.chance(0.5))
    h.push(['Authorization', r.pick(['Bearer pd_', 'Bearer pd_nope', `Bearer pd_${'x'.repeat(300)}`])]);
  const auth = r.int(10);
  if (kind === 'mcp' ? auth < 8 : auth < 3) h.push(['Authorization', `Bearer ${w.agentKey}`]);
  else if (kind === 'owner' || kind === 'events' ? auth < 7 : auth < 5) h.push(['Authorization', `Bearer ${w.ownerToken}`]);
  else if (auth < 9)
    h.push([
      'Authorization',
      r.pick(['Bearer ', 'Bearer perch_nope', 'Basic dTpw', 'bearer x', `Bearer ${w.agentKey}x`, utf8AsLatin1('Bearer 报告')]),
    ]);
  if (r.chance(0.7))
    h.push([
      'Content-Type',
      r.pick(['application/json', 'text/plain', 'application/json; charset=latin1', '', 'multipart/form-data; boundary=x']),
    ]);
  if (r.chance(0.6)) h.push(['Accept', 'application/json, text/event-stream']);
  if (modern ? r.chance(0.95) : r.chance(0.6))
    h.push([
      'MCP-Protocol-Version',
      modern ? '2026-07-28' : r.pick(['2025-11-25', '2025-11-25', '2025-03-26', '2025-06-18', '1999-01-01', '', 'x']),
    ]);
  if (r.chance(0.15)) h.push(['Mcp-Method', r.pick(['tools/call', 'ping', '', '%'])]);
  if (r.chance(0.15))
    h.push(['Mcp-Name', r.pick(['whoami', '=?base64?5oql5ZGK?=', '=?base64?!!!?=', '=?base64??=', utf8AsLatin1('报告')])]);
  if (r.chance(0.05)) h.push(['Expect', r.pick(['100-continue', '200-ok'])]);
  if (r.chance(0.03)) h.push(['Upgrade', r.pick(['websocket', 'h2c', 'x'])], ['Connection', 'Upgrade']);
  if (r.chance(0.05)) h.push([r.pick(['X-Junk', 'X:Colon', ' Leading', 'Te st']), r.pick(['x', '\x01', utf8AsLatin1('🦜')])]);
  if (r.chance(0.02)) for (let i = 0; i < 120; i++) h.push([`X-Many-${i}`, 'y'.repeat(200)]);
  if (r.chance(0.9)) h.push(['Connection', 'close']);
  return h;
}

interface Planned {
  kind: string;
  bytes: Buffer;
  pieces?: Buffer[];
  pieceDelayMs?: number;
  label: string;
  /** Sent to the container listener. */
  bridge?: boolean;
}

/** A request for the container listener: a container's Host name (mostly) and its key (when a key was sent). */
function toBridge(where: Rng, w: World, h: Array<[string, string]>): Array<[string, string]> {
  return h.map(([k, v]): [string, string] => {
    if (k === 'Host' && where.chance(0.7))
      return [
        k,
        where.pick([
          'host.docker.internal',
          `host.docker.internal:${w.port}`,
          `host.containers.internal:${w.port}`,
          `${BRIDGE}:${w.port}`,
          'HOST.DOCKER.INTERNAL',
        ]),
      ];
    if (k === 'Authorization' && v === `Bearer ${w.agentKey}` && where.chance(0.7)) return [k, `Bearer ${w.containerKey}`];
    return [k, v];
  });
}

function plan(r: Rng, w: World, where?: Rng): Planned {
  const bridge = where?.chance(0.25) ?? false;
  const planned = planOne(r, w, bridge ? where : undefined);
  return bridge ? { ...planned, bridge, kind: `bridge:${planned.kind}` } : planned;
}

function planOne(r: Rng, w: World, where?: Rng): Planned {
  const t = target(r, w);
  const usual = t.kind === 'mcp' || t.kind === 'owner' || (t.kind === 'device' && !t.target.endsWith('/me')) ? 'POST' : 'GET';
  const method = r.chance(0.7)
    ? usual
    : r.int(20) < 17
      ? r.pick(['POST', 'GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS', 'PATCH'])
      : r.pick(['get', 'BREW', 'G\x00T', 'CONNECT', '', 'POST POST', 'X'.repeat(100)]);
  const modern = r.chance(0.3);
  let body = '';
  if ((method !== 'GET' && method !== 'HEAD') || r.chance(0.05)) {
    if (t.kind === 'mcp') body = mcpBody(r, w, modern);
    else if (t.kind === 'owner') body = ownerBody(r, w, t.target.slice('/api/owner/'.length));
    else if (t.kind === 'device' && r.chance(0.6))
      body = JSON.stringify(
        r.pick([
          { code: 'A'.repeat(22), device_name: 'x' },
          { code: 1 },
          { pairing_id: 'pair_x', claim_secret: 'y', wait_secs: 0 },
          { pairing_id: 'p', claim_secret: 'y', wait_secs: -1 },
          { token: 'x.y' },
          { endpoint: 'https://x', keys: {} },
          [],
          null,
        ]),
      );
    else if (r.chance(0.5)) body = junkBody(r, w);
  }
  const h0 = headers(r, w, t.kind, modern);
  const h = where ? toBridge(where, w, h0) : h0;
  const bodyBuf = Buffer.from(body, 'utf8');
  const label = `${method} ${t.target.slice(0, 120)}`;
  const lie = r.int(100);
  if (lie < 2) {
    // A body shorter than its Content-Length: the hub must cut it off (request timeout), not wait forever.
    return {
      kind: t.kind,
      bytes: buildRequest(method, t.target, h, bodyBuf.subarray(0, Math.floor(bodyBuf.length / 2)), bodyBuf.length + 10),
      label: `${label} [short body]`,
    };
  }
  if (lie < 4)
    return {
      kind: t.kind,
      bytes: buildRequest(method, t.target, h, bodyBuf, r.pick([-1, 0, Math.floor(bodyBuf.length / 2)])),
      label: `${label} [Content-Length lie]`,
    };
  if (lie < 5)
    return {
      kind: t.kind,
      bytes: Buffer.concat([buildRequest(method, t.target, [...h, ['Content-Length', '5']], bodyBuf, bodyBuf.length)]),
      label: `${label} [two Content-Lengths]`,
    };
  if (lie < 7) {
    const chunks = bodyBuf.length ? `${bodyBuf.length.toString(16)}\r\n${body}\r\n0\r\n\r\n` : '0\r\n\r\n';
    const bad = r.chance(0.5) ? chunks : r.pick(['zz\r\nx\r\n', `${bodyBuf.length + 5}\r\n${body}`, '5\r\nab']);
    return {
      kind: t.kind,
      bytes: Buffer.concat([buildRequest(method, t.target, [...h, ['Transfer-Encoding', 'chunked']], '', null), Buffer.from(bad, 'utf8')]),
      label: `${label} [chunked]`,
    };
  }
  const bytes = buildRequest(method, t.target, h, bodyBuf);
  if (lie < 8) {
    // Headers dribbled in, and sometimes never finished: cut off by the headers timeout.
    const cut = r.chance(0.5) ? bytes.length : Math.min(bytes.length, 20 + r.int(200));
    const pieces: Buffer[] = [];
    for (let i = 0; i < cut; i += 16) pieces.push(bytes.subarray(i, Math.min(cut, i + 16)));
    return { kind: t.kind, bytes, pieces: pieces.slice(0, 40), pieceDelayMs: 30, label: `${label} [dribbled]` };
  }
  if (lie < 10) return { kind: t.kind, bytes: bytes.subarray(0, r.int(bytes.length)), label: `${label} [truncated]` };
  return { kind: t.kind, bytes, label };
}

// ---- the run -----------------------------------------------------------------------------------

let world: World;
let checker: AgentKey;
const served = useSharedServe({ args: ['--rate', '0', '--listen', BRIDGE], env: HUB_ENV }, async () => {
  const [a, b, c] = await Promise.all(['fuzzer', 'buddy', 'checker'].map((n) => addAgent(served.dataDir, uniqueName(n))));
  checker = c!;
  const boxKey = cli(['agent', 'key', 'add', a!.name, '--name', 'in-box', '--from', 'containers', '--data-dir', served.dataDir, '--json']);
  assert.equal(boxKey.code, 0, boxKey.stderr);
  const ca = await connect('v1', served.mcpUrl, a!);
  served.closeAfter(ca);
  const g = await ca.ok('create_group', { title: 'fuzz', members: [b!.name] });
  const convId = g.conversation.conv_id as string;
  const msg = await ca.ok('send_message', { conv_id: convId, text: 'hello' });
  const fileIds: string[] = [];
  const fileLinks: string[] = [];
  for (const [name, data] of [
    ['报告.txt', Buffer.from('季度报告')],
    ['a b"c.bin', Buffer.from([0, 1, 2, 3])],
  ] as const) {
    const sent = await ca.ok('send_file', { conv_id: convId, data: data.toString('base64'), name });
    fileIds.push(sent.file_id);
    fileLinks.push((await ca.ok('file_url', { conv_id: convId, file_id: sent.file_id })).url);
  }
  const rt = runtimeInfo(served);
  const login = await fetch(`${rt.base_url}/api/owner/login-link`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${rt.owner_token}`, 'Content-Type': 'application/json' },
    body: '{}',
  });
  const loginUrl = ((await login.json()) as { value: { url: string } }).value.url;
  const session = await fetch(loginUrl, { redirect: 'manual' });
  const cookie = /perch_owner=([^;]+)/.exec(session.headers.get('set-cookie') ?? '')?.[1] ?? 'none';
  world = {
    port: served.port,
    agentKey: a!.key,
    containerKey: JSON.parse(boxKey.stdout).secret,
    ownerToken: rt.owner_token,
    sessionCookie: cookie,
    convId,
    fileIds,
    fileLinks,
    names: [b!.name, b!.id, 'nobody', 'owner'],
    msgIds: [msg.msg_id ?? msg.message?.msg_id ?? 'm_nope', 'm_nope'],
    device: pairDeviceOnFile(served.dataDir, 'Fuzz phone'),
  };
  // A few calls of a real paired device: its audit entries (one row each) must all survive the junk.
  for (let i = 0; i < 3; i++) {
    const r = await fetch(`${rt.base_url}/api/owner/requests.list`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${world.device.token}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
    assert.equal(r.status, 200, await r.text());
  }
});

function hubAlive(): boolean {
  if (served.proc.exitCode !== null || served.proc.signalCode !== null) return false;
  try {
    process.kill(served.proc.pid!, 0);
    return true;
  } catch {
    return false;
  }
}

test(`fuzz: the hub never dies, hangs or answers 5xx (seeds ${FIXED_SEED} and ${RANDOM_SEED}; replay with PERCH_FUZZ_SEED=${RANDOM_SEED})`, async () => {
  process.stdout.write(`# fuzz seeds: fixed ${FIXED_SEED}, random ${RANDOM_SEED} (PERCH_FUZZ_SEED=${RANDOM_SEED} replays it)\n`);
  const requests: Planned[] = verbatim(world.port).map((bytes) => ({
    kind: 'verbatim',
    bytes,
    label: `verbatim ${bytes.toString('latin1').split('\r\n')[0]}`,
  }));
  for (const seed of [FIXED_SEED, RANDOM_SEED]) {
    const r = new Rng(seed);
    const where = new Rng((seed ^ 0x5eed) >>> 0); // which requests go to the container listener (apart: r's sequence stays)
    for (let i = 0; i < REQUESTS_PER_SEED; i++) {
      const p = plan(r, world, where);
      requests.push({ ...p, label: `seed ${seed} #${i}: ${p.label}` });
    }
  }

  const histogram = new Map<string, number>();
  const byKind = new Map<string, Map<string, number>>();
  const failures: string[] = [];
  let next = 0;
  let done = 0;
  const started = Date.now();
  const worker = async () => {
    while (next < requests.length && failures.length < 20) {
      const req = requests[next++]!;
      const a: RawAnswer = await rawExchange(world.port, req.bytes, {
        pieces: req.pieces,
        pieceDelayMs: req.pieceDelayMs,
        timeoutMs: PER_REQUEST_TIMEOUT_MS,
        host: req.bridge ? BRIDGE : undefined,
      });
      const key = a.hung ? 'hung' : a.status === null ? 'closed' : String(a.status);
      histogram.set(key, (histogram.get(key) ?? 0) + 1);
      const kindHistogram = byKind.get(req.kind) ?? new Map<string, number>();
      byKind.set(req.kind, kindHistogram.set(key, (kindHistogram.get(key) ?? 0) + 1));
      // PERCH_FUZZ_VERBOSE=<kind> prints every answer to that kind of request (mcp, owner, files, ...).
      if (process.env.PERCH_FUZZ_VERBOSE === req.kind)
        process.stdout.write(
          `# ${key}: ${req.label} ${a.body
            .toString('utf8')
            .slice(0, 150)
            .replace(/[^\x20-\x7e]/g, '?')}\n`,
        );
      if (a.hung) failures.push(`${req.label}: no answer and no close within ${PER_REQUEST_TIMEOUT_MS} ms`);
      else if (a.status !== null && a.status >= 500)
        failures.push(`${req.label}: HTTP ${a.status} ${a.body.toString('utf8').slice(0, 300)}`);
      else if (req.bridge && req.kind !== 'bridge:mcp' && a.status !== null && a.status < 300)
        failures.push(`${req.label}: HTTP ${a.status} on the container listener, which serves /mcp only`);
      done += 1;
      if (done % 200 === 0 && !hubAlive()) failures.push(`the hub died after ${req.label}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const counts = [...histogram.entries()]
    .sort()
    .map(([k, v]) => `${k}:${v}`)
    .join(' ');
  process.stdout.write(`# fuzz: ${done} requests in ${Date.now() - started} ms; statuses ${counts}\n`);
  for (const [kind, m] of [...byKind.entries()].sort()) {
    process.stdout.write(
      `#   ${kind}: ${[...m.entries()]
        .sort()
        .map(([k, v]) => `${k}:${v}`)
        .join(' ')}\n`,
    );
  }

  assert.ok(hubAlive(), `the hub process is alive; its stderr: ${served.stderr().slice(-2000)}`);
  assert.deepEqual(failures, [], `seed ${RANDOM_SEED}: ${failures.length} bad answers; hub stderr: ${served.stderr().slice(-2000)}`);
  assert.equal(done, requests.length, 'every planned request was sent');
  assert.ok(!/perch: .*failed/.test(served.stderr()), `no internal failure was logged: ${served.stderr().slice(-2000)}`);

  // The device audit was not flooded: refusals of callers without a device credential are tallies (one row per
  // window and kind, with a count), never a row each, and the paired device's own entries are all there.
  const audit = (await ownerOk(served, 'devices.audit', { limit: 500 })).entries as Array<{
    device_id: string | null;
    outcome: string;
    count: number | null;
    action: string;
  }>;
  const singles = audit.filter((e) => e.device_id === null && e.outcome.startsWith('refused') && e.count == null);
  const tallies = audit.filter((e) => e.count != null);
  const deviceDoorRequests = byKind.get('device') ? [...byKind.get('device')!.values()].reduce((a, b) => a + b, 0) : 0;
  process.stdout.write(
    `#   audit: ${tallies.length} tally rows counting ${tallies.reduce((n, e) => n + (e.count ?? 0), 0)} refusals (of ${deviceDoorRequests} device-door requests), ${singles.length} single rows of unauthenticated refusals\n`,
  );
  assert.deepEqual(
    singles.map((e) => `${e.action} ${e.outcome}`),
    [],
    'no refusal without a device credential is written as a row of its own',
  );
  assert.ok(tallies.length <= 40, `the junk is a handful of tally rows (${tallies.length})`);
  const mine = (await ownerOk(served, 'devices.audit', { device_id: world.device.id })).entries as Array<{
    action: string;
    outcome: string;
  }>;
  assert.equal(
    mine.filter((e) => e.action === 'requests.list' && e.outcome === 'ok').length,
    3,
    "the paired device's entries are all there",
  );

  // Afterwards it still serves normally: a real tools/call over the official client, and the UI.
  const c = await connect('v2', served.mcpUrl, checker);
  served.closeAfter(c);
  const me = await c.ok('whoami');
  assert.equal(me.name ?? me.agent?.name ?? me.user?.name, checker.name);
  const convs = await c.ok('list_conversations');
  assert.ok(Array.isArray(convs.conversations), 'list_conversations answers with its list');
  const ui = await fetch(`http://127.0.0.1:${world.port}/`, { signal: AbortSignal.timeout(10_000) });
  const html = await ui.text();
  if (fs.existsSync(path.join(ROOT, 'dist', 'renderer', 'index.html'))) {
    assert.equal(ui.status, 200);
    assert.match(html, /<html|<!doctype html/i, 'the UI index loads');
  } else {
    assert.equal(ui.status, 503, 'an unbuilt UI is a deliberate 503');
  }
});
