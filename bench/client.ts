// A small keep-alive JSON-RPC client for the benchmark's own probes (wake, owner stream, store
// queries). Runs in the benchmark process, never inside the hub.
import http from 'node:http';

export const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity, maxFreeSockets: 256 });

export interface CallResult {
  /** structuredContent of the tool result. */
  value: any;
  /** Time from writing the request to the last byte of the answer (ms). */
  ms: number;
  /** performance.now() when the answer was complete. */
  at: number;
}

let rpcId = 0;

export function post(
  port: number,
  path: string,
  body: string,
  headers: Record<string, string>,
  signal?: AbortSignal,
  timeoutMs = 70_000,
): Promise<{ status: number; text: string; at: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        signal,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8'), at: performance.now() }));
        res.on('error', reject);
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`request timed out after ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

export function mcpBody(tool: string, args: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method: 'tools/call', params: { name: tool, arguments: args } });
}

export function mcpHeaders(key: string): Record<string, string> {
  return { Accept: 'application/json, text/event-stream', Authorization: `Bearer ${key}` };
}

/** Calls one tool as the agent with this key; throws on any HTTP, JSON-RPC or tool error. */
export async function call(
  port: number,
  key: string,
  tool: string,
  args: Record<string, unknown> = {},
  signal?: AbortSignal,
): Promise<CallResult> {
  const t0 = performance.now();
  const r = await post(port, '/mcp', mcpBody(tool, args), mcpHeaders(key), signal);
  let msg: any;
  try {
    msg = JSON.parse(r.text);
  } catch {
    throw new Error(`${tool}: HTTP ${r.status}, not JSON: ${r.text.slice(0, 200)}`);
  }
  if (msg.error) throw new Error(`${tool}: JSON-RPC error ${msg.error.code} ${msg.error.message}`);
  const result = msg.result;
  if (!result || result.isError)
    throw new Error(`${tool}: tool error ${JSON.stringify(result?.structuredContent?.error ?? result).slice(0, 300)}`);
  return { value: result.structuredContent, ms: r.at - t0, at: r.at };
}

/** An owner SSE subscriber: calls onItem for every `data:` item of /api/owner/events. */
export function ownerStream(port: number, token: string, onItem: (item: any, at: number) => void): Promise<{ close(): void }> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: '/api/owner/events', headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' } },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`owner events: HTTP ${res.statusCode}`));
          res.resume();
          return;
        }
        res.setEncoding('utf8');
        let buf = '';
        let opened = false;
        res.on('data', (chunk: string) => {
          const at = performance.now();
          buf += chunk;
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            for (const line of block.split('\n')) {
              if (!line.startsWith('data: ')) continue;
              const item = JSON.parse(line.slice(6));
              if (!opened && item.kind === 'hub') {
                opened = true;
                resolve({ close: () => req.destroy() });
              }
              onItem(item, at);
            }
          }
        });
        res.on('error', () => undefined);
      },
    );
    req.on('error', (e) => reject(e));
    req.setTimeout(10_000, () => {
      if (!req.destroyed) req.destroy(new Error('owner events: no answer'));
    });
  });
}

// ---- statistics --------------------------------------------------------------------------------

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export function summarize(samples: number[]): {
  n: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  mean_ms: number;
} {
  const s = [...samples].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return {
    n: s.length,
    p50_ms: r3(percentile(s, 50)),
    p90_ms: r3(percentile(s, 90)),
    p99_ms: r3(percentile(s, 99)),
    max_ms: r3(s[s.length - 1] ?? NaN),
    mean_ms: r3(mean),
  };
}

/** An owner action on a running hub (its port and the owner token of its runtime.json); throws unless ok. */
export function ownerCaller(hub: { port: number; ownerToken: string }): (action: string, input: unknown) => Promise<any> {
  return async (action, input) => {
    const r = await post(hub.port, `/api/owner/${action}`, JSON.stringify(input), { Authorization: `Bearer ${hub.ownerToken}` });
    const j = JSON.parse(r.text);
    if (!j.ok) throw new Error(`${action}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
    return j.value;
  };
}

export function r3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
