// Where a key may connect from, chosen by the owner per key: local (loopback on this computer, the default),
// containers (the listener on the container bridge: `perch serve --containers` or `--listen ADDR`), tailnet (/mcp
// through the HTTPS front, `--public-url`), or IPv4 address ranges (CIDR, e.g. 172.18.0.0/16) of callers on the
// extra listeners. Pure TypeScript: no Node, no DOM. The hub checks it where a key logs in (hub/identity/key-login.ts).

export const PLACE_NAMES = ['local', 'containers', 'tailnet'] as const;
export type PlaceName = (typeof PLACE_NAMES)[number];
export const DEFAULT_PLACES: readonly string[] = Object.freeze(['local']);
/** At most this many places per key. */
export const MAX_PLACES = 16;

/** Where one request came from, as the door that received it says. */
export interface RequestPlace {
  place: PlaceName;
  /** The caller's address: the socket's, or (through the front) the one the front forwarded. */
  address: string;
  /** In a few words, for the owner and the agent: "loopback", "container bridge docker0 (172.17.0.1)", "tailnet host …". */
  via: string;
  /**
   * The URL the caller reached the hub by, when it is not the loopback (the container listener as the container names
   * it, or the public URL of the HTTPS front): file links handed to it start with it (hub/features/files/files.ts).
   */
  base_url?: string;
  /**
   * The request came through a container runtime's user-space proxy onto the loopback (Docker Desktop, Podman machine):
   * its address is the proxy's, not the container's, so address ranges do not apply to it.
   */
  proxied?: boolean;
}

export class PlacesError extends Error {}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

/** The IPv4 address as a 32-bit number (an IPv4-mapped IPv6 form too), or undefined. */
export function ipv4Number(address: string): number | undefined {
  const m = IPV4.exec(address.startsWith('::ffff:') ? address.slice(7) : address);
  if (!m) return undefined;
  const parts = m.slice(1, 5).map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  return ((parts[0]! << 24) >>> 0) + (parts[1]! << 16) + (parts[2]! << 8) + parts[3]!;
}

/** An IPv4 range "a.b.c.d/n" as [network, mask], or undefined when it is not one. */
function parseCidr(text: string): [number, number] | undefined {
  const m = /^([0-9.]+)\/(\d{1,2})$/.exec(text);
  if (!m) return undefined;
  const base = ipv4Number(m[1]!);
  const bits = Number(m[2]);
  if (base === undefined || bits > 32) return undefined;
  const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
  return [(base & mask) >>> 0, mask];
}

/**
 * A key's places as stored: names lower-cased, ranges as written (network address), no repeats, known names first.
 * Accepts an array or a comma-separated string. Anything else throws PlacesError naming what is wrong.
 */
export function normalizePlaces(input: unknown): string[] {
  const items = typeof input === 'string' ? input.split(',') : Array.isArray(input) ? input : undefined;
  if (!items) throw new PlacesError('Places must be a list such as ["local", "containers"].');
  const names = new Set<string>();
  const ranges = new Set<string>();
  for (const raw of items) {
    if (typeof raw !== 'string') throw new PlacesError(`Place ${JSON.stringify(raw)} is not a string.`);
    const item = raw.trim().toLowerCase();
    if (item === '') continue;
    if ((PLACE_NAMES as readonly string[]).includes(item)) {
      names.add(item);
      continue;
    }
    const cidr = parseCidr(item);
    if (!cidr)
      throw new PlacesError(
        `Place ${JSON.stringify(raw.slice(0, 60))} is not valid: use local, containers, tailnet or an IPv4 range such as 172.18.0.0/16.`,
      );
    const n = cidr[0];
    ranges.add(`${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}/${item.split('/')[1]!.replace(/^0+(?=\d)/, '')}`);
  }
  const out = [...PLACE_NAMES.filter((p) => names.has(p)), ...ranges];
  if (out.length === 0) throw new PlacesError('Give at least one place: local, containers, tailnet or an IPv4 range.');
  if (out.length > MAX_PLACES) throw new PlacesError(`At most ${MAX_PLACES} places per key.`);
  return out;
}

/**
 * Whether a place is an IPv4 range covering every address (prefix length 0: 0.0.0.0/0, or any a.b.c.d/0). Places take
 * IPv4 ranges only (normalizePlaces), so there is no other form to tell.
 */
export function coversEveryAddress(range: string): boolean {
  return parseCidr(range.trim())?.[1] === 0;
}

/**
 * What the owner should know about places that are allowed but likely a mistake, or undefined: a range covering every
 * address (kept, an owner may mean it) lets the key connect from any address a listener of the hub reaches. One line.
 */
export function placesWarning(places: readonly string[]): string | undefined {
  const wide = places.filter(coversEveryAddress);
  if (wide.length === 0) return undefined;
  return `${wide.join(', ')} covers every address: this key may then connect from any address a listener of this hub reaches, not only your containers.`;
}

/** A stored places column (JSON array); the default when it is unreadable. */
export function readPlaces(stored: string | null | undefined): readonly string[] {
  if (!stored || stored === '["local"]') return DEFAULT_PLACES;
  try {
    const v = JSON.parse(stored) as unknown;
    return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string') ? (v as string[]) : DEFAULT_PLACES;
  } catch {
    return DEFAULT_PLACES;
  }
}

/**
 * Whether a key with these places may be used from `at`. A range allows callers from its addresses on the extra
 * listeners (place containers); the loopback and the front are allowed by name only.
 */
export function placeAllowed(allowed: readonly string[], at: RequestPlace): boolean {
  if (allowed.includes(at.place)) return true;
  if (at.place !== 'containers' || at.proxied) return false;
  const addr = ipv4Number(at.address);
  if (addr === undefined) return false;
  return allowed.some((p) => {
    const cidr = p.includes('/') ? parseCidr(p) : undefined;
    return !!cidr && (addr & cidr[1]) >>> 0 === cidr[0];
  });
}

/** Where a request on the loopback listener comes from. */
export const LOCAL_PLACE: RequestPlace = Object.freeze({ place: 'local', address: '127.0.0.1', via: 'loopback' });

/** The container listener switch (owner actions containers.get / containers.set, Settings → Agents in containers). */
export interface ContainersState {
  /** The owner's setting: start the container listener with the hub (and now). */
  on: boolean;
  /** Whether `perch serve --containers` turned it on for this run whatever the setting. */
  forced: boolean;
  /** The container bridge listeners running now (url, interface). */
  listeners: Array<{ url: string; via: string }>;
  /** The MCP URL an agent in a container uses while a listener runs, else null. */
  container_mcp_url: string | null;
  /** The container bridges found on this computer (interface and address). */
  bridges: Array<{ name: string; address: string }>;
  /** What the owner should know (e.g. no container bridge found), else null. */
  note: string | null;
}
