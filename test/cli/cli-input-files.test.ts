// The files and streams a perch command reads because the owner named them — perch call's --key-file FILE|- and
// @FILE arguments, perch rules import FILE|- — against the built `perch` and a real `perch serve`: a folder, a FIFO
// nobody writes to, /dev/zero (as a path, through a symlink and as stdin), a file far too large, a key that cannot go
// in a header, an --agent that is no name: each is one line on stderr, exit 2, nothing sent and nothing changed —
// never a hang or an endless read. A key file with CRLF, or reached through a symlink, works.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import {
  BIN,
  addAgent,
  cliAsync,
  exitOf,
  removeDataDir,
  startServe,
  tempDataDir,
  type AgentKey,
  type Served,
} from '../support/serve-harness';

/** `perch ARGS` with stdin read from `stdinFile` (e.g. /dev/zero), bounded in time. */
function cliStdinFrom(args: string[], stdinFile: string, env: Record<string, string> = {}) {
  const fd = fs.openSync(stdinFile, 'r');
  try {
    const p = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: [fd, 'pipe', 'pipe'] });
    return exitOf(p, `perch ${args.join(' ')} < ${stdinFile}`, 20_000);
  } finally {
    fs.closeSync(fd);
  }
}

/** Exit `code` (2: a usage error), one line on stderr matching `why`, nothing on stdout, `secret` (when given) not echoed. */
function refusedInOneLine(
  r: { code: number | null; stdout: string; stderr: string },
  why: RegExp,
  what: string,
  secret?: string,
  code = 2,
) {
  assert.equal(r.code, code, `${what}: exit ${code} (${r.stderr})`);
  assert.equal(r.stdout, '', `${what}: nothing printed: nothing was sent`);
  assert.equal(r.stderr.trim().split('\n').length, 1, `${what}: one line: ${r.stderr}`);
  assert.match(r.stderr, why, what);
  if (secret !== undefined) assert.ok(!r.stderr.includes(secret), `${what}: what it read is not echoed`);
}

describe('files and streams a perch command reads', () => {
  let dir: string;
  let hub: Served;
  let kit: AgentKey;
  let files: string;

  before(async () => {
    dir = tempDataDir();
    hub = await startServe(dir, { args: ['--backups', '0'] });
    kit = await addAgent(dir, 'kit');
    files = fs.mkdtempSync(path.join(dir, 'inputs-'));
    assert.equal(spawnSync('mkfifo', [path.join(files, 'fifo')]).status, 0, 'mkfifo');
    fs.mkdirSync(path.join(files, 'folder'));
    fs.symlinkSync('/dev/zero', path.join(files, 'zero-link'));
    fs.writeFileSync(path.join(files, 'huge'), Buffer.alloc(5 * 1024 * 1024, 'a'));
  });
  after(async () => {
    await hub.stop();
    removeDataDir(dir);
  });

  test('--key-file: a folder, a FIFO nobody writes to, /dev/zero, a symlink to it, a 5 MB file, a first line that is no key, and stdin from /dev/zero are each refused in one line; CRLF and a symlink to the key file work', async () => {
    const url = hub.mcpUrl;
    const env = { PERCH_KEY: '' };
    for (const [name, why] of [
      ['folder', /folder \(the key\) is not a file/],
      ['fifo', /fifo \(the key\) is not a file/],
      ['/dev/zero', /\/dev\/zero \(the key\) is not a file/],
      ['zero-link', /zero-link \(the key\) is not a file/],
      ['huge', /huge \(the key\) is 5242880 bytes, over the 4096 it may be/],
    ] as const) {
      const file = name.startsWith('/') ? name : path.join(files, name);
      refusedInOneLine(await cliAsync(['call', 'whoami', '--url', url, '--key-file', file], { env }), why, `--key-file ${name}`);
    }
    const garbled = `perch_\u00e9${kit.key.slice(7)}`;
    const notKey = path.join(files, 'garbled.key');
    fs.writeFileSync(notKey, `${garbled}\n`);
    refusedInOneLine(
      await cliAsync(['call', 'whoami', '--url', url, '--key-file', notKey], { env }),
      /--key-file .*garbled\.key holds no key: a key is one word/,
      'a first line that cannot go in a header',
      garbled.slice(8),
    );
    refusedInOneLine(
      await cliAsync(['call', 'whoami', '--url', url], { env: { PERCH_KEY: `\u0001${kit.key}` } }),
      /PERCH_KEY holds no key: a key is one word/,
      'PERCH_KEY with a control character',
      kit.key,
    );
    refusedInOneLine(
      await cliStdinFrom(['call', 'whoami', '--url', url, '--key-file', '-'], '/dev/zero', env),
      /the key on stdin is over 4096 bytes/,
      '--key-file - < /dev/zero',
    );

    const crlf = path.join(files, 'crlf.key');
    fs.writeFileSync(crlf, `${kit.key}\r\n`);
    const link = path.join(files, 'link.key');
    fs.symlinkSync(crlf, link);
    for (const file of [crlf, link]) {
      const r = await cliAsync(['call', 'whoami', '--url', url, '--key-file', file], { env });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).agent.name, 'kit');
    }
  });

  test('@FILE arguments: a FIFO nobody writes to and /dev/zero are refused in one line, nothing sent', async () => {
    for (const file of [path.join(files, 'fifo'), '/dev/zero']) {
      refusedInOneLine(
        await cliAsync(['call', 'whoami', `@${file}`, '--url', hub.mcpUrl], { env: { PERCH_KEY: kit.key } }),
        /\(the arguments\) is not a file/,
        `@${file}`,
      );
    }
  });

  test('--agent that is no agent name (empty, spaces, a newline, 5,000 characters, non-ASCII) is refused in one line; KIT picks PERCH_KEY_KIT', async () => {
    const env = { PERCH_KEY: '', PERCH_KEY_KIT: kit.key };
    for (const name of ['', 'k i t', 'kit\nX', 'k'.repeat(5000), '\u0137it', '-']) {
      refusedInOneLine(
        await cliAsync(['call', 'whoami', '--agent', name, '--url', hub.mcpUrl], { env }),
        /--agent takes an agent's name \(a–z, 0–9, - and _, up to 40\), not "/,
        `--agent ${JSON.stringify(name.slice(0, 20))}`,
      );
    }
    const upper = await cliAsync(['call', 'whoami', '--agent', 'KIT', '--url', hub.mcpUrl], { env });
    assert.equal(upper.code, 0, upper.stderr);
    assert.equal(JSON.parse(upper.stdout).agent.name, 'kit');
  });

  test('perch rules import: a FIFO nobody writes to, /dev/zero, a folder, a 5 MB file, a missing file and stdin from /dev/zero are refused in one line, no rule added', async () => {
    const rules = async () => {
      const r = await cliAsync(['rules', '--json', '--data-dir', dir]);
      assert.equal(r.code, 0, r.stderr);
      return r.stdout;
    };
    const before = await rules();
    for (const [name, why] of [
      ['fifo', /fifo \(the rules\) is not a file/],
      ['/dev/zero', /\/dev\/zero \(the rules\) is not a file/],
      ['folder', /folder \(the rules\) is not a file/],
      ['huge', /huge \(the rules\) is 5242880 bytes, over the 1048576 it may be/],
      ['no-such-file', /cannot read the rules from .*no-such-file: no such file/],
    ] as const) {
      const file = name.startsWith('/') ? name : path.join(files, name);
      refusedInOneLine(await cliAsync(['rules', 'import', file, '--data-dir', dir]), why, `rules import ${name}`);
    }
    refusedInOneLine(
      await cliStdinFrom(['rules', 'import', '-', '--data-dir', dir], '/dev/zero'),
      /the rules on stdin is over 1048576 bytes/,
      'rules import - < /dev/zero',
    );
    assert.equal(await rules(), before, 'no rule added');
  });
});

