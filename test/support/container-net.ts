// A container's network without a container runtime (Linux, as root): a bridge, a network namespace joined to it by a
// veth pair, and the namespace's /etc/hosts folder (/etc/netns/NAME, which `ip netns exec` mounts over /etc/hosts). A
// process run in the namespace reaches this computer only at the bridge's address, as a process in a container does;
// 127.0.0.1 there is its own. The bridge is NOT named as Docker names its networks (docker0, br-<hex>): every `perch
// serve --containers` that other test files start meanwhile would find it and list it; the hub is given its address
// with --listen, which serves the same container listener. And a `docker` on a PATH of the test's that is
// test/fixtures/docker-standin.mjs.
import { execFileSync, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './serve-harness';

/** Why this machine cannot make one (not root, no `ip`, not Linux), or undefined. */
export function containerNetMissing(): string | undefined {
  if (process.platform !== 'linux') return 'network namespaces are Linux';
  if (process.getuid?.() !== 0) return 'making a bridge and a network namespace needs root';
  try {
    execFileSync('ip', ['netns', 'list'], { stdio: 'ignore' });
  } catch {
    return 'no `ip` (iproute2) here';
  }
  return undefined;
}

export interface ContainerNet {
  /** The bridge (pt-<hex>) and its address on this computer: the host gateway a container sees. */
  bridge: string;
  gateway: string;
  /** The network namespace standing in for the container's. */
  netns: string;
  remove(): void;
}

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'ignore', 'pipe'] });

/** Makes the bridge, the namespace and the veth between them (a 10.x.y.0/24 no interface here uses). */
export function makeContainerNet(): ContainerNet {
  const tag = crypto.randomBytes(4).toString('hex');
  const bridge = `pt-${tag}`;
  const netns = `perch-test-${tag}`;
  const [outer, inner] = [`vp${tag}a`, `vp${tag}b`];
  const used = execFileSync('ip', ['-4', '-o', 'addr'], { encoding: 'utf8' });
  let net = '';
  for (let n = 0; n < 50 && !net; n++) {
    const candidate = `10.${200 + crypto.randomInt(50)}.${crypto.randomInt(250)}`;
    if (!used.includes(` ${candidate}.`)) net = candidate;
  }
  const gateway = `${net}.1`;
  const remove = () => {
    for (const args of [
      ['netns', 'del', netns],
      ['link', 'del', outer],
      ['link', 'del', bridge],
    ]) {
      try {
        ip(...args);
      } catch {
        /* not made, or gone with the namespace */
      }
    }
    fs.rmSync(path.join('/etc/netns', netns), { recursive: true, force: true });
  };
  try {
    ip('link', 'add', bridge, 'type', 'bridge');
    ip('addr', 'add', `${gateway}/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
    ip('netns', 'add', netns);
    ip('link', 'add', outer, 'type', 'veth', 'peer', 'name', inner);
    ip('link', 'set', inner, 'netns', netns);
    ip('link', 'set', outer, 'master', bridge);
    ip('link', 'set', outer, 'up');
    ip('-n', netns, 'addr', 'add', `${net}.2/24`, 'dev', inner);
    ip('-n', netns, 'link', 'set', inner, 'up');
    ip('-n', netns, 'link', 'set', 'lo', 'up');
    fs.mkdirSync(path.join('/etc/netns', netns), { recursive: true });
    fs.writeFileSync(path.join('/etc/netns', netns, 'hosts'), `127.0.0.1 localhost\n${gateway} host.docker.internal\n`);
  } catch (err) {
    remove();
    throw err;
  }
  return { bridge, gateway, netns, remove };
}

/**
 * POSTs `body` to `url` from a process in the namespace (names resolved by its /etc/hosts), with the token in an
 * Authorization header (handed in the environment, never argv); the answer's status.
 */
export function postFromNetns(netns: string, url: string, token: string, body: string): Promise<number> {
  const script = `fetch(process.env.URL, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + process.env.TOKEN }, body: process.env.BODY }).then((r) => console.log(r.status), (e) => { console.log('error', e.cause?.code ?? e.message); process.exit(1); })`;
  const p = spawn('ip', ['netns', 'exec', netns, process.execPath, '-e', script], {
    env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin', URL: url, TOKEN: token, BODY: body },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  p.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
  p.stderr!.setEncoding('utf8').on('data', (c: string) => (out += c));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => p.kill('SIGKILL'), 20_000);
    p.on('close', (code) => {
      clearTimeout(timer);
      const status = Number(out.trim());
      if (code === 0 && Number.isInteger(status)) resolve(status);
      else reject(new Error(`the POST from the namespace failed (${code}): ${out}`));
    });
  });
}

/** A folder holding a `docker` that is the stand-in (test/fixtures/docker-standin.mjs) with this config; its runs' records. */
export function dockerStandin(o: { netns?: string; gateway?: string }): { bin: string; records: string; remove(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'perch-docker-standin-'));
  const bin = path.join(dir, 'bin');
  const records = path.join(dir, 'records');
  fs.mkdirSync(bin);
  fs.mkdirSync(records);
  const config = path.join(dir, 'config.json');
  fs.writeFileSync(config, JSON.stringify({ record_dir: records, ...o }));
  const script = path.join(ROOT, 'test', 'fixtures', 'docker-standin.mjs');
  fs.writeFileSync(path.join(bin, 'docker'), `#!/bin/sh\nexec "${process.execPath}" "${script}" "${config}" -- "$@"\n`, { mode: 0o755 });
  return { bin, records, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}
