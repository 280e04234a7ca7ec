// GET /files/<token>: a signed, short-lived link to a file or its thumbnail (made by file_url).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Hub } from '../hub/hub';
import { isHubError } from '../../shared/errors';
import { visibleText } from '../../shared/text';
import { sendJson } from '../http-util';

type FileReader = {
  verify: (hub: Hub, token: string) => { file_id: string; variant: 'original' | 'thumb' };
  read: (hub: Hub, fileId: string, variant: 'original' | 'thumb') => { data: Buffer; mime: string; name: string; disposition: 'inline' | 'attachment' };
};

let reader: FileReader | undefined;

/** The files module provides how tokens are checked and files read. */
export function setFileReader(r: FileReader): void {
  reader = r;
}

export function serveFileLink(hub: Hub, req: IncomingMessage, res: ServerResponse, token: string): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: { code: 'method_not_allowed', message: 'GET a file link.', next_step: 'Use GET.' } });
  if (!reader) return sendJson(res, 404, { error: { code: 'not_found', message: 'Files are not available.', next_step: 'Update Perch.' } });
  try {
    const { file_id, variant } = reader.verify(hub, decodeURIComponent(token));
    const f = reader.read(hub, file_id, variant);
    const name = visibleText(f.name); // no bidi override can disguise the saved name (shared/text.ts)
    const safeName = name.replace(/["\\\r\n]/g, '_');
    res.writeHead(200, {
      'Content-Type': f.mime,
      'Content-Length': f.data.length,
      // Only images the hub re-encoded are shown inline; anything else downloads (an uploaded HTML page never runs here).
      'Content-Disposition': `${f.disposition}; filename="${safeName}"; filename*=UTF-8''${encodeURIComponent(name)}`,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, max-age=300',
    });
    res.end(req.method === 'HEAD' ? undefined : f.data);
  } catch (err) {
    if (isHubError(err)) {
      const status = err.code === 'expired' ? 410 : err.code === 'forbidden' ? 403 : 404;
      return sendJson(res, status, { error: err.toBody() });
    }
    sendJson(res, 500, { error: { code: 'internal', message: 'Could not read the file.', next_step: 'Retry.' } });
  }
}
