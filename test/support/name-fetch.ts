// A fetch that resolves host names the way a container's /etc/hosts does (`--add-host=host.docker.internal:…`):
// the URL keeps its name (so Host is host.docker.internal:PORT) and the connection goes to the address given.
// Plain node:http underneath, so the official MCP clients can use it (their transports take a fetch).
import http from 'node:http';
import { Readable } from 'node:stream';

export function fetchResolving(names: Record<string, string>): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' || input instanceof URL ? input : input.url);
    const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
    const body =
      init?.body == null ? undefined : typeof init.body === 'string' ? init.body : Buffer.from(await new Response(init.body).arrayBuffer());
    return new Promise<Response>((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method: init?.method ?? 'GET',
          headers: Object.fromEntries(headers.entries()),
          lookup: (host, options, cb) => {
            const address = names[host];
            if (!address) return cb(new Error(`no address for ${host}`) as NodeJS.ErrnoException, '', 4);
            if ((options as { all?: boolean }).all)
              return (cb as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [{ address, family: 4 }]);
            cb(null, address, 4);
          },
        },
        (res) => {
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : v);
          const status = res.statusCode ?? 500;
          const noBody = status === 202 || status === 204 || status === 304;
          if (noBody) res.resume();
          resolve(new Response(noBody ? null : (Readable.toWeb(res) as ReadableStream), { status, headers: h }));
        },
      );
      req.on('error', reject);
      init?.signal?.addEventListener('abort', () => req.destroy(new Error('aborted')));
      req.end(body);
    });
  }) as typeof fetch;
}
