// The renderer's only door to the hub. In the desktop app the preload exposes window.perch (IPC);
// in a browser (`perch serve`) the same contract goes over fetch + Server-Sent Events.
import { OWNER_API_PREFIX, OWNER_CSRF_HEADER, OWNER_EVENTS_PATH } from '../shared/owner-paths';
import type { OwnerAction, OwnerInput, OwnerResult } from '../shared/owner-api';
import type { PerchBridge } from '../shared/ipc';
import { visibleDeep } from '../shared/text';
import type { LiveItem, OwnerResults } from './model';

/**
 * What the Electron preload exposes as `window.perch` (defined once in src/shared/ipc.ts):
 *
 *   interface PerchBridge {
 *     call(action: string, input?: unknown): Promise<OwnerResult>;   // {ok:true,value} | {ok:false,error}
 *     onEvent(cb: (item: unknown) => void): () => void;              // each item a LiveItem
 *     setFocus(convId: string | null): void;                          // the conversation on screen
 *     onNavigate(cb: (convId: string) => void): () => void;           // a notification was clicked
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
  call(action: OwnerAction, input: unknown): Promise<OwnerResult>;
  /** Live items as they happen; onStatus tells whether the stream is up. Returns an unsubscribe. */
  subscribe(onItem: (item: LiveItem) => void, onStatus: (status: LinkStatus) => void): () => void;
  /** Tells the desktop shell which conversation is on screen (no OS notification for it). */
  setFocus(convId: string | null): void;
  /** The desktop shell asks to open a conversation. */
  onNavigate(cb: (convId: string) => void): () => void;
  /** A file link from files.url, as this page can load it (same origin in the browser). */
  fileHref(url: string): string;
}

const unreachable = (detail: string): OwnerResult => ({
  ok: false,
  error: { code: 'unavailable', message: `Cannot reach the Perch hub (${detail}).`, next_step: 'Check that `perch serve` is still running, then retry.' },
});

function isLiveItem(v: unknown): v is LiveItem {
  return !!v && typeof v === 'object' && typeof (v as { kind?: unknown }).kind === 'string' && 'value' in v;
}

function electronTransport(bridge: PerchBridge): Transport {
  return {
    kind: 'electron',
    call: (action, input) => bridge.call(action, input ?? {}),
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

function httpTransport(): Transport {
  async function call(action: OwnerAction, input: unknown): Promise<OwnerResult> {
    let res: Response;
    try {
      res = await fetch(OWNER_API_PREFIX + action, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', [OWNER_CSRF_HEADER]: '1' },
        body: JSON.stringify(input ?? {}),
      });
    } catch (err) {
      return unreachable(err instanceof Error ? err.message : String(err));
    }
    try {
      return (await res.json()) as OwnerResult;
    } catch {
      if (res.status === 401) {
        return { ok: false, error: { code: 'unauthorized', message: 'The owner session is missing or expired.', next_step: 'Open the login link printed by `perch serve`.' } };
      }
      return unreachable(`HTTP ${res.status}`);
    }
  }

  return {
    kind: 'http',
    call,
    subscribe(onItem, onStatus) {
      let source: EventSource | null = null;
      let retry: ReturnType<typeof setTimeout> | undefined;
      let closed = false;
      let delay = 500;
      const open = () => {
        if (closed) return;
        onStatus('connecting');
        source = new EventSource(OWNER_EVENTS_PATH, { withCredentials: true });
        source.onopen = () => {
          delay = 500;
          onStatus('live');
        };
        source.onmessage = (e: MessageEvent<string>) => {
          try {
            const item: unknown = JSON.parse(e.data);
            if (isLiveItem(item)) onItem(visibleDeep(item)); // the hub sent visible text already: defence in depth
          } catch {
            /* a malformed line is skipped; the next resync repairs state */
          }
        };
        source.onerror = () => {
          // EventSource retries by itself after a dropped stream; a refused one (401, hub gone) is CLOSED.
          if (source?.readyState !== EventSource.CLOSED) {
            onStatus('connecting');
            return;
          }
          source.close();
          source = null;
          void call('hub.info', {}).then((r) => {
            if (closed) return;
            if (!r.ok && r.error.code === 'unauthorized') {
              onStatus('unauthorized');
              return;
            }
            onStatus('offline');
            retry = setTimeout(open, delay);
            delay = Math.min(delay * 2, 10_000);
          });
        };
      };
      open();
      return () => {
        closed = true;
        clearTimeout(retry);
        source?.close();
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
  const r = await transport.call(action, input);
  if (r.ok) return visibleDeep(r.value) as OwnerResults[A]; // the hub sent visible text already: defence in depth
  if (r.error.code === 'unauthorized') onUnauthorized();
  throw new OwnerError(r.error.code, r.error.message, r.error.next_step);
}
