// `perch call` and `perch owner` take their JSON argument inline, from a file (@FILE) or from stdin (-), so a shell
// agent can send an image of megabytes (inline, a command line that long fails with "Argument list too long").
// Bad input (a missing file, invalid JSON, stdin that is not JSON) exits non-zero with a clear message and sends nothing.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { LIMITS } from '../../src/shared/limits';
import { BIN, ROOT, ensureBuilt, ownerOk, tempDataDir, useSharedServe, type AgentClient, type CliResult } from '../support/serve-harness';

const served = useSharedServe();

/** Runs `perch ARGS` with the given bytes on stdin (bounded in time). */
function perch(args: string[], stdin?: string, env: Record<string, string> = {}): Promise<CliResult> {
  ensureBuilt();
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    p.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const timer = setTimeout(() => {
      p.kill('SIGKILL');
      reject(new Error(`perch ${args.slice(0, 2).join(' ')} did not finish within 60 s`));
    }, 60_000);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    p.stdin.on('error', () => {}); // the command may exit before reading everything
    p.stdin.end(stdin ?? '');
  });
}

/** A JPEG of more than 1 MiB (noise compresses badly) with camera EXIF, well under the 16 MiB file limit. */
async function bigJpeg(): Promise<Buffer> {
  const w = 1400;
  const h = 1000;
  const raw = Buffer.alloc(w * h * 3);
  for (let i = 0; i < raw.length; i++) raw[i] = (Math.imul(i, 2654435761) >>> 24) ^ (i & 0x3f);
  const jpeg = await sharp(raw, { raw: { width: w, height: h, channels: 3 } })
    .jpeg({ quality: 95 })
    .withExifMerge({ IFD0: { Make: 'ShellCam' } })
    .toBuffer();
  assert.ok(jpeg.length > 1024 * 1024, `the test image is over 1 MiB (${jpeg.length} bytes)`);
  return jpeg;
}

function writeTemp(name: string, text: string): string {
  const file = path.join(tempDataDir(), name);
  fs.writeFileSync(file, text);
  return file;
}

/** The messages of a conversation as the owner reads them (to see what arrived, or that nothing did). */
async function messages(
  convId: string,
): Promise<Array<{ kind: string; text: string | null; payload?: Record<string, any>; sender: { name: string } }>> {
  const page = await ownerOk(served, 'conversations.history', { conv_id: convId });
  return page.events.filter((e: { message?: unknown }) => e.message).map((e: { message: unknown }) => e.message);
}

async function agentAndConv(base: string): Promise<{ agent: AgentClient; convId: string; env: Record<string, string> }> {
  const agent = await served.agent(base);
  const convId = (await agent.ok('open_direct', { user: 'owner' })).conversation.conv_id as string;
  return { agent, convId, env: { PERCH_URL: served.mcpUrl, PERCH_KEY: agent.agent.key } };
}

test(
  'perch call send_file @FILE and - (stdin) send an image of more than 1 MiB; it arrives without its EXIF',
  { timeout: 120_000 },
  async () => {
    const { convId, env } = await agentAndConv('shell-sender');
    const jpeg = await bigJpeg();
    const args = JSON.stringify({ conv_id: convId, name: 'shot.jpg', data: jpeg.toString('base64'), caption: 'from a file' });
    assert.ok(
      args.length > 1024 * 1024 && args.length < LIMITS.maxFileBodyBytes,
      'more than 1 MiB of arguments, within the send_file body limit',
    );

    const fromFile = await perch(['call', 'send_file', `@${writeTemp('args.json', args)}`], undefined, env);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    const sentA = JSON.parse(fromFile.stdout);
    assert.equal(sentA.kind, 'image');

    const fromStdin = await perch(
      ['call', 'send_file', '-'],
      JSON.stringify({ conv_id: convId, name: 'shot2.jpg', data: jpeg.toString('base64'), caption: 'from stdin' }),
      env,
    );
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    const sentB = JSON.parse(fromStdin.stdout);
    assert.equal(sentB.kind, 'image');

    const got = await messages(convId);
    assert.deepEqual(
      got.filter((m) => m.kind === 'image').map((m) => m.text),
      ['from a file', 'from stdin'],
    );
    const link = await ownerOk(served, 'files.url', { file_id: sentB.file_id });
    const bytes = Buffer.from(await (await fetch(link.url)).arrayBuffer());
    assert.equal((await sharp(bytes).metadata()).exif, undefined, 'processed like any send_file: no EXIF');
  },
);

