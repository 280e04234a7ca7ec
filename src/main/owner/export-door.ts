// POST /api/owner/archive/export: the owner's Export… in the app. The body is the scope ({} = everything); the answer
// is the export itself (application/gzip, as an attachment), written to a private temporary file first by
// hub/features/owner/export.ts and streamed from it, then the file goes. Only for the laptop's owner session or the
// perch command (never a paired phone); a bad scope is a JSON refusal like any owner action's.
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PerchHub } from '../hub/services';
import { isHubError } from '../../shared/errors';
import { BodyTooLarge, readBody, sendInternalError, sendJson, statusOfCode } from '../http-util';
import { exportHub, exportScopeOf, ownerExportFolder } from '../hub/features/owner/export';
import { contentDisposition } from './files-door';

/** The scope is a small JSON object: 64 KiB is room for thousands of conversation ids. */
const MAX_BODY_BYTES = 64 * 1024;
const SCOPE_STEP = 'Send {} for everything, or {"conversations": ["c_…"]}.';

export async function serveExport(hub: PerchHub, req: IncomingMessage, res: ServerResponse): Promise<void> {
  let dir: string | undefined;
  try {
    let input: unknown = {};
    try {
      const buf = await readBody(req, MAX_BODY_BYTES);
      input = buf.length ? JSON.parse(buf.toString('utf8')) : {};
    } catch (err) {
      // Over the limit is content too large (413), as at the owner API's other doors (owner/http.ts).
      if (err instanceof BodyTooLarge)
        return sendJson(res, 413, {
          ok: false,
          error: { code: 'too_large', message: `The body is over ${err.limit} bytes.`, next_step: SCOPE_STEP },
        });
      if (res.destroyed) return;
      return sendJson(res, 400, {
        ok: false,
        error: { code: 'invalid_argument', message: 'The body is not JSON.', next_step: SCOPE_STEP },
      });
    }
    const scope = exportScopeOf(input);
    dir = ownerExportFolder(); // private; what a killed hub left is swept
    const out = path.join(dir, 'archive.tar.gz');
    const r = await exportHub(hub, scope, out);
    const name = `perch-archive-${new Date().toISOString().slice(0, 10)}.tar.gz`;
    res.writeHead(200, {
      'Content-Type': 'application/gzip',
      'Content-Length': String(r.bytes),
      'Content-Disposition': contentDisposition('attachment', name),
      'Cache-Control': 'no-store',
    });
    // pipeline ends when the answer has gone out or the client has gone (even before this point: then at once), and
    // closes the file either way, so the finally below always removes it.
    await pipeline(fs.createReadStream(out), res);
  } catch (err) {
    if (res.headersSent) return void res.destroy();
    if (isHubError(err)) return sendJson(res, statusOfCode(err.code), { ok: false, error: err.toBody() });
    sendInternalError(res, err, 'owner archive export');
  } finally {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }
}
