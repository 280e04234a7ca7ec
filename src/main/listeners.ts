// The hub's HTTP listeners: the main one on 127.0.0.1 (MCP, the owner API, the UI: app.ts) and the extra ones an
// agent away from the loopback reaches: on the container bridge addresses found on this computer (`perch serve
// --containers`: docker0, Docker's user networks br-*, Podman's podman*/cni-podman*) or on addresses given by hand
// (`--listen ADDR`). An extra listener serves /mcp (and the hook doors /hook/…) ONLY, to Host names a container uses for this computer
// (host.docker.internal, host.containers.internal) or its own address; a request there is from the place
// `containers` (shared/agents/places.ts), and only keys allowed there (or an address range holding the caller) log in.
// Docker Desktop and Podman machine have no bridge on this computer: their proxy brings a container's request to the
// loopback listener with Host host.docker.internal, taken as place `containers` while containers are on (proxiedMcp).
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import type { McpHandler } from './mcp/endpoint';
import { sendJson, totalHandler } from './http-util';
import { hubServer, listenOn, type ServerLimits } from './hub-server';
export { hubServer, listenOn, type ServerLimits } from './hub-server';
import type { RequestPlace } from '../shared/agents/places';
import type { PerchHub } from './hub/services';
import { checkFront, isFunnelRequest, sendRefusal } from './owner/device-door';
import { publicUrl } from './hub/phone/devices';
import { serveFileLink } from './owner/files-door';
import { isAwayFileToken } from './hub/features/files/files';
import { isOtlpPath } from './mcp/otlp-door';

/** The Host names containers use for the computer they run on. */
export const CONTAINER_HOSTS: readonly string[] = ['host.docker.internal', 'host.containers.internal'];

/** Interfaces that are container bridges: Docker's docker0 and user networks (br-<id>), Podman's (rootful). */
const BRIDGE_NAME = /^(docker\d+|br-[0-9a-f]{6,}|podman\d+|cni-podman\d+)$/;

export interface BridgeAddress {
  /** The interface, e.g. docker0. */
  name: string;
  /** Its IPv4 address on this computer, e.g. 172.17.0.1. */
  address: string;
}

/** The container bridges of this computer (their IPv4 addresses), from the network interfaces. */
export function containerBridges(ifaces: NodeJS.Dict<os.NetworkInterfaceInfo[]> = os.networkInterfaces()): BridgeAddress[] {
  const out: BridgeAddress[] = [];
  for (const [name, infos] of Object.entries(ifaces)) {
    if (!BRIDGE_NAME.test(name)) continue;
    for (const i of infos ?? []) if (i.family === 'IPv4' && !i.internal) out.push({ name, address: i.address });
  }
  // Tests only (no container runtime here): a loopback address standing in for a bridge; nothing a caller sends sets it.
  const stand = process.env.PERCH_TEST_CONTAINER_BRIDGE;
  if (stand && /^127\.\d+\.\d+\.\d+$/.test(stand) && stand !== '127.0.0.1') out.push({ name: 'test-bridge', address: stand });
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

/** An address as given to --listen, brackets and spaces taken off. */
function listenAddress(text: string): string {
  return text.trim().replace(/^\[(.*)\]$/, '$1');
}

/** The unspecified addresses (every interface) in any spelling: 0.0.0.0, ::, 0:0:0:0:0:0:0:0, ::ffff:0.0.0.0. */
const EVERY_ADDRESS = new net.BlockList();
EVERY_ADDRESS.addAddress('0.0.0.0');
EVERY_ADDRESS.addAddress('::', 'ipv6');
/** The main listener's address in any spelling (127.0.0.1, ::ffff:127.0.0.1). */
const MAIN_ADDRESS = new net.BlockList();
MAIN_ADDRESS.addAddress('127.0.0.1');

/** An address given to --listen: an IP address of this computer (not a name, not 0.0.0.0 in any spelling). */
export function checkListenAddress(text: string): string | undefined {
  const a = listenAddress(text);
  const family = net.isIP(a);
  if (!family) return `--listen ${JSON.stringify(text)}: give an IP address of this computer, e.g. 172.17.0.1 (the docker0 bridge).`;
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (EVERY_ADDRESS.check(a, type))
    return `--listen ${a}: every address would expose /mcp to every network; give one address (the bridge's).`;
  if (MAIN_ADDRESS.check(a, type)) return `--listen ${a}: the main listener is there already (127.0.0.1).`;
  return undefined;
}

/** How one listener is described in the ready line and runtime.json. */
export interface ListenerInfo {
  url: string;
  /** What it serves: the main one everything, the extra ones mcp only. */
  serves: string[];
  /** Where requests on it come from (shared/agents/places.ts). */
  place: 'local' | 'containers';
  /** For an extra listener: the interface (docker0 …) or "--listen". */
  via?: string;
  /** The MCP URL an agent in a container uses (its Host name for this computer). */
  container_mcp_url?: string;
}

/** The host part of a Host header (brackets kept off an IPv6 literal), lower-cased. */
function hostName(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']')).toLowerCase();
  const colon = host.indexOf(':');
  return (colon < 0 ? host : host.slice(0, colon)).toLowerCase();
}

