// No secret is ever in a process's argv: every local user can read /proc/PID/cmdline (what `ps` shows). While the real
// pieces run — perch serve (it holds the owner token), perch call long-polling with the agent's key from
// PERCH_KEY_<NAME> and from --key-file - (stdin), perch channel, and a wake run (its own run key, which it passes to a
// perch call of its own) — every /proc/*/cmdline is scanned for the owner token, the agent's key and the run's key.
// A control process with a secret in its argv proves the scan finds one. Linux (/proc) only.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { keyEnvVar } from '../../src/shared/agents/key-env';
import { BIN, addAgent, alive, eventually, ownerOk, removeDataDir, runtimeInfo, startServe, tempDataDir } from '../support/serve-harness';
import { HAS_PROC, allCmdlines, argvHolding, connectedTo, environVar } from '../support/argv-scan';

function killGroup(pid: number | null | undefined): void {
  if (!pid) return;
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

test(
  'no secret in any argv: perch serve, perch call (key from the environment and from stdin), perch channel and a wake run hold the owner token, agent key, run key and run telemetry token off every /proc/*/cmdline',
  { skip: !HAS_PROC && 'reads /proc', timeout: 90_000 },
  async () => {
    const dir = tempDataDir();
    const hub = await startServe(dir);
    const children: ChildProcess[] = [];
    let runPid: number | null = null;
    try {
      const ownerToken = runtimeInfo(hub).owner_token;
      const caller = await addAgent(dir, 'caller');
      const sleeper = await addAgent(dir, 'sleeper');
      const env = { ...process.env, PERCH_URL: hub.mcpUrl, PERCH_KEY: '' };

      // The control: a process with a secret in its argv is found, so the scan below can fail.
      const control = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', `control-${caller.key}`], { stdio: 'ignore' });
      children.push(control);
      await eventually(() => argvHolding([caller.key]).length > 0, 10_000, 'the control to show in /proc');
      assert.match(argvHolding([caller.key])[0]!, new RegExp(`pid ${control.pid}: .*control-<SECRET>`));
      control.kill('SIGKILL');
      await eventually(() => argvHolding([caller.key]).length === 0, 10_000, 'the control to exit');

      // perch call long-polling, the key from PERCH_KEY_CALLER (--agent) and from stdin (--key-file -).
      const wait = JSON.stringify({ wait_secs: 50 });
      const fromEnv = spawn(process.execPath, [BIN, 'call', 'get_updates', wait, '--agent', caller.name], {
        env: { ...env, [keyEnvVar(caller.name)]: caller.key },
        stdio: 'ignore',
      });
      const fromStdin = spawn(process.execPath, [BIN, 'call', 'get_updates', wait, '--key-file', '-'], {
        env,
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      fromStdin.stdin!.end(`${caller.key}\n`);
      // perch channel, the stdio MCP server Claude Code starts, with the key from PERCH_KEY_CALLER.
      const channel = spawn(process.execPath, [BIN, 'channel', '--agent', caller.name, '--url', hub.mcpUrl], {
        env: { ...env, [keyEnvVar(caller.name)]: caller.key },
        stdio: ['pipe', 'ignore', 'ignore'],
      });
      children.push(fromEnv, fromStdin, channel);
      // Each is connected to the hub (waiting in get_updates with the key it read), not still starting.
      for (const [what, p] of [
        ['perch call --agent', fromEnv],
        ['perch call --key-file -', fromStdin],
        ['perch channel', channel],
      ] as const)
        await eventually(() => connectedTo(p.pid!, hub.port), 30_000, `${what} to be connected to the hub`);

      // A wake run: its own run key in PERCH_KEY, which it hands to a perch call of its own (reading the environment).
      const runScript = `"${process.execPath}" "${BIN}" call whoami >/dev/null 2>&1; exec sleep 60`;
      await ownerOk(hub, 'wake.set', { agent: sleeper.name, argv: ['/bin/sh', '-c', runScript] });
      const conv = (await ownerOk(hub, 'conversations.create_group', { title: 'wake it', members: [sleeper.id] })).conversation.conv_id;
      await ownerOk(hub, 'messages.send', { conv_id: conv, text: 'please have a look', to: [sleeper.id] });
      await eventually(
        async () =>
          (await ownerOk(hub, 'wake.runs', { agent: sleeper.name })).runs.some(
            (r: { status: string; pid: number | null }) => r.status === 'running' && (runPid = r.pid) !== null,
          ),
        20_000,
        'the wake run to start',
      );
      const runKey = environVar(runPid!, 'PERCH_KEY');
      assert.match(runKey ?? '', /^perch_/, "the run's key is in its environment");
      assert.notEqual(runKey, sleeper.key, 'a run key of its own');
      // And its telemetry token, in its environment only (for the harness's OpenTelemetry exporter).
      const runTelemetry = /^Authorization=Bearer (perch_otlp_run_\S+)$/.exec(environVar(runPid!, 'OTEL_EXPORTER_OTLP_HEADERS') ?? '')?.[1];
      assert.ok(runTelemetry, "the run's telemetry token is in its environment");

      // Scan while everything is up: the run's sleep is running, the calls are waiting.
      const runningSleep = () => [...allCmdlines().values()].some((a) => a === 'sleep 60');
      await eventually(runningSleep, 20_000, "the run's own perch call to finish and its sleep to start");
      const secrets = [ownerToken, caller.key, sleeper.key, runKey!, runTelemetry!];
      const found = argvHolding(secrets);
      for (const [what, p] of [
        ['perch serve', hub.proc],
        ['perch call --agent', fromEnv],
        ['perch call --key-file -', fromStdin],
        ['perch channel', channel],
      ] as const)
        assert.ok(p.pid && alive(p.pid) && p.exitCode === null, `${what} is still running while the scan reads /proc`);
      assert.ok(alive(runPid!), 'the wake run is still running while the scan reads /proc');
      assert.deepEqual(found, [], `processes with a secret in their argv:\n${found.join('\n')}`);
    } finally {
      for (const c of children) killGroup(c.pid);
      killGroup(runPid);
      await hub.stop();
      removeDataDir(dir);
    }
  },
);
