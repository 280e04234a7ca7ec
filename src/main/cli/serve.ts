// perch serve: the hub headless (MCP, owner API, the UI behind a one-time login link) until Ctrl+C.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import { DEFAULT_PORT } from '../paths';
import { parseDurability, type Durability } from '../store/db/durability';
import { BACKUPS_DIR, DEFAULT_DAILY_BACKUPS } from '../store/backup/backup';
import { isStorageError } from '../store/db/db';
import { isNoSpace } from '../store/backup/disk-space';
import { normalizePublicUrl, publicUrl, setPhoneSettings } from '../hub/phone/devices';
import { PERCH_VERSION } from '../../shared/version';
import { HTTP_PUBLIC_URL_NOTE } from '../../shared/features/devices';
import { checkListenAddress } from '../listeners';
import { DATA_DIR_LINE, UsageError, dataDirOf, fail, type Command } from './common';

export const serve: Command = {
  names: ['serve'],
  usage: `  perch serve [--data-dir DIR] [--port N] [--json] [--open] [--rate N] [--durability normal|full] [--backups N] [--containers] [--listen ADDR]...
      Run the hub headless. MCP at http://127.0.0.1:${DEFAULT_PORT}/mcp by default (--port 0 picks a free port).
      --containers also serves /mcp (only) on this computer's container bridges for agents in containers.
      Prints a one-time login link for the browser UI. --json prints one JSON line when ready.
      --durability (env PERCH_DURABILITY): normal (default) keeps every answered write through a crash
      of the hub; full also through a power cut, at one fsync per commit.`,
  help: () => `perch serve [--data-dir DIR] [--port N] [--json] [--open] [--rate N] [--durability normal|full] [--backups N] [--public-url URL] [--containers] [--listen ADDR]...

Runs the hub headless: MCP at http://127.0.0.1:${DEFAULT_PORT}/mcp, the UI in your browser.
  --port N      port on 127.0.0.1 (default ${DEFAULT_PORT}, or PERCH_PORT; 0 picks a free one)
  --json        print one JSON line {mcp_url, port, data_dir, login_url, listeners: [{url, serves}], …} when ready
  --containers  also listen on this computer's container bridge addresses (docker0, br-*, podman*, cni-podman*),
                same port, serving /mcp ONLY (never the app, login, files or pairing) to the Host names
                host.docker.internal and host.containers.internal; only keys allowed \`containers\` log in there
                (perch agent add NAME --from containers). No bridge: says so and serves on loopback only.
  --listen ADDR another address of this computer to serve /mcp on, like --containers (repeatable)
  --open        open the one-time login link in the browser
  --rate N      calls per second per agent (0 = no limit)
  --durability normal|full  normal (the default, or PERCH_DURABILITY) keeps every answered write through a
                crash of the hub; full also through a power cut, at one fsync per commit
  --backups N   daily backups to keep in <data dir>/${BACKUPS_DIR} (default ${DEFAULT_DAILY_BACKUPS}, or PERCH_BACKUPS; 0 = none)
  --public-url URL  the HTTPS front that forwards to this hub (e.g. https://laptop.tail1234.ts.net after
                \`tailscale serve --bg --https=443 http://127.0.0.1:PORT\`); saved, so later runs keep it. The hub
                still listens on 127.0.0.1 only; requests through the front need a paired device (perch device pair),
                or for /mcp a key allowed the tailnet (perch agent key from NAME tailnet).
${DATA_DIR_LINE}
If the port is taken, serve stops and says so (whatever holds the port receives agents' keys).`,
  run: cmdServe,
};

