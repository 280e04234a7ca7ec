// Settings → Export: the owner downloads the whole history as one archive from the app, with a readable
// transcript of each conversation inside it.
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useHarness } from './harness';
import { readTar } from '../src/main/store/archive-tar';

describe('Settings → Export', () => {
  const h = useHarness({ agents: ['scribe'] });

  test('Export… downloads an archive whose transcript shows who said what', async () => {
    const { page, agents, dataDir } = h();
    const conv = (await agents.scribe!.call('create_group', { title: 'Minutes', members: [] })).conversation.conv_id as string;
    await agents.scribe!.call('send_message', { conv_id: conv, text: 'The minutes of today' });

    await page.getByRole('navigation', { name: 'Perch' }).getByRole('link', { name: /^Settings/ }).click();
    await page.getByRole('heading', { level: 2, name: 'Export' }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30_000 }), page.getByRole('button', { name: 'Export…' }).click()]);
    assert.match(download.suggestedFilename(), /^perch-archive-\d{4}-\d{2}-\d{2}\.tar\.gz$/);
    const file = path.join(dataDir, 'downloaded.tar.gz');
    await download.saveAs(file);
    await page.getByRole('status').filter({ hasText: /^Saved perch-archive-/ }).waitFor();

    const names: string[] = [];
    let transcript = '';
    for await (const e of readTar(Readable.from(zlib.gunzipSync(fs.readFileSync(file))))) {
      names.push(e.name);
      const chunks: Buffer[] = [];
      for await (const c of e.body) chunks.push(c);
      if (e.name === `transcripts/${conv}.md`) transcript = Buffer.concat(chunks).toString('utf8');
    }
    assert.equal(names[0], 'manifest.json');
    assert.ok(names.includes('messages.jsonl'));
    assert.match(transcript, /^# Minutes/);
    assert.match(transcript, /\*\*scribe\*\* · .*\n\n> The minutes of today/);
    assert.deepEqual(h().pageErrors, []);
  });
});
