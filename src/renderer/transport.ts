// The renderer's only door to the hub. In the desktop app the preload exposes window.perch (IPC);
// in a browser (`perch serve`) the same contract goes over fetch + Server-Sent Events (read with fetch), with the
// owner's session token from the login link as a bearer header.
import {
  OWNER_API_PREFIX,
  OWNER_EVENTS_PATH,
  OWNER_EXPORT_PATH,
  OWNER_LOGIN_PATH,
  OWNER_LOGOUT_PATH,
  OWNER_SESSION_PATH,
  OWNER_SESSION_STORAGE_KEY,
} from '../shared/api/owner-paths';
import type { OwnerAction, OwnerInput, OwnerReply, OwnerResults } from '../shared/api/owner-api';
import type { NavigateTarget, PerchBridge } from '../shared/ipc';
import { visibleDeep } from '../shared/text/text';
import {
  DEVICE_ME_PATH,
  DEVICE_PAIR_CLAIM_PATH,
  DEVICE_PAIR_WAIT_PATH,
  DEVICE_PUSH_SUBSCRIBE_PATH,
  DEVICE_PUSH_UNSUBSCRIBE_PATH,
  DEVICE_TOKEN_STORAGE_KEY,
} from '../shared/features/devices';
import type { LiveItem } from './model';

/**
 * What the Electron preload exposes as `window.perch` (defined once in src/shared/ipc.ts):
 *
 *   interface PerchBridge {
 *     call(action: string, input?: unknown): Promise<OwnerReply>;   // {ok:true,value} | {ok:false,error}
 *     onEvent(cb: (item: unknown) => void): () => void;              // each item a LiveItem
 *     setFocus(convId: string | null): void;                          // the conversation on screen
 *     onNavigate(cb: (target: NavigateTarget) => void): () => void;   // a notification was clicked
 *   }
 */
export type { PerchBridge };
export type { LiveItem };

declare global {
  interface Window {
    perch?: PerchBridge;
  }
}

export type LinkStatus = 'connecting' | 'live' | 'offline' | 'unauthorized';

/** The transport the UI uses, whichever door is underneath. */
export interface Transport {
  readonly kind: 'electron' | 'http';
  call(action: OwnerAction, input: unknown): Promise<OwnerReply>;
  /** Like call, for a large input (a file): onProgress(0..1) tells how much of it reached the hub. */
  upload(action: OwnerAction, input: unknown, onProgress: (sent: number) => void): Promise<OwnerReply>;
  /** Opened from a login link: spends its one-time token for a session. Resolves with a refusal to show, if any. */
  signIn(): Promise<string | undefined>;
  /** Ends the owner's session (the browser only; the desktop window needs none). */
  signOut(): Promise<void>;
  /** Live items as they happen; onStatus tells whether the stream is up. Returns an unsubscribe. */
  subscribe(onItem: (item: LiveItem) => void, onStatus: (status: LinkStatus) => void): () => void;
  /** Tells the desktop shell which conversation is on screen (no OS notification for it). */
  setFocus(convId: string | null): void;
  /** The desktop shell asks to open a conversation, a request's card or the inbox (a notification was clicked). */
  onNavigate(cb: (target: NavigateTarget) => void): () => void;
  /** A file link from files.url, as this page can load it (same origin in the browser). */
  fileHref(url: string): string;
}

const unreachable = (detail: string): OwnerReply => ({
  ok: false,
  error: {
    code: 'unavailable',
    message: `Cannot reach the Perch hub (${detail}).`,
    next_step: 'Check that `perch serve` is still running, then retry.',
  },
});

function isLiveItem(v: unknown): v is LiveItem {
  return !!v && typeof v === 'object' && typeof (v as { kind?: unknown }).kind === 'string' && 'value' in v;
}