test(
  'perch owner files.send @FILE sends an image of more than 1 MiB as the owner; perch owner ACTION - reads its input from stdin',
  { timeout: 120_000 },
  async () => {
    const { agent, convId } = await agentAndConv('owner-shell');
    const jpeg = await bigJpeg();
    const input = writeTemp('input.json', JSON.stringify({ conv_id: convId, name: 'owner.jpg', data: jpeg.toString('base64') }));
    const r = await perch(['owner', 'files.send', `@${input}`, '--data-dir', served.dataDir]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const sent = JSON.parse(r.stdout);
    assert.equal(sent.kind, 'image');
    const s = await perch(
      ['owner', 'messages.send', '-', '--data-dir', served.dataDir],
      JSON.stringify({ conv_id: convId, text: 'typed into a pipe' }),
    );
    assert.equal(s.code, 0, s.stderr + s.stdout);
    const updates = await agent.ok('get_updates', {});
    const kinds = updates.events
      .filter((e: { type: string }) => e.type === 'message.created')
      .map((e: { message: { kind: string; text: string } }) => `${e.message.kind}:${e.message.text}`);
    assert.deepEqual(kinds, ['image:', 'text:typed into a pipe']);
  },
);

test(
  'bad JSON input to perch call / perch owner (missing file, invalid JSON, stdin not JSON, empty stdin, not an object) exits non-zero, says why, and sends nothing',
  { timeout: 120_000 },
  async () => {
    const { convId, env } = await agentAndConv('bad-input');
    const before = JSON.stringify(await messages(convId));
    const missing = path.join(tempDataDir(), 'no-such.json');
    const broken = writeTemp('broken.json', `{"conv_id": "${convId}", "text": "half`);
    const cases: Array<[string, string[], string | undefined, RegExp]> = [
      [
        'call, a missing file',
        ['call', 'send_message', `@${missing}`],
        undefined,
        /cannot read the arguments from .*no-such\.json: no such file/,
      ],
      [
        'call, a file that is not JSON',
        ['call', 'send_message', `@${broken}`],
        undefined,
        /the arguments \(from .*broken\.json\) are not valid JSON/,
      ],
      [
        'call, stdin that is not JSON',
        ['call', 'send_message', '-'],
        'conv_id=x text=hello',
        /the arguments \(from stdin\) are not valid JSON/,
      ],
      ['call, empty stdin', ['call', 'send_message', '-'], '', /the arguments \(from stdin\) are empty/],
      ['call, a JSON array', ['call', 'send_message', '-'], '[1, 2]', /must be a JSON object/],
      ['call, @ alone', ['call', 'send_message', '@'], undefined, /@ without a file name/],
      [
        'owner, a missing file',
        ['owner', 'messages.send', `@${missing}`, '--data-dir', served.dataDir],
        undefined,
        /cannot read the input from .*no-such\.json: no such file/,
      ],
      [
        'owner, stdin that is not JSON',
        ['owner', 'messages.send', '-', '--data-dir', served.dataDir],
        `{"conv_id": "${convId}", text: "hi"}`,
        /the input \(from stdin\) is not valid JSON/,
      ],
    ];
    for (const [what, args, stdin, message] of cases) {
      const r = await perch(args, stdin, env);
      assert.equal(r.code, 2, `${what}: exit code 2 (usage), got ${r.code}; ${r.stderr}`);
      assert.match(r.stderr, message, what);
      assert.match(r.stderr, /--help/, `${what}: points at --help`);
      assert.equal(r.stdout, '', `${what}: prints no result`);
    }
    assert.equal(JSON.stringify(await messages(convId)), before, 'nothing was sent');
  },
);

test(
  'perch agent config NAME takes its patch from @FILE or - too; a patch that is not JSON exits 2 and changes nothing',
  { timeout: 60_000 },
  async () => {
    const agent = await served.agent('configured-from-file');
    const name = agent.agent.name;
    const v0 = (await agent.ok('get_config')).version;
    const file = writeTemp('patch.json', JSON.stringify({ instructions: 'Read the patch from a file.' }));
    const fromFile = await perch(['agent', 'config', name, `@${file}`, '--data-dir', served.dataDir, '--json']);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    const c1 = await agent.ok('get_config');
    assert.equal(c1.role.instructions, 'Read the patch from a file.');
    const fromStdin = await perch(
      ['agent', 'config', name, '-', '--data-dir', served.dataDir, '--json'],
      JSON.stringify({ instructions: 'Piped in.' }),
    );
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    const c2 = await agent.ok('get_config');
    assert.equal(c2.role.instructions, 'Piped in.');
    assert.ok(c2.version > c1.version && c1.version > v0);

    const bad = await perch(['agent', 'config', name, '{"instructions": nope}', '--data-dir', served.dataDir]);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /the config patch is not valid JSON/);
    assert.doesNotMatch(bad.stderr, /at .*\.js:\d+/, 'a message, not a stack trace');
    assert.equal((await agent.ok('get_config')).version, c2.version, 'nothing changed');
  },
);