/** The socket's remote address, IPv4-mapped IPv6 as plain IPv4. */
function remoteOf(req: http.IncomingMessage): string {
  const a = req.socket.remoteAddress ?? '';
  return a.startsWith('::ffff:') ? a.slice(7) : a;
}

function refuse(res: http.ServerResponse, status: number, code: string, message: string, next: string): void {
  sendJson(res, status, { ok: false, error: { code, message, next_step: next } }, { 'Cache-Control': 'no-store' });
}

/**
 * The handler of an extra listener on `address` (interface `via`): /mcp and the harness hook doors (/hook/…, `hooks`)
 * with a container's Host name or the address itself and no Origin (no browser page calls it), as place
 * `containers`; everything else 404.
 */
export function extraListenerHandler(
  hub: PerchHub,
  mcp: McpHandler,
  address: string,
  via: string,
  hooks?: McpHandler,
): http.RequestListener {
  const own = address.toLowerCase();
  return totalHandler((req, res, target) => {
    const p = target.pathname;
    // A file link made for an agent that called on this listener (its own form: an owner's link is not one).
    const fileToken = p.startsWith('/files/') ? target.path.slice('/files/'.length) : undefined;
    const agentFile = fileToken !== undefined && isAwayFileToken(fileToken, 'containers');
    const hook = !!hooks && (p === '/hook' || p.startsWith('/hook/') || isOtlpPath(p));
    if (p !== '/mcp' && p !== '/mcp/' && !agentFile && !hook) {
      req.resume();
      return refuse(
        res,
        404,
        'not_found',
        `Only /mcp is served on ${address} (the listener for agents in containers); the owner's app, login, files and pairing are on this computer's loopback only.`,
        `Agents: POST JSON-RPC to http://host.docker.internal:PORT/mcp (or host.containers.internal).`,
      );
    }
    const host = req.headers.host;
    const name = typeof host === 'string' ? hostName(host) : '';
    if (!CONTAINER_HOSTS.includes(name) && name !== own) {
      req.resume();
      return refuse(
        res,
        403,
        'forbidden',
        `Forbidden: the Host header must name this computer as a container sees it (${CONTAINER_HOSTS.join(' or ')}, or ${address}).`,
        'Use http://host.docker.internal:PORT/mcp (Docker) or http://host.containers.internal:PORT/mcp (Podman).',
      );
    }
    if (req.headers.origin !== undefined) {
      req.resume();
      return refuse(
        res,
        403,
        'forbidden',
        'Forbidden: requests from a web page (with an Origin) are refused on the container listener.',
        'MCP clients send no Origin.',
      );
    }
    if (agentFile) {
      req.resume();
      return serveFileLink(hub, req, res, fileToken, 'containers');
    }
    // The URL the container reached this listener by: file links handed to the agent start with it.
    const base = `http://${name.includes(':') ? `[${name}]` : name}:${req.socket.localPort ?? ''}`;
    const at: RequestPlace = {
      place: 'containers',
      address: remoteOf(req),
      via: `${via === '--listen' ? 'listener' : `container bridge ${via}`} ${address}`,
      base_url: base,
    };
    return hook ? hooks!(req, res, at) : mcp(req, res, at);
  });
}

