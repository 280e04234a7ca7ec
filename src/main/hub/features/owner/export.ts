// The owner's Export… in the app: the same export as `perch export` (store/export/write.ts), written by the hub
// from a read-only connection of its own in short steps between requests, into a file the owner door streams back.
import { z } from 'zod';
import type { TalkHub } from '../../talk/services';
import { HubError } from '../../../../shared/errors';
import { writeExport, type ExportResult, type ExportScope } from '../../../store/export/write';

export { ownerExportFolder } from '../../../store/export/write';

const ExportInput = z.strictObject({
  conversations: z.array(z.string().min(1).max(80)).max(1000).optional(),
  agent: z.string().min(1).max(80).optional(),
  since: z.string().max(40).optional(),
});

/** The scope of an owner's export request, checked; a HubError (invalid_argument) otherwise. */
export function exportScopeOf(raw: unknown): ExportScope {
  const r = ExportInput.safeParse(raw ?? {});
  if (!r.success)
    throw new HubError(
      'invalid_argument',
      `The export request is not {conversations?: [ids], agent?: name, since?: date}: ${r.error.issues[0]?.message ?? 'invalid'}.`,
      'Send e.g. {"conversations": ["c_…"]} or {} for everything.',
    );
  let since: number | undefined;
  if (r.data.since !== undefined) {
    since = Date.parse(r.data.since);
    if (!Number.isFinite(since))
      throw new HubError('invalid_argument', `since ${JSON.stringify(r.data.since)} is not a date.`, 'Send an ISO date, e.g. 2025-01-31.');
  }
  return { conversations: r.data.conversations, agent: r.data.agent, since };
}

/** Writes the export of this hub's database (the scope from exportScopeOf) to `out`. */
export function exportHub(hub: TalkHub, scope: ExportScope, out: string): Promise<ExportResult> {
  const file = hub.db.name;
  if (!file || hub.db.memory)
    throw new HubError('not_found', 'This hub has no database file to export.', 'Run the hub on a data dir (perch serve).');
  return writeExport(file, out, scope);
}