function electronTransport(bridge: PerchBridge): Transport {
  return {
    kind: 'electron',
    call: (action, input) => bridge.call(action, input ?? {}),
    // IPC hands the input over at once: there is no progress to tell until the answer.
    upload: async (action, input, onProgress) => {
      onProgress(0);
      const r = await bridge.call(action, input ?? {});
      onProgress(1);
      return r;
    },
    signIn: () => Promise.resolve(undefined),
    signOut: () => Promise.resolve(),
    subscribe(onItem, onStatus) {
      onStatus('live');
      return bridge.onEvent((item) => {
        if (isLiveItem(item)) onItem(visibleDeep(item)); // the hub sent visible text already: defence in depth
      });
    },
    setFocus: (convId) => bridge.setFocus?.(convId),
    onNavigate: (cb) => bridge.onNavigate?.(cb) ?? (() => {}),
    fileHref: (url) => url,
  };
}

// ---- the browser's owner session --------------------------------------------------------------
// The session token lives in this origin's localStorage (per origin, port included, so no other local web server
// can read it; a reload or a new tab keeps the owner signed in) and goes out as `Authorization: Bearer` on every
// call. No cookie: browsers send cookies to every port of 127.0.0.1.

/** A credential kept in this origin's localStorage under key (or, when storage is refused, for this page's life). */
function keptToken(key: string) {
  let memory: string | null = null;
  return {
    get(): string | null {
      try {
        return localStorage.getItem(key) ?? memory;
      } catch {
        return memory;
      }
    },
    set(token: string | null): void {
      try {
        if (token) localStorage.setItem(key, token);
        else localStorage.removeItem(key);
      } catch {
        /* storage refused (private mode): the credential lasts as long as this page */
      }
      memory = token;
    },
  };
}

const session = keptToken(OWNER_SESSION_STORAGE_KEY);
const currentSession = session.get;
const storeSession = session.set;

// ---- a paired phone's device credential ----------------------------------------------
// A phone has no owner session: it holds a device credential (`pd_…`, from the /pair page) in localStorage
// 'perch.device.token' and sends it as the bearer of the owner API and the live stream, with its scope. The owner
// session, when there is one, wins. A 401 on the device credential means the laptop revoked it: it is forgotten and
// the UI says so.

const device = keptToken(DEVICE_TOKEN_STORAGE_KEY);
/** Keeps (or forgets, with null) this phone's device credential. */
export const storeDeviceToken = device.set;
const currentDeviceToken = device.get;

/** The UI runs with a device credential: no owner session, but a paired phone's credential. */
export function deviceMode(): boolean {
  return !currentSession() && !!currentDeviceToken();
}

let deviceRevoked = false;
/** Whether a call answered 401 to the device credential (the laptop revoked this phone); it was forgotten then. */
export function wasDeviceRevoked(): boolean {
  return deviceRevoked;
}

/** Forgets a device credential the hub refused (401): it was revoked (or never existed). */
function dropDeviceToken(): void {
  storeDeviceToken(null);
  deviceRevoked = true;
}

