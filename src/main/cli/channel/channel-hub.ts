// How `perch channel` talks to the hub: one JSON-RPC message per POST to /mcp with the agent's key (the hub's
// MCP door is stateless), either forwarded as the harness sent it (the bridge) or a tools/call of the channel's own.
// Node built-ins only: dist/channel.js starts with the harness's session.

type Json = Record<string, unknown>;

/** The hub cannot be reached, refused the key, or answered something that is not JSON-RPC. */
export class HubDown extends Error {
  constructor(
    message: string,
    readonly unauthorized = false,
  ) {
    super(message);
  }
}

/** A tool error from the hub (result.isError), with its code. */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** A call that does not wait must answer within this. */
export const CALL_TIMEOUT_MS = 10_000;

export class ChannelHub {
  /** The protocol version the session negotiated (sent as MCP-Protocol-Version once known). */
  protocolVersion: string | undefined;
  private nextId = 1;

  constructor(
    readonly url: string,
    private readonly key: string,
  ) {}

  /** POSTs one JSON-RPC message; the parsed body (undefined for 202 and other empty answers). */
  async post(msg: Json, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Json | undefined> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      Authorization: `Bearer ${this.key}`,
    };
    const meta = obj(obj(msg.params)?._meta);
    const version =
      typeof meta?.['io.modelcontextprotocol/protocolVersion'] === 'string'
        ? (meta['io.modelcontextprotocol/protocolVersion'] as string)
        : this.protocolVersion;
    if (version && msg.method !== 'initialize') headers['MCP-Protocol-Version'] = version;
    const signals = [AbortSignal.timeout(opts.timeoutMs ?? CALL_TIMEOUT_MS)];
    if (opts.signal) signals.push(opts.signal);
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.url, { method: 'POST', headers, body: JSON.stringify(msg), signal: AbortSignal.any(signals) });
      text = await res.text();
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      const cause = (e as { cause?: { code?: string; message?: string; errors?: Array<{ code?: string }> } }).cause;
      const why =
        (e as Error).name === 'TimeoutError'
          ? `no answer within ${Math.round((opts.timeoutMs ?? CALL_TIMEOUT_MS) / 1000)} s`
          : (cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? (e as Error).message);
      throw new HubDown(`cannot reach the Perch hub at ${this.url} (${why}); is \`perch serve\` (or the app) running?`);
    }
    if (res.status === 401)
      throw new HubDown(`the Perch hub at ${this.url} refused the agent key (HTTP 401): check the key in the channel's environment`, true);
    if (!text) return undefined;
    try {
      const body = JSON.parse(text) as unknown;
      if (obj(body)) return body as Json;
    } catch {
      // fall through
    }
    throw new HubDown(`unexpected answer from ${this.url} (HTTP ${res.status})`);
  }

  /**
   * Files a harness's permission prompt through the hook door (POST /hook, shared/api/prompt-filing.ts): request_human's
   * answer; a refusal is a ToolError, the hub down a HubDown.
   */
  async filePrompt(filing: Json, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Json> {
    const url = hookDoorUrl(this.url);
    const signals = [AbortSignal.timeout(opts.timeoutMs ?? CALL_TIMEOUT_MS)];
    if (opts.signal) signals.push(opts.signal);
    let res: Response;
    let text: string;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.key}` },
        body: JSON.stringify(filing),
        signal: AbortSignal.any(signals),
      });
      text = await res.text();
    } catch (e) {
      if (opts.signal?.aborted) throw e;
      throw new HubDown(
        `cannot reach the Perch hub at ${url} (${(e as Error).name === 'TimeoutError' ? 'no answer in time' : (e as Error).message}); is \`perch serve\` (or the app) running?`,
      );
    }
    if (res.status === 401)
      throw new HubDown(`the Perch hub at ${url} refused the agent key (HTTP 401): check the key in the channel's environment`, true);
    let body: Json | undefined;
    try {
      body = obj(JSON.parse(text));
    } catch {
      body = undefined;
    }
    const request = obj(body?.request);
    if (body?.ok === true && request) return request;
    const err = obj(body?.error);
    if (err) throw new ToolError(String(err.code ?? 'error'), `filing the prompt: ${String(err.message ?? 'failed')}`);
    throw new HubDown(`unexpected answer from ${url} (HTTP ${res.status})`);
  }

  /** One tools/call of the channel's own; a tool error is a ToolError, the hub down a HubDown. */
  async call(tool: string, args: Json, opts: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<Json> {
    const body = await this.post(
      { jsonrpc: '2.0', id: `perch-channel-${this.nextId++}`, method: 'tools/call', params: { name: tool, arguments: args } },
      opts,
    );
    const err = obj(body?.error);
    if (err) throw new ToolError('protocol', `${tool}: ${String(err.message ?? JSON.stringify(err))}`);
    const result = obj(body?.result);
    if (!result) throw new HubDown(`${tool}: unexpected answer from ${this.url}`);
    const out = (obj(result.structuredContent) ?? {}) as Json;
    if (result.isError) {
      const e = obj(out.error) ?? {};
      throw new ToolError(String(e.code ?? 'error'), `${tool}: ${String(e.message ?? 'failed')}`);
    }
    return out;
  }
}

/** The hook door's URL beside the MCP URL (…/mcp → …/hook), where a harness's permission prompt is filed. */
export function hookDoorUrl(mcp: string): string {
  const u = new URL(mcp);
  u.pathname = u.pathname.replace(/\/mcp\/?$/, '') + '/hook';
  return u.toString();
}

export function obj(v: unknown): Json | undefined {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}
