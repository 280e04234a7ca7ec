// Every process's command line, read the way any local user can (/proc/PID/cmdline, what `ps` shows), and which of
// them hold a secret: for the tests that prove no key or token is ever in a process's argv (Linux: /proc).
import fs from 'node:fs';

export const HAS_PROC = fs.existsSync('/proc/self/cmdline');

/** pid → argv (NUL-separated arguments joined by spaces) of every process now; one that exits meanwhile is skipped. */
export function allCmdlines(): Map<number, string> {
  const out = new Map<number, string>();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      out.set(Number(name), fs.readFileSync(`/proc/${name}/cmdline`).toString('utf8').split('\0').join(' ').trim());
    } catch {
      /* exited */
    }
  }
  return out;
}

/** The processes whose argv holds one of the secrets, each as "pid N: argv" with the secret replaced by <SECRET>. */
export function argvHolding(secrets: readonly string[]): string[] {
  const found: string[] = [];
  for (const [pid, argv] of allCmdlines()) {
    const hit = secrets.filter((s) => s && argv.includes(s));
    if (hit.length) found.push(`pid ${pid}: ${hit.reduce((a, s) => a.split(s).join('<SECRET>'), argv).slice(0, 300)}`);
  }
  return found;
}

/** A variable of a process's environment (readable by its own user only), or undefined. */
export function environVar(pid: number, name: string): string | undefined {
  try {
    const env = fs.readFileSync(`/proc/${pid}/environ`).toString('utf8').split('\0');
    const line = env.find((l) => l.startsWith(`${name}=`));
    return line?.slice(name.length + 1);
  } catch {
    return undefined;
  }
}

/** Whether process pid holds an established TCP connection to 127.0.0.1:port (its socket fds against /proc/net/tcp). */
export function connectedTo(pid: number, port: number): boolean {
  const inodes = new Set<string>();
  try {
    for (const fd of fs.readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (m) inodes.add(m[1]!);
      } catch {
        /* closed meanwhile */
      }
    }
  } catch {
    return false; // exited
  }
  const want = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const lines = fs.readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1);
  // sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
  return lines.some((l) => {
    const f = l.trim().split(/\s+/);
    return f[2] === want && f[3] === '01' && inodes.has(f[9]!);
  });
}