test('perch ledger export, calls and costs: a --since that is no day of the calendar (2026-02-30, 2026-13-45, words, SQL, 3,000 characters) is one line, exit 1, and a --format other than csv and jsonl exit 2; nothing printed', async () => {
  const dir = tempDataDir();
  try {
    await addAgent(dir, 'kit');
    for (const since of ['2026-02-30', '2026-13-45', 'yesterday', "2026-01-01' OR 1=1--", 'x'.repeat(3000)]) {
      for (const sub of ['export', 'calls', 'costs']) {
        refusedInOneLine(
          await cliAsync(['ledger', sub, '--since', since, '--data-dir', dir]),
          /--since must be a day as YYYY-MM-DD, not "/,
          `ledger ${sub} --since ${since.slice(0, 20)}`,
          undefined,
          1,
        );
      }
    }
    for (const format of ['CSV', 'xml', ''])
      refusedInOneLine(
        await cliAsync(['ledger', 'export', '--since', '2026-01-01', '--format', format, '--data-dir', dir]),
        /--format takes csv or jsonl/,
        `--format ${JSON.stringify(format)}`,
      );
    const ok = await cliAsync(['ledger', 'export', '--since', '2024-02-29', '--format', 'csv', '--data-dir', dir]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /^id,day,at,agent,/, 'a leap day is a day');
  } finally {
    removeDataDir(dir);
  }
});

test('perch ledger calls --limit and ledger prices set take plain decimals: 0x10, 1e2, Infinity, " 5", -1, 1,000 and 9999 are refused in one line, exit 2, no price set', async () => {
  const dir = tempDataDir();
  try {
    await addAgent(dir, 'kit');
    const prices = async () => (await cliAsync(['ledger', 'prices', '--json', '--data-dir', dir])).stdout;
    const before = await prices();
    for (const limit of ['0x10', '1e2', 'Infinity', ' 5', '-1', '1,000', '9999', '0', ''])
      refusedInOneLine(
        await cliAsync(['ledger', 'calls', `--limit=${limit}`, '--data-dir', dir]),
        /--limit takes a whole number from 1 to 500/,
        `--limit ${JSON.stringify(limit)}`,
      );
    for (const usd of ['0x10', '1e3', 'Infinity', ' 5', '-1', '1,5', '', '.'])
      refusedInOneLine(
        await cliAsync(['ledger', 'prices', 'set', 'gpt-x', `--input=${usd}`, '--cached-input', '0.1', '--output', '2', '--data-dir', dir]),
        /--input takes dollars per million tokens, e.g. 1\.25, not "/,
        `--input ${JSON.stringify(usd)}`,
      );
    assert.equal(await prices(), before, 'no price set');
    const ok = await cliAsync([
      'ledger',
      'prices',
      'set',
      'gpt-x',
      '--input',
      '.5',
      '--cached-input',
      '0',
      '--output',
      '12.',
      '--data-dir',
      dir,
    ]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /input \$0\.5, cached input \$0, output \$12\./);
    assert.equal((await cliAsync(['ledger', 'calls', '--limit', '500', '--data-dir', dir])).code, 0);
  } finally {
    removeDataDir(dir);
  }
});
