// `perch serve --durability normal|full` (and PERCH_DURABILITY): the mode reaches the hub's own
// SQLite connection (PRAGMA synchronous, reported by the owner's hub.info), and a bad value is
// refused before anything is created.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { cliAsync, ownerOk, startServe, tempDataDir } from '../support/serve-harness';

/** Starts a hub with these serve args (and PERCH_DURABILITY if given), returns hub.info's durability. */
async function durabilityOfServe(args: string[], env?: string): Promise<{ mode: string; synchronous: number }> {
  const saved = process.env.PERCH_DURABILITY;
  if (env === undefined) delete process.env.PERCH_DURABILITY;
  else process.env.PERCH_DURABILITY = env;
  let served;
  try {
    served = await startServe(tempDataDir(), { args });
  } finally {
    if (saved === undefined) delete process.env.PERCH_DURABILITY;
    else process.env.PERCH_DURABILITY = saved;
  }
  try {
    return (await ownerOk(served, 'hub.info')).durability;
  } finally {
    await served.stop();
  }
}

describe('perch serve --durability', () => {
  test('default is normal: the hub connection runs synchronous=NORMAL (1)', async () => {
    assert.deepEqual(await durabilityOfServe([]), { mode: 'normal', synchronous: 1 });
  });

  test('--durability full: the hub connection runs synchronous=FULL (2)', async () => {
    assert.deepEqual(await durabilityOfServe(['--durability', 'full']), { mode: 'full', synchronous: 2 });
  });

  test('PERCH_DURABILITY=full does the same; --durability wins over it', async () => {
    assert.deepEqual(await durabilityOfServe([], 'full'), { mode: 'full', synchronous: 2 });
    assert.deepEqual(await durabilityOfServe(['--durability', 'normal'], 'full'), { mode: 'normal', synchronous: 1 });
  });

  test('a bad --durability or PERCH_DURABILITY is refused with exit 2, a clear message, and nothing created', async () => {
    for (const [args, env, source] of [
      [['--durability', 'fast'], undefined, '--durability'],
      [['--durability', 'FULL'], undefined, '--durability'],
      [[], 'extra', 'PERCH_DURABILITY'],
    ] as const) {
      const dir = path.join(tempDataDir(), 'data');
      const r = await cliAsync(['serve', '--data-dir', dir, '--port', '0', '--json', ...args], { env: { PERCH_DURABILITY: env ?? '' } });
      assert.equal(r.code, 2, `${args.join(' ')} ${env ?? ''}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^perch: ${source} must be normal or full, not "`), r.stderr);
      assert.equal(r.stdout, '', 'no ready line');
      assert.equal(fs.existsSync(dir), false, 'no data dir was created');
    }
  });
});
