// The fuzzer's requests (test/stress/fuzz.test.ts): raw HTTP requests built from a seeded Rng and the world the fuzzer
// knows (real keys, ids and links) — junk methods, paths, headers and bodies across every door, a quarter of them to the
// container listener — and the requests that once crashed the hub, sent verbatim.
import crypto from 'node:crypto';
import { TOOLS, toolInputJsonSchema } from '../../src/shared/api/catalog';
import { OWNER_ACTIONS } from '../../src/shared/api/owner-api';
import { buildRequest } from './raw-http';
import { Rng } from './rng';

// ---- the world the fuzzer knows (real keys, ids and links) -------------------------------------

export interface World {
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
export function verbatim(port: number): Buffer[] {
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
export const BRIDGE = '127.0.0.2';

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

export interface Planned {
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

export function plan(r: Rng, w: World, where?: Rng): Planned {
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