/**
 * The Host names under which a container runtime's user-space proxy (Docker Desktop, Podman machine, rootless Podman)
 * hands a container's request to this computer's loopback: the container asked for host.docker.internal (or Podman's
 * host.containers.internal, or Docker Desktop's gateway.docker.internal) and the proxy connected to 127.0.0.1.
 */
export const PROXY_HOSTS: readonly string[] = [...CONTAINER_HOSTS, 'gateway.docker.internal'];

/** Whether a request on the loopback listener names one of PROXY_HOSTS as Host (no port, or the listener's port). */
export function isProxyHost(req: http.IncomingMessage): boolean {
  const host = req.headers.host;
  if (typeof host !== 'string' || host.length > 64) return false;
  const m = /^([a-z.]+)(?::(\d{1,5}))?$/.exec(host.toLowerCase());
  return !!m && PROXY_HOSTS.includes(m[1]!) && (m[2] === undefined || Number(m[2]) === req.socket.localPort);
}

/**
 * A request on the loopback listener that a container runtime's proxy brought (isProxyHost): the place `containers`
 * when the owner turned containers on (`perch serve --containers`, the Settings switch) and it carries no Origin (an
 * MCP client sends none; a browser always does on a cross-origin POST). Otherwise a refusal: the loopback answers such
 * a Host as it always has, 403. The caller's address is the proxy's (127.0.0.1), so address ranges do not apply.
 */
export function proxiedPlace(
  hub: PerchHub,
  req: http.IncomingMessage,
): { at: RequestPlace } | { refusal: [number, string, string, string] } {
  if (!hub.doors.containerSwitch?.enabled()) {
    return {
      refusal: [
        403,
        'forbidden',
        'Forbidden: the Host header must name this computer (127.0.0.1 or localhost); agents in containers are turned off.',
        'To let agents in containers (Docker Desktop, Podman) connect: perch serve --containers, or Settings → Agents in containers; and allow the key containers (perch agent key from NAME local,containers).',
      ],
    };
  }
  if (req.headers.origin !== undefined) {
    return {
      refusal: [
        403,
        'forbidden',
        'Forbidden: requests from a web page (with an Origin) are refused for agents in containers.',
        'MCP clients send no Origin.',
      ],
    };
  }
  const name = hostName(req.headers.host!);
  return {
    at: {
      place: 'containers',
      address: remoteOf(req),
      via: `container runtime proxy on loopback (Host ${name})`,
      base_url: `http://${name}:${req.socket.localPort ?? ''}`,
      proxied: true,
    },
  };
}

/** /mcp on the loopback listener with a container runtime's Host name (proxiedPlace): as place containers, or 403. */
export function proxiedMcp(hub: PerchHub, mcp: McpHandler, req: http.IncomingMessage, res: http.ServerResponse): void {
  const p = proxiedPlace(hub, req);
  if ('refusal' in p) {
    req.resume();
    return refuse(res, ...p.refusal);
  }
  return mcp(req, res, p.at);
}

/**
 * GET /files/<token> on the loopback listener with a container runtime's Host name: served only for a file link made
 * for an agent that called as a container (its own form), with the checks of proxiedPlace. Returns false for anything
 * else: the owner door refuses it as before.
 */
export function proxiedFileLink(hub: PerchHub, req: http.IncomingMessage, res: http.ServerResponse, token: string): boolean {
  if (!isAwayFileToken(token, 'containers') || 'refusal' in proxiedPlace(hub, req)) return false;
  req.resume();
  serveFileLink(hub, req, res, token, 'containers');
  return true;
}

/**
 * /mcp through the HTTPS front (`tailscale serve`, `--public-url`): for keys allowed `tailnet`, with the phone front's
 * checks (Funnel refused; Host the public URL's or loopback; Origin, when sent, the public URL's or loopback). Without
 * a public URL set, refused as before.
 */
