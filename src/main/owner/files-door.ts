// GET /files/<token>: a signed, short-lived link to a file or its thumbnail (made by file_url). On the loopback, the
// owner's and local agents' links; on the container listener and through the HTTPS front, only the links made for an
// agent that called from there (listeners.ts), each door its own form (hub/features/files/files.ts verifyAwayFileToken).
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PerchHub } from '../hub/services';
import { isHubError } from '../../shared/errors';
import { visibleText } from '../../shared/text/text';
import { sendInternalError, sendJson } from '../http-util';

type FileReader = {
  verify: (hub: PerchHub, token: string) => { file_id: string; variant: 'original' | 'thumb' };
  verifyAway: (hub: PerchHub, token: string, place: 'containers' | 'tailnet') => { file_id: string; variant: 'original' | 'thumb' };
  read: (
    hub: PerchHub,
    fileId: string,
    variant: 'original' | 'thumb',
  ) => { data: Buffer; mime: string; name: string; disposition: 'inline' | 'attachment' };
};

let reader: FileReader | undefined;

/** The files module provides how tokens are checked and files read. */
export function setFileReader(r: FileReader): void {
  reader = r;
}

/**
 * Content-Disposition for a file name of any script (RFC 6266): an ASCII-only `filename="…"` for old
 * clients (anything else becomes _) and the real name as RFC 5987 `filename*=UTF-8''…`. Every byte of the
 * header is ASCII, so no name can make writeHead throw.
 */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(name.replace(/\p{Cs}/gu, '\ufffd')).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/**
 * token: the part of the path after /files/, percent-decoded already (parseTarget). away: the door is the container
 * listener or the HTTPS front, and only links made for an agent calling from there are served.
 */
export function serveFileLink(
  hub: PerchHub,
  req: IncomingMessage,
  res: ServerResponse,
  token: string,
  away?: 'containers' | 'tailnet',
): void {
  if (req.method !== 'GET' && req.method !== 'HEAD')
    return sendJson(res, 405, { error: { code: 'method_not_allowed', message: 'GET a file link.', next_step: 'Use GET.' } });
  if (!reader) return sendJson(res, 404, { error: { code: 'not_found', message: 'Files are not available.', next_step: 'Update Perch.' } });
  try {
    const { file_id, variant } = away ? reader.verifyAway(hub, token, away) : reader.verify(hub, token);
    const f = reader.read(hub, file_id, variant);
    const name = visibleText(f.name); // no bidi override can disguise the saved name (shared/text/text.ts)
    res.writeHead(200, {
      'Content-Type': f.mime,
      'Content-Length': f.data.length,
      // Only images the hub re-encoded are shown inline; anything else downloads (an uploaded HTML page never runs here).
      'Content-Disposition': contentDisposition(f.disposition, name),
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
    sendInternalError(res, err, 'file link');
  }
}
