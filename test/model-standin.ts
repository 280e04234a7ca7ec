// A scripted stand-in for the Anthropic Messages API on 127.0.0.1, so the real Claude Code runs offline in
// tests (ANTHROPIC_BASE_URL points here). Every POST /v1/messages is recorded and answered by the test's
// `reply` function: streamed (message_start, content_block_start / _delta / _stop, message_delta,
// message_stop) when the request asks for a stream, else one JSON message. Anything else gets 404.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface MessagesRequest {
  model?: string;
  stream?: boolean;
  tools?: { name: string }[];
  messages: { role: string; content: string | any[] }[];
  [k: string]: unknown;
}

export interface StandIn {
  url: string;
  /** Every Messages request so far, in order. */
  requests: MessagesRequest[];
  close(): Promise<void>;
}

/** The tool_result blocks of the last user message of a request. */
export function toolResults(req: MessagesRequest): any[] {
  const last = req.messages[req.messages.length - 1];
  if (!last || last.role !== 'user' || typeof last.content === 'string') return [];
  return last.content.filter((b: any) => b?.type === 'tool_result');
}

/** The text of a tool_result block (string content or text blocks). */
export function resultText(block: any): string {
  if (typeof block?.content === 'string') return block.content;
  if (Array.isArray(block?.content)) return block.content.map((c: any) => (typeof c?.text === 'string' ? c.text : '')).join('');
  return '';
}

function sse(res: http.ServerResponse, event: string, data: unknown): void {
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

let ids = 0;

/** Starts the stand-in; `reply` gives the content blocks of each answer (a tool_use block ends the turn with stop_reason tool_use). */
export function startStandIn(reply: (req: MessagesRequest, index: number) => Block[]): Promise<StandIn> {
  const requests: MessagesRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.method !== 'POST' || url.pathname !== '/v1/messages') {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'not here' } }));
        return;
      }
      let body: MessagesRequest;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as MessagesRequest;
      } catch {
        res.writeHead(400).end();
        return;
      }
      const index = requests.push(body) - 1;
      let blocks: Block[];
      try {
        blocks = reply(body, index);
      } catch (e) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(e) } }));
        return;
      }
      const id = `msg_standin_${++ids}`;
      const model = body.model ?? 'claude-standin';
      const stopReason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
      const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ id, type: 'message', role: 'assistant', model, content: blocks, stop_reason: stopReason, stop_sequence: null, usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      sse(res, 'message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } });
      blocks.forEach((b, i) => {
        if (b.type === 'text') {
          sse(res, 'content_block_start', { type: 'content_block_start', index: i, content_block: { type: 'text', text: '' } });
          sse(res, 'content_block_delta', { type: 'content_block_delta', index: i, delta: { type: 'text_delta', text: b.text } });
        } else {
          sse(res, 'content_block_start', { type: 'content_block_start', index: i, content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} } });
          sse(res, 'content_block_delta', { type: 'content_block_delta', index: i, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } });
        }
        sse(res, 'content_block_stop', { type: 'content_block_stop', index: i });
      });
      sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: 5 } });
      sse(res, 'message_stop', { type: 'message_stop' });
      res.end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests,
        close: () => new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
      });
    });
  });
}
