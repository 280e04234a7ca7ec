// Wake runs in a container: the exact `docker run` / `podman run` command line (no container runtime here, so the
// argv itself is what is proved): one host mount (the project), the run's key passed by name only, the container
// listener's URL, --add-host for Docker on Linux; and `perch agent wake NAME --container …` stores that argv.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { containerWakeArgv, containerWakeProblem } from '../../src/shared/agents/wake-container';
import { cli, removeDataDir, tempDataDir } from '../support/serve-harness';

test('docker on Linux: --add-host, the project as the one mount, run variables by name, the bridge URL', () => {
  assert.deepEqual(
    containerWakeArgv({
      runtime: 'docker',
      image: 'node:22',
      project: '/home/me/proj',
      command: ['claude', '-p', 'work'],
      port: 7457,
      platform: 'linux',
      env: ['ANTHROPIC_API_KEY'],
    }),
    [
      'docker',
      'run',
      '--rm',
      '-i',
      '--add-host=host.docker.internal:host-gateway',
      '--mount',
      'type=bind,source=/home/me/proj,target=/workspace',
      '--workdir',
      '/workspace',
      '-e',
      'PERCH_KEY',
      '-e',
      'PERCH_AGENT',
      '-e',
      'PERCH_RUN_ID',
      '-e',
      'PERCH_WAKE',
      '-e',
      'ANTHROPIC_API_KEY',
      '-e',
      'PERCH_URL=http://host.docker.internal:7457/mcp',
      'node:22',
      'claude',
      '-p',
      'work',
    ],
  );
});

test('Docker Desktop (macOS) needs no --add-host; Podman uses host.containers.internal', () => {
  const mac = containerWakeArgv({ runtime: 'docker', image: 'img', project: '/p', command: [], port: 9000, platform: 'darwin' });
  assert.ok(!mac.some((a) => a.startsWith('--add-host')));
  assert.equal(mac.at(-1), 'img');
  const podman = containerWakeArgv({ runtime: 'podman', image: 'img', project: '/p', command: ['run.sh'], port: 9000, platform: 'linux' });
  assert.equal(podman[0], 'podman');
  assert.ok(!podman.some((a) => a.startsWith('--add-host')));
  assert.ok(podman.includes('PERCH_URL=http://host.containers.internal:9000/mcp'));
  // never a value for the key, never a second mount
  for (const argv of [mac, podman]) {
    assert.ok(!argv.some((a) => a.startsWith('PERCH_KEY=')));
    assert.equal(argv.filter((a) => a === '--mount' || a === '-v' || a === '--volume').length, 1);
  }
});

test('bad images and projects are named', () => {
  assert.match(containerWakeProblem({ image: 'bad image', project: '/p' })!, /not an image name/);
  assert.match(containerWakeProblem({ image: 'img', project: '/' })!, /--project/);
  assert.match(containerWakeProblem({ image: 'img', project: '/a,b' })!, /--project/);
  assert.equal(containerWakeProblem({ image: 'ghcr.io/me/agent:1', project: '/home/me/p' }), undefined);
});

test('perch agent wake NAME --container IMAGE --project DIR stores the container argv; bad input changes nothing', () => {
  const dir = tempDataDir();
  try {
    assert.equal(cli(['agent', 'add', 'boxed', '--from', 'containers', '--data-dir', dir]).code, 0);
    const project = path.join(dir, 'proj');
    fs.mkdirSync(project);
    const bad = cli(['agent', 'wake', 'boxed', '--container', 'node:22', '--data-dir', dir]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--project/);
    assert.equal(cli(['agent', 'wake', 'boxed', '--container', 'node 22', '--project', project, '--data-dir', dir]).code, 2);
    assert.equal(
      cli(['agent', 'wake', 'boxed', '--container', 'node:22', '--project', project, '--runtime', 'lxc', '--data-dir', dir]).code,
      2,
    );
    const none = JSON.parse(cli(['agent', 'wake', 'boxed', '--show', '--json', '--data-dir', dir]).stdout);
    assert.equal(none.wake.action, null, 'nothing was set by the refused commands');
    const r = cli([
      'agent',
      'wake',
      'boxed',
      '--container',
      'node:22',
      '--project',
      project,
      '--runtime',
      'podman',
      '--json',
      '--data-dir',
      dir,
      '--',
      'sh',
      '-c',
      'perch call whoami',
    ]);
    assert.equal(r.code, 0, r.stderr);
    const action = JSON.parse(r.stdout).wake.action;
    assert.deepEqual(
      action.argv,
      containerWakeArgv({
        runtime: 'podman',
        image: 'node:22',
        project,
        command: ['sh', '-c', 'perch call whoami'],
        port: Number(process.env.PERCH_PORT) || 7457,
        platform: process.platform,
      }),
    );
    assert.equal(action.cwd, project);
  } finally {
    removeDataDir(dir);
  }
});
