// Wake runs in a container: the exact `docker run` / `podman run` command line (no container runtime here, so the
// argv itself is what is proved): one host mount (the project), the run's key and its telemetry passed by name only,
// the container listener's URL, --add-host for Docker on Linux; and `perch agent wake NAME --container …` stores that
// argv. What docker is handed and what reaches the ledger from inside: test/wake/wake-container-telemetry.test.ts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { containerRunOf, containerWakeArgv, containerWakeProblem } from '../../src/shared/agents/wake-container';
import { RUN_OTLP_LOGS_VAR, runTelemetry } from '../../src/shared/agents/run-telemetry';
import { cli, removeDataDir, tempDataDir } from '../support/serve-harness';

test("docker on Linux: --add-host, the project as the one mount, run variables and the run's telemetry by name, the bridge URL", () => {
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
      'CLAUDE_CODE_ENABLE_TELEMETRY',
      '-e',
      'OTEL_METRICS_EXPORTER',
      '-e',
      'OTEL_LOGS_EXPORTER',
      '-e',
      'OTEL_EXPORTER_OTLP_PROTOCOL',
      '-e',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      '-e',
      'OTEL_EXPORTER_OTLP_HEADERS',
      '-e',
      'GEMINI_TELEMETRY_ENABLED',
      '-e',
      'GEMINI_TELEMETRY_OTLP_PROTOCOL',
      '-e',
      'PERCH_OTLP_LOGS_URL',
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

test("every variable a run's telemetry sets is passed by name; an owner's variable of the same name is passed once", () => {
  const set = Object.keys(runTelemetry({}, 'http://host.docker.internal:7457', 'perch_otlp_run_x', true).env);
  assert.ok(set.length > 0);
  const argv = containerWakeArgv({
    runtime: 'docker',
    image: 'img',
    project: '/p',
    command: [],
    port: 7457,
    platform: 'linux',
    env: ['OTEL_EXPORTER_OTLP_ENDPOINT'],
  });
  const byName = argv.filter((a, i) => argv[i - 1] === '-e');
  for (const name of [...set, RUN_OTLP_LOGS_VAR]) assert.ok(byName.includes(name), `-e ${name}`);
  assert.equal(byName.filter((n) => n === 'OTEL_EXPORTER_OTLP_ENDPOINT').length, 1);
  assert.deepEqual(
    byName.filter((n) => n.includes('=')),
    ['PERCH_URL=http://host.docker.internal:7457/mcp'],
    'the only value on the command line is the URL',
  );
});

test("a run's argv is known as a container's by its PERCH_URL for a container's host name, which gives the hub as the container sees it", () => {
  const args = { image: 'img', project: '/p', command: ['claude', '-p', 'x'], port: 7457, platform: 'linux' };
  assert.deepEqual(containerRunOf(containerWakeArgv({ runtime: 'docker', ...args })), { hubUrl: 'http://host.docker.internal:7457' });
  assert.deepEqual(containerRunOf(containerWakeArgv({ runtime: 'podman', ...args, port: 9000 })), {
    hubUrl: 'http://host.containers.internal:9000',
  });
  assert.deepEqual(containerRunOf(['/usr/local/bin/docker', 'run', '-e', 'PERCH_URL=http://host.docker.internal:1/mcp', 'img']), {
    hubUrl: 'http://host.docker.internal:1',
  });
  for (const argv of [
    ['claude', '-p', 'work'],
    ['docker', 'run', 'img'],
    ['docker', 'exec', '-e', 'PERCH_URL=http://host.docker.internal:1/mcp', 'c'],
    ['docker', 'run', '-e', 'PERCH_URL=http://127.0.0.1:7457/mcp', 'img'],
    ['docker', 'run', '-e', 'PERCH_URL=http://host.docker.internal:7457/mcp/x', 'img'],
    ['mydocker', 'run', '-e', 'PERCH_URL=http://host.docker.internal:7457/mcp', 'img'],
  ])
    assert.equal(containerRunOf(argv), undefined, argv.join(' '));
  assert.equal(containerRunOf(undefined), undefined);
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