export function frontMcp(hub: PerchHub, mcp: McpHandler, req: http.IncomingMessage, res: http.ServerResponse): void {
  if (!isFunnelRequest(req) && !publicUrl(hub)) {
    req.resume();
    return refuse(
      res,
      403,
      'forbidden',
      'The MCP endpoint is not served through the HTTPS front: no public URL is set.',
      'Agents on this computer use http://127.0.0.1:PORT/mcp; for agents on your other machines run `perch serve --public-url https://…ts.net` and allow their key the tailnet (`perch agent key from NAME tailnet`).',
    );
  }
  const check = checkFront(hub, req);
  if (check.refusal) {
    req.resume();
    return sendRefusal(res, check.refusal);
  }
  const fwd = req.headers['x-forwarded-for'];
  const address = (Array.isArray(fwd) ? fwd[0] : fwd)?.split(',')[0]?.trim().slice(0, 100) || remoteOf(req);
  const login = req.headers['tailscale-user-login'];
  const who = typeof login === 'string' && login ? `${login.slice(0, 100)} at ` : '';
  return mcp(req, res, { place: 'tailnet', address, via: `tailnet, ${who}${address}`, base_url: publicUrl(hub) ?? undefined });
}

/**
 * GET /files/<token> through the HTTPS front: served only for a file link made for an agent that called through the
 * front (file_url answers it with the public URL), with the front's checks (Funnel refused, Host and Origin). Returns
 * false for anything else: the owner door refuses it as before (the owner's file links are for the laptop only).
 */
export function frontFileLink(hub: PerchHub, req: http.IncomingMessage, res: http.ServerResponse, token: string): boolean {
  if (!isAwayFileToken(token, 'tailnet') || !publicUrl(hub)) return false;
  const check = checkFront(hub, req);
  if (check.refusal) return false; // the owner door refuses it with the same reason
  req.resume();
  serveFileLink(hub, req, res, token, 'tailnet');
  return true;
}

/**
 * Starts the extra listeners on `port`: the container bridges found (with containers) and the addresses given by
 * hand. A bridge that cannot be listened on is skipped with a note; an address given by hand that cannot is an error.
 * No bridge found: a note says so, and the hub serves on loopback alone.
 */
export async function startExtraListeners(o: {
  hub: PerchHub;
  mcp: McpHandler;
  hooks: McpHandler;
  port: number;
  limits: ServerLimits;
  containers: boolean;
  listen: readonly string[];
  skip?: readonly string[];
}): Promise<{ servers: http.Server[]; listeners: ListenerInfo[]; notes: string[] }> {
  const servers: http.Server[] = [];
  const listeners: ListenerInfo[] = [];
  const notes: string[] = [];
  // An address given twice (either spelling) is one listener: a second would fail as if the port were taken.
  const wanted: Array<BridgeAddress & { byHand: boolean }> = [...new Set(o.listen.map(listenAddress))].map((address) => ({
    name: '--listen',
    address,
    byHand: true,
  }));
  if (o.containers) {
    const bridges = containerBridges();
    if (bridges.length === 0)
      notes.push(
        `No container bridge found on this computer (docker0, br-*, podman*, cni-podman*): ${o.listen.length || o.skip?.length ? 'serving /mcp on the --listen addresses and loopback only' : 'serving on loopback only'}. Docker Desktop and Podman machine need no bridge: their containers reach /mcp at http://host.docker.internal:${o.port}/mcp through the loopback. Docker on Linux or rootful Podman: start it and restart, or give an address with --listen.`,
      );
    for (const b of bridges)
      if (!wanted.some((w) => w.address === b.address) && !o.skip?.includes(b.address)) wanted.push({ ...b, byHand: false });
  }
  try {
    for (const w of wanted) {
      const server = hubServer(o.limits, extraListenerHandler(o.hub, o.mcp, w.address, w.name, o.hooks));
      try {
        await listenOn(server, o.port, w.address);
      } catch (err) {
        if (w.byHand)
          throw Object.assign(new Error(`cannot listen on ${w.address}:${o.port}: ${(err as Error).message}`), {
            code: (err as { code?: string }).code,
          });
        notes.push(`Could not listen on ${w.name} (${w.address}:${o.port}): ${(err as Error).message}; skipped.`);
        continue;
      }
      servers.push(server);
      const host = w.address.includes(':') ? `[${w.address}]` : w.address;
      listeners.push({
        url: `http://${host}:${o.port}`,
        serves: ['mcp'],
        place: 'containers',
        via: w.name,
        container_mcp_url: `http://host.docker.internal:${o.port}/mcp`,
      });
    }
  } catch (err) {
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    throw err;
  }
  return { servers, listeners, notes };
}