function authHeaders(): Record<string, string> {
  const token = currentSession() ?? currentDeviceToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** Forgets the credential a 401 refused: the owner session if it was one, else the device credential. */
function dropRefused(sent: Record<string, string>): void {
  const bearer = sent.Authorization?.slice('Bearer '.length);
  if (!bearer) return;
  if (bearer === currentSession()) storeSession(null);
  else if (bearer === currentDeviceToken()) dropDeviceToken();
}

const UNAUTHORIZED: OwnerReply = {
  ok: false,
  error: {
    code: 'unauthorized',
    message: 'The owner session is missing or expired.',
    next_step: 'Open the login link printed by `perch serve`.',
  },
};

/** POSTs JSON to the hub; 401 forgets the stored session (it is expired or ended). */
let leaving = false;
/** The page is going away: what is sent from now on must outlive it (a small request is kept alive). */
export function markLeaving(): void {
  leaving = true;
}

async function postJson(path: string, body: unknown, headers: Record<string, string>): Promise<OwnerReply> {
  let res: Response;
  try {
    const json = JSON.stringify(body ?? {});
    res = await fetch(path, {
      method: 'POST',
      credentials: 'omit',
      cache: 'no-store',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: json,
      keepalive: leaving && json.length < 60_000, // the browser's keepalive budget is 64 KiB
    });
  } catch (err) {
    return unreachable(err instanceof Error ? err.message : String(err));
  }
  if (res.status === 401 && headers.Authorization) dropRefused(headers);
  try {
    return (await res.json()) as OwnerReply;
  } catch {
    if (res.status === 401) return UNAUTHORIZED;
    return unreachable(`HTTP ${res.status}`);
  }
}

/**
 * POSTs JSON with XMLHttpRequest, whose upload events tell how much of the body was sent (fetch cannot); same
 * answers as postJson.
 */
function postJsonWithProgress(
  path: string,
  body: unknown,
  headers: Record<string, string>,
  onProgress: (sent: number) => void,
): Promise<OwnerReply> {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', path);
    xhr.withCredentials = false;
    for (const [k, v] of Object.entries({ 'Content-Type': 'application/json', ...headers })) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status === 401 && headers.Authorization) dropRefused(headers);
      try {
        resolve(JSON.parse(xhr.responseText) as OwnerReply);
      } catch {
        resolve(xhr.status === 401 ? UNAUTHORIZED : unreachable(`HTTP ${xhr.status}`));
      }
    };
    xhr.onerror = () => resolve(unreachable('the upload was cut off'));
    xhr.ontimeout = () => resolve(unreachable('the upload timed out'));
    onProgress(0);
    xhr.send(JSON.stringify(body ?? {}));
  });
}

/** Splits an SSE byte stream into the `data` of each event (comments, `retry:` and `id:` lines are skipped). */
async function readEvents(body: ReadableStream<Uint8Array>, onData: (data: string) => void): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return;
    buf += decoder.decode(value, { stream: true }).replace(/\r\n?/g, '\n');
    let sep: number;
    while ((sep = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, sep);
      buf = buf.slice(sep + 2);
      const data = block
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(l.startsWith('data: ') ? 6 : 5))
        .join('\n');
      if (data) onData(data);
    }
  }
}

function httpTransport(): Transport {
  const call = (action: OwnerAction, input: unknown): Promise<OwnerReply> =>
    postJson(OWNER_API_PREFIX + action, input ?? {}, authHeaders());

  return {
    kind: 'http',
    call,
    upload: (action, input, onProgress) => postJsonWithProgress(OWNER_API_PREFIX + action, input ?? {}, authHeaders(), onProgress),
    async signIn() {
      // The login link is /login#token=…: the fragment never reaches a server (nor a Referer). Spend it once,
      // keep the session, and take the token out of the address bar and the history entry at once.
      if (location.pathname !== OWNER_LOGIN_PATH) return undefined;
      const token = new URLSearchParams(location.hash.slice(1)).get('token');
      history.replaceState(null, '', '/');
      if (!token) return undefined;
      const r = await postJson(OWNER_SESSION_PATH, { token }, {});
      if (!r.ok) return r.error.message;
      storeSession((r.value as { session: string }).session);
      return undefined;
    },
    async signOut() {
      const headers = authHeaders();
      storeSession(null);
      if (headers.Authorization) await postJson(OWNER_LOGOUT_PATH, {}, headers);
    },
    subscribe(onItem, onStatus) {
      let retry: ReturnType<typeof setTimeout> | undefined;
      let closed = false;
      let delay = 500;
      let abort: AbortController | null = null;
      const again = (status: LinkStatus) => {
        if (closed) return;
        onStatus(status);
        retry = setTimeout(open, delay);
        delay = Math.min(delay * 2, 10_000);
      };
      // EventSource cannot send a header, so the stream is read with fetch(); same states, same reconnects.
      const open = () => {
        if (closed) return;
        onStatus('connecting');
        abort = new AbortController();
        const signal = abort.signal;
        void (async () => {
          let res: Response;
          const sent = authHeaders();
          try {
            res = await fetch(OWNER_EVENTS_PATH, {
              credentials: 'omit',
              cache: 'no-store',
              headers: { Accept: 'text/event-stream', ...sent },
              signal,
            });
          } catch {
            if (!signal.aborted) again('offline');
            return;
          }
          if (res.status === 401) {
            void res.body?.cancel().catch(() => {});
            dropRefused(sent);
            if (!closed) onStatus('unauthorized');
            return;
          }
          if (!res.ok || !res.body) {
            void res.body?.cancel().catch(() => {});
            again('offline');
            return;
          }
          delay = 500;
          onStatus('live');
          try {
            await readEvents(res.body, (data) => {
              try {
                const item: unknown = JSON.parse(data);
                if (isLiveItem(item)) onItem(visibleDeep(item)); // the hub sent visible text already: defence in depth
              } catch {
                /* a malformed line is skipped; the next resync repairs state */
              }
            });
          } catch {
            /* the stream broke (hub stopped, network): reconnect below */
          }
          // The stream ended: reconnect soon (a hub that went away shows as offline on the next try).
          if (!signal.aborted) again('connecting');
        })();
      };
      open();
      return () => {
        closed = true;
        clearTimeout(retry);
        abort?.abort();
      };
    },
    setFocus: () => {},
    onNavigate: () => () => {},
    fileHref(url) {
      // files.url answers with the hub's absolute base; this page may be on another loopback name.
      try {
        const u = new URL(url, location.href);
        return u.pathname + u.search;
      } catch {
        return url;
      }
    },
  };
}

