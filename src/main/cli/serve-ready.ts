// `perch serve`'s ready line (--json: one JSON line; else a few lines for a person), printed by either way a start
// goes: before the hub is built (cli/serve-front.ts) or after (cli/serve.ts). Whoever reads it may send a request
// at once: what it names is open (the database, the listeners, the login link's token stored).
import { PERCH_VERSION } from '../../shared/version';
import { HTTP_PUBLIC_URL_NOTE } from '../../shared/features/devices';
import type { Durability } from '../store/db/durability';
import type { ListenerInfo } from '../listeners';

export interface ReadyFacts {
  mcpUrl: string;
  port: number;
  dataDir: string;
  /** The one-time login link, or null (a full disk: not saved). */
  login: string | null;
  durability: Durability;
  /** The HTTPS front's URL (a saved setting), or null. */
  publicUrl: string | null;
  /** Every listener: the main one, then those for agents in containers. */
  listeners: ListenerInfo[];
  containerMcpUrl: string | null;
  notes: string[];
}

export function printReady(json: boolean, f: ReadyFacts): void {
  if (json) {
    const listeners = f.listeners.map((l) => ({ url: l.url, serves: l.serves, place: l.place, ...(l.via ? { via: l.via } : {}) }));
    const front = f.publicUrl ? [{ url: f.publicUrl, serves: ['mcp', 'phone'], place: 'tailnet', via: 'the HTTPS front' }] : [];
    process.stdout.write(
      `${JSON.stringify({ mcp_url: f.mcpUrl, port: f.port, data_dir: f.dataDir, login_url: f.login, durability: f.durability, public_url: f.publicUrl, listeners: [...listeners, ...front], container_mcp_url: f.containerMcpUrl, notes: f.notes })}\n`,
    );
    return;
  }
  const extra = f.listeners.filter((l) => l.place === 'containers');
  const containers = extra.length
    ? `  Containers:   ${f.containerMcpUrl} (Podman: host.containers.internal; /mcp only, on ${extra.map((l) => `${l.url} ${l.via}`).join(', ')})\n                keys need --from containers; Linux docker run needs --add-host=host.docker.internal:host-gateway\n`
    : '';
  const notes = f.notes.map((n) => `  Note:         ${n}\n`).join('');
  const phone = f.publicUrl
    ? `  Phone:        ${f.publicUrl} (through your HTTPS front; pair a phone: Settings → Phone, or \`perch device pair\`)\n${f.publicUrl.startsWith('http:') ? `                note: ${HTTP_PUBLIC_URL_NOTE}\n` : ''}`
    : '';
  process.stdout.write(
    `Perch ${PERCH_VERSION} is running.\n  MCP endpoint: ${f.mcpUrl}\n${containers}${notes}  Data:         ${f.dataDir} (durability: ${f.durability})\n${phone}${f.login ? `  Open the app: ${f.login}\n  (the link works once; run \`perch owner login-link\` for another)\n` : ''}Press Ctrl+C to stop.\n`,
  );
}

/**
 * The signals that stop `perch serve` cleanly (the hub closed, runtime.json removed, exit 0): Ctrl+C, kill, and the
 * terminal it runs in closing (SIGHUP), which would otherwise end it on the spot: runtime.json and the -wal left, and
 * nothing of the hub's close (which ends running wake runs) done.
 */
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** The note of the ready line when the login link could not be saved (a full disk). */
export function loginUnsavedNote(dataDir: string): string {
  return `The disk holding ${dataDir} is full: the login link could not be saved. Free some disk space, then run \`perch owner login-link\`.`;
}

/** --open: the login link in the browser (node:child_process loaded only then). */
export async function openInBrowser(url: string): Promise<void> {
  const { spawn } = await import('node:child_process');
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'cmd' : 'xdg-open';
  const args = process.platform === 'win32' ? ['/c', 'start', '', url] : [url];
  try {
    spawn(cmd, args, { stdio: 'ignore', detached: true })
      .on('error', () => process.stderr.write(`perch: could not open a browser; open ${url}\n`))
      .unref();
  } catch {
    process.stderr.write(`perch: could not open a browser; open ${url}\n`);
  }
}
