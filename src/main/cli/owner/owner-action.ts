// One owner action from a `perch` command: on the running hub when one serves the data dir (so every open window
// sees the change at once, through the hub's live stream), else on the database file itself (hub/ on the file, as
// `perch agent` does). Either way the same contract (src/shared/api/owner-api.ts) checks the input first.
import type { OwnerAction, OwnerArgs, OwnerResult } from '../../../shared/api/owner-api';
import { HubError, type ErrorCode } from '../../../shared/errors';
import path from 'node:path';
import { DB_FILE_NAME, openDatabase } from '../../store/db/db';
import { createHub } from '../../hub-services';
import { fail, postJson } from '../common';

export async function ownerAction<A extends OwnerAction>(dataDir: string, action: A, input: OwnerArgs<A>): Promise<OwnerResult<A>> {
  const { liveHubOf } = await import('../../app');
  const rt = await liveHubOf(dataDir);
  if (!rt) {
    const { runOwnerAction } = await import('../../owner/actions');
    const db = openDatabase(path.join(dataDir, DB_FILE_NAME));
    try {
      return (await runOwnerAction(createHub({ db }), action, input)) as OwnerResult<A>;
    } finally {
      db.close();
    }
  }
  let r;
  try {
    r = await postJson(`${rt.base_url}/api/owner/${action}`, input, { Authorization: `Bearer ${rt.owner_token}` });
  } catch (e) {
    fail(`cannot reach the hub at ${rt.base_url}: ${(e as Error).message}. Is \`perch serve\` still running?`);
  }
  if (r.json?.ok) return r.json.value as OwnerResult<A>;
  const err = r.json?.error;
  if (err && typeof err.code === 'string') throw new HubError(err.code as ErrorCode, String(err.message), String(err.next_step ?? ''));
  fail(`${r.status} unexpected answer: ${r.text.slice(0, 300)}`);
}