export const transport: Transport = typeof window !== 'undefined' && window.perch ? electronTransport(window.perch) : httpTransport();

/** A refusal of the owner API, as an Error the UI can show. */
export class OwnerError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly nextStep: string,
  ) {
    super(message);
  }
}

let onUnauthorized: () => void = () => {};
/** Called whenever an action answers `unauthorized` (the sign-in screen takes over). */
export function setUnauthorizedHandler(fn: () => void): void {
  onUnauthorized = fn;
}

/** Calls an owner action; resolves with its value or rejects with an OwnerError. */
export async function api<A extends OwnerAction>(action: A, input: OwnerInput<A>): Promise<OwnerResults[A]> {
  return valueOf<A>(await transport.call(action, input));
}

function valueOf<A extends OwnerAction>(r: OwnerReply<unknown>): OwnerResults[A] {
  if (r.ok) return visibleDeep(r.value) as OwnerResults[A]; // the hub sent visible text already: defence in depth
  if (r.error.code === 'unauthorized') onUnauthorized();
  throw new OwnerError(r.error.code, r.error.message, r.error.next_step);
}

/** api() for a large input (a file): onProgress(0..1) as it is sent. */
export async function apiUpload<A extends OwnerAction>(
  action: A,
  input: OwnerInput<A>,
  onProgress: (sent: number) => void,
): Promise<OwnerResults[A]> {
  return valueOf<A>(await transport.upload(action, input, onProgress));
}

/**
 * The owner's Export…: POSTs the scope ({} = everything) and reads the archive the hub answers, reporting
 * (received bytes, total bytes) as it arrives. Rejects with an OwnerError when the hub refuses.
 */
export async function downloadArchive(
  scope: { conversations?: string[]; agent?: string },
  onProgress: (received: number, total: number) => void,
): Promise<{ blob: Blob; name: string }> {
  const headers = { 'Content-Type': 'application/json', ...authHeaders() };
  let res: Response;
  try {
    res = await fetch(OWNER_EXPORT_PATH, { method: 'POST', credentials: 'omit', cache: 'no-store', headers, body: JSON.stringify(scope) });
  } catch (err) {
    const r = unreachable(err instanceof Error ? err.message : String(err));
    throw new OwnerError('unavailable', r.ok ? '' : r.error.message, r.ok ? '' : r.error.next_step);
  }
  if (!res.ok || !res.body) {
    let error = {
      code: 'internal',
      message: `The hub answered HTTP ${res.status}.`,
      next_step: 'Try again, or run perch export in a terminal.',
    };
    try {
      const j = (await res.json()) as OwnerReply;
      if (!j.ok) error = j.error;
    } catch {
      /* not JSON */
    }
    throw new OwnerError(error.code, error.message, error.next_step);
  }
  const total = Number(res.headers.get('Content-Length')) || 0;
  const name = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? 'perch-archive.tar.gz';
  const reader = res.body.getReader();
  const parts: BlobPart[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    received += value.length;
    onProgress(received, total);
  }
  return { blob: new Blob(parts, { type: 'application/gzip' }), name };
}

