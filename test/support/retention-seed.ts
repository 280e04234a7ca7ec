// Shared seed for the retention tests that run a real `perch serve`: a fresh data dir whose store already holds old
// messages, written through a hub whose clock stands 100 days back.
import path from 'node:path';
import { tempDataDir } from './serve-harness';
import { openDatabase } from '../../src/main/store/db/db';
import { createHub } from '../../src/main/hub-services';
import { addAgent } from '../../src/main/hub/control/agents';
import { runOwnerAction } from '../../src/main/owner/actions';

const DAY = 24 * 60 * 60 * 1000;

/** A new data dir with the group "old times" (agent `elder` a member) holding five owner messages `long ago 0..4`,
 *  all sent 100 days ago; answers the dir and the conversation's id. */
export async function dataDirWithOldHistory(): Promise<{ dir: string; conv: string }> {
  const dir = tempDataDir();
  const db = openDatabase(path.join(dir, 'perch.sqlite'));
  const old = Date.now() - 100 * DAY;
  const hub = createHub({ db, now: () => old });
  const { agent } = addAgent(hub, { name: 'elder' });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const conv = ((await runOwnerAction(hub, 'conversations.create_group', { title: 'old times', members: [agent.name] })) as any)
    .conversation.conv_id as string;
  for (let i = 0; i < 5; i++) await runOwnerAction(hub, 'messages.send', { conv_id: conv, text: `long ago ${i}` });
  hub.close();
  db.close();
  return { dir, conv };
}