async function cmdServe(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      json: { type: 'boolean' },
      open: { type: 'boolean' },
      rate: { type: 'string' },
      durability: { type: 'string' },
      backups: { type: 'string' },
      'public-url': { type: 'string' },
      containers: { type: 'boolean' },
      listen: { type: 'string', multiple: true },
    },
    strict: true,
  });
  const dataDir = dataDirOf(values);
  const port = values.port !== undefined ? Number(values.port) : Number(process.env.PERCH_PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be 0..65535, not ${values.port}`);
  const rate = values.rate !== undefined ? Number(values.rate) : undefined;
  if (rate !== undefined && (!Number.isFinite(rate) || rate < 0)) throw new UsageError('--rate must be a number ≥ 0 (0 = no limit)');
  let durability: Durability;
  try {
    durability =
      values.durability !== undefined
        ? parseDurability(values.durability, '--durability')
        : parseDurability(process.env.PERCH_DURABILITY, 'PERCH_DURABILITY');
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const dailyBackups = dailyBackupsOption(values.backups);
  let wantPublicUrl: string | undefined;
  if (values['public-url'] !== undefined) {
    try {
      wantPublicUrl = normalizePublicUrl(values['public-url']);
    } catch (e) {
      throw new UsageError(`--public-url: ${(e as Error).message}`);
    }
  }
  const listen = values.listen ?? [];
  for (const a of listen) {
    const bad = checkListenAddress(a);
    if (bad) throw new UsageError(bad);
  }
  const { startHub } = await import('../app');
  let running;
  try {
    running = await startHub({ dataDir, port, ratePerSecond: rate, durability, dailyBackups, containers: !!values.containers, listen });
  } catch (err: any) {
    if (err?.code === 'EADDRINUSE') await failPortTaken(port);
    if (err?.code === 'PERCH_ALREADY_SERVING') fail(err.message);
    if (isNoSpace(err) || isStorageError(err))
      fail(
        `the disk holding ${dataDir} is full or failing (${String(err.code)}), so the hub could not start; nothing was changed. Free some disk space (a few MiB) and start it again.`,
        1,
      );
    throw err;
  }
  // The front's URL (tailscale serve): the flag overrides the setting and saves it (it survives restarts).
  // On a full disk the hub serves on (reads work, writes answer storage_full): what cannot be saved at start is said
  // in a note instead of taking it down.
  const hub = running.hub;
  const unsaved = <T>(what: string, fn: () => T): T | undefined => {
    try {
      return fn();
    } catch (err) {
      if (!hub.storageFailure(err)) throw err;
      running.notes.push(
        `The disk holding ${dataDir} is full: ${what} could not be saved. Free some disk space, then ${what === 'the login link' ? 'run `perch owner login-link`' : 'start the hub again'}.`,
      );
      return undefined;
    }
  };
  if (wantPublicUrl !== undefined) unsaved('--public-url', () => setPhoneSettings(hub, { public_url: wantPublicUrl }));
  const phoneUrl = publicUrl(running.hub);
  // Handlers first: whoever reads the ready line below may signal us at once.
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (!values.json) process.stdout.write(`\nStopping (${signal})…\n`);
    const force = setTimeout(() => process.exit(1), 5000);
    force.unref();
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  const login = unsaved('the login link', () => running.owner.loginLink()) ?? null;
  if (values.json) {
    const listeners = running.listeners.map((l) => ({ url: l.url, serves: l.serves, place: l.place, ...(l.via ? { via: l.via } : {}) }));
    const front = phoneUrl ? [{ url: phoneUrl, serves: ['mcp', 'phone'], place: 'tailnet', via: 'the HTTPS front' }] : [];
    process.stdout.write(
      `${JSON.stringify({ mcp_url: running.mcpUrl, port: running.port, data_dir: dataDir, login_url: login, durability, public_url: phoneUrl, listeners: [...listeners, ...front], container_mcp_url: running.hub.doors.containerMcpUrl, notes: running.notes })}\n`,
    );
  } else {
    const extra = running.listeners.filter((l) => l.place === 'containers');
    const containers = extra.length
      ? `  Containers:   ${running.hub.doors.containerMcpUrl} (Podman: host.containers.internal; /mcp only, on ${extra.map((l) => `${l.url} ${l.via}`).join(', ')})\n                keys need --from containers; Linux docker run needs --add-host=host.docker.internal:host-gateway\n`
      : '';
    const notes = running.notes.map((n) => `  Note:         ${n}\n`).join('');
    const phone = phoneUrl
      ? `  Phone:        ${phoneUrl} (through your HTTPS front; pair a phone: Settings → Phone, or \`perch device pair\`)\n${phoneUrl.startsWith('http:') ? `                note: ${HTTP_PUBLIC_URL_NOTE}\n` : ''}`
      : '';
    process.stdout.write(
      `Perch ${PERCH_VERSION} is running.\n  MCP endpoint: ${running.mcpUrl}\n${containers}${notes}  Data:         ${dataDir} (durability: ${durability})\n${phone}${login ? `  Open the app: ${login}\n  (the link works once; run \`perch owner login-link\` for another)\n` : ''}Press Ctrl+C to stop.\n`,
    );
  }
  if (values.open && login) openInBrowser(login);
}

function openInBrowser(url: string): void {
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

function dailyBackupsOption(flag: string | undefined): number {
  const text = flag ?? process.env.PERCH_BACKUPS;
  if (text === undefined || text === '') return DEFAULT_DAILY_BACKUPS;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 1000)
    throw new UsageError(`--backups must be a whole number 0..1000 (0 turns daily backups off), not ${JSON.stringify(text)}`);
  return n;
}

async function failPortTaken(port: number): Promise<never> {
  const { describePortHolder, portTakenMessage } = await import('../port-check');
  fail(portTakenMessage(port, await describePortHolder(port)), 1);
}