// ---- the device door: pairing, the device's own scope, its push subscription ----------------------

/** What the device door answered: the value, or a refusal with its HTTP status (410 expired, 429, 0 unreachable). */
export type DoorReply<T> =
  { ok: true; value: T } | { ok: false; status: number; error: { code: string; message: string; next_step: string } };

async function door<T>(path: string, method: 'GET' | 'POST', body: unknown, withDevice: boolean): Promise<DoorReply<T>> {
  const headers: Record<string, string> = {};
  const token = withDevice ? currentDeviceToken() : null;
  if (token) headers.Authorization = `Bearer ${token}`;
  if (method === 'POST') headers['Content-Type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'omit',
      cache: 'no-store',
      headers,
      body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
    });
  } catch (err) {
    const r = unreachable(err instanceof Error ? err.message : String(err));
    return { ok: false, status: 0, error: (r as { error: { code: string; message: string; next_step: string } }).error };
  }
  if (res.status === 401 && token) dropDeviceToken();
  let json: OwnerReply<T> | null = null;
  try {
    json = (await res.json()) as OwnerReply<T>;
  } catch {
    /* not JSON: answered below from the status */
  }
  if (json && json.ok) return { ok: true, value: visibleDeep(json.value) as T };
  const error =
    json && !json.ok && json.error
      ? json.error
      : {
          code: res.status === 429 ? 'rate_limited' : 'unavailable',
          message: `The hub answered HTTP ${res.status}.`,
          next_step: 'Retry in a moment.',
        };
  return { ok: false, status: res.status, error };
}

export interface PairClaim {
  pairing_id: string;
  phrase: string;
  claim_secret: string;
  expires_at: number;
  /** The name this device will be paired as (the laptop shows the same). */
  device_name?: string;
}
export interface PairWait {
  state: string;
  device_token?: string;
  device?: { id: string; name: string; scope: string };
}
export interface DeviceMe {
  device: { id: string; name: string; scope: 'approvals' | 'full'; push?: boolean };
  allowed_actions: string[];
  vapid_public_key: string;
}

export const deviceDoor = {
  /** Claims a pairing code from the /pair page (no credential yet). */
  claim: (code: string, deviceName: string) => door<PairClaim>(DEVICE_PAIR_CLAIM_PATH, 'POST', { code, device_name: deviceName }, false),
  /** Waits (long-poll) until the laptop confirms; answers the credential once. */
  wait: (pairingId: string, claimSecret: string, waitSecs: number) =>
    door<PairWait>(DEVICE_PAIR_WAIT_PATH, 'POST', { pairing_id: pairingId, claim_secret: claimSecret, wait_secs: waitSecs }, false),
  /** This device: its name, its scope, the Web Push key. */
  me: () => door<DeviceMe>(DEVICE_ME_PATH, 'GET', undefined, true),
  /** This device's push subscription (replaces an earlier one). */
  subscribe: (sub: { endpoint: string; keys: { p256dh: string; auth: string } }) =>
    door<unknown>(DEVICE_PUSH_SUBSCRIBE_PATH, 'POST', sub, true),
  /** Drops this device's push subscription at the hub ("Forget this phone"). */
  unsubscribe: () => door<unknown>(DEVICE_PUSH_UNSUBSCRIBE_PATH, 'POST', {}, true),
};
