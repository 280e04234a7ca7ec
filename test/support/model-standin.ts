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
  /** The HTTP headers of each request, in the same order (anthropic-beta names what a request asks the server for). */
  headers: http.IncomingHttpHeaders[];
  close(): Promise<void>;
}

/**
 * Claude Code's auto mode (2.1.332) has its safety check run on the server: a request that asks for it carries this
 * anthropic-beta (the verdicts would come back in the streamed message_delta, as delta.safeguard_results). Claude Code
 * asks for it only from Anthropic's own API, never through another ANTHROPIC_BASE_URL such as this stand-in.
 */
export const AUTO_MODE_CHECK_BETA = 'auto-mode-classifier-2026-07-16';

/** Whether a request (by its headers) asks the server for auto mode's safety check. */
export function asksAutoModeCheck(headers: http.IncomingHttpHeaders): boolean {
  return String(headers['anthropic-beta'] ?? '')
    .split(',')
    .map((b) => b.trim())
    .includes(AUTO_MODE_CHECK_BETA);
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

/**
 * A stand-in server on HOST, 127.0.0.1 unless given (its url: the origin and PREFIX): a POST to a path `accepts` takes,
 * with a JSON body, goes to `answer` (with the path); any other request gets 404 with NOTFOUND, a body that is not JSON
 * 400.
 */
function serveJsonPosts<T>(
  accepts: (path: string) => boolean,
  notFound: string,
  prefix: string,
  answer: (body: T, res: http.ServerResponse, headers: http.IncomingHttpHeaders, path: string) => void | Promise<void>,
  host = '127.0.0.1',
): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      if (req.method !== 'POST' || !accepts(path)) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(notFound);
        return;
      }
      let body: T;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as T;
      } catch {
        res.writeHead(400).end();
        return;
      }
      void answer(body, res, req.headers, path);
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://${host}:${port}${prefix}`,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      });
    });
  });
}

/**
 * Starts the stand-in; `reply` gives the content blocks of each answer (a tool_use block ends the turn with
 * stop_reason tool_use). It may be async: the answer waits for it (a test acts between two model turns). `host`: the
 * address it listens on (127.0.0.1 unless given; a container's bridge for a harness in a container).
 */
export function startStandIn(reply: (req: MessagesRequest, index: number) => Block[] | Promise<Block[]>, host?: string): Promise<StandIn> {
  const requests: MessagesRequest[] = [];
  const headers: http.IncomingHttpHeaders[] = [];
  const notFound = JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'not here' } });
  return serveJsonPosts(
    (p) => p === '/v1/messages',
    notFound,
    '',
    async (body: MessagesRequest, res, head) => {
      const index = requests.push(body) - 1;
      headers.push(head);
      let blocks: Block[];
      try {
        blocks = await reply(body, index);
      } catch (e) {
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(e) } }));
        return;
      }
      const id = `msg_standin_${++ids}`;
      const model = body.model ?? 'claude-standin';
      const stopReason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
      const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id,
            type: 'message',
            role: 'assistant',
            model,
            content: blocks,
            stop_reason: stopReason,
            stop_sequence: null,
            usage,
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      sse(res, 'message_start', {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { ...usage, output_tokens: 1 },
        },
      });
      blocks.forEach((b, i) => {
        if (b.type === 'text') {
          sse(res, 'content_block_start', { type: 'content_block_start', index: i, content_block: { type: 'text', text: '' } });
          sse(res, 'content_block_delta', { type: 'content_block_delta', index: i, delta: { type: 'text_delta', text: b.text } });
        } else {
          sse(res, 'content_block_start', {
            type: 'content_block_start',
            index: i,
            content_block: { type: 'tool_use', id: b.id, name: b.name, input: {} },
          });
          sse(res, 'content_block_delta', {
            type: 'content_block_delta',
            index: i,
            delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) },
          });
        }
        sse(res, 'content_block_stop', { type: 'content_block_stop', index: i });
      });
      sse(res, 'message_delta', {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        usage: { output_tokens: 5 },
      });
      sse(res, 'message_stop', { type: 'message_stop' });
      res.end();
    },
    host,
  ).then((s) => ({ ...s, requests, headers }));
}

// ---- the OpenAI Responses API, for Codex ---------------------------------------------------------

export type ResponsesItem =
  { type: 'message'; text: string } | { type: 'function_call'; call_id: string; name: string; arguments: Record<string, unknown> };

export interface ResponsesRequest {
  model?: string;
  tools?: { name?: string; type?: string }[];
  input: any[];
  [k: string]: unknown;
}

/** The function_call_output items of a Responses request. */
export function functionOutputs(req: ResponsesRequest): any[] {
  return (req.input ?? []).filter((i: any) => i?.type === 'function_call_output');
}

/** The tokens each response.completed reports (default: 1 in, 1 out, none cached). */
export interface ResponsesUsage {
  input: number;
  cached: number;
  output: number;
}

/**
 * A stand-in for the streamed Responses API (POST …/responses): response.created, one output item
 * (response.output_item.added / .done), response.completed with `usage`. `reply` gives the item of each answer; `host`
 * the address it listens on (127.0.0.1 unless given).
 */
export function startResponsesStandIn(
  reply: (req: ResponsesRequest) => ResponsesItem,
  usage: ResponsesUsage = { input: 1, cached: 0, output: 1 },
  host?: string,
): Promise<{ url: string; requests: ResponsesRequest[]; close(): Promise<void> }> {
  const requests: ResponsesRequest[] = [];
  let n = 0;
  return serveJsonPosts(
    (p) => p.endsWith('/responses'),
    '{}',
    '/v1',
    (body: ResponsesRequest, res) => {
      requests.push(body);
      const r = reply(body);
      const id = `resp_standin_${++n}`;
      const item =
        r.type === 'message'
          ? { type: 'message', id: `msg_${n}`, role: 'assistant', content: [{ type: 'output_text', text: r.text }] }
          : { type: 'function_call', id: `fc_${n}`, call_id: r.call_id, name: r.name, arguments: JSON.stringify(r.arguments) };
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const ev = (type: string, data: Record<string, unknown>) =>
        res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      ev('response.created', { response: { id } });
      ev('response.output_item.added', { output_index: 0, item });
      ev('response.output_item.done', { output_index: 0, item });
      ev('response.completed', {
        response: {
          id,
          usage: {
            input_tokens: usage.input,
            input_tokens_details: usage.cached ? { cached_tokens: usage.cached } : null,
            output_tokens: usage.output,
            output_tokens_details: null,
            total_tokens: usage.input + usage.output,
          },
        },
      });
      res.end();
    },
    host,
  ).then((s) => ({ ...s, requests }));
}

// ---- the OpenAI Chat Completions API, for GitHub Copilot CLI (COPILOT_PROVIDER_BASE_URL) ----------

export type ChatReply =
  { type: 'text'; text: string } | { type: 'tool_call'; id: string; name: string; arguments: Record<string, unknown> };

export interface ChatRequest {
  model?: string;
  stream?: boolean;
  tools?: { type?: string; function?: { name?: string } }[];
  messages: { role: string; content?: unknown; tool_call_id?: string; tool_calls?: unknown[] }[];
  [k: string]: unknown;
}

/** The names of the functions a Chat Completions request offers. */
export function chatToolNames(req: ChatRequest): string[] {
  return (req.tools ?? []).map((t) => t.function?.name ?? '').filter(Boolean);
}

/** The text of the tool message answering call ID in a Chat Completions request ('' when there is none). */
export function chatToolResult(req: ChatRequest, id: string): string | undefined {
  const m = req.messages.find((x) => x.role === 'tool' && x.tool_call_id === id);
  if (!m) return undefined;
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) return m.content.map((c: any) => (typeof c?.text === 'string' ? c.text : '')).join('');
  return '';
}

/**
 * A stand-in for the Chat Completions API (POST …/chat/completions): streamed as chat.completion.chunk events (the
 * role, the text or one tool call, finish_reason, a usage chunk, [DONE]) when the request asks for a stream, else one
 * chat.completion. `reply` gives each answer; it may be async (a test acts between two model turns).
 */
export function startChatStandIn(
  reply: (req: ChatRequest, index: number) => ChatReply | Promise<ChatReply>,
): Promise<{ url: string; requests: ChatRequest[]; close(): Promise<void> }> {
  const requests: ChatRequest[] = [];
  let n = 0;
  return serveJsonPosts(
    (p) => p.endsWith('/chat/completions'),
    JSON.stringify({ error: { message: 'not here', type: 'invalid_request_error' } }),
    '/v1',
    async (body: ChatRequest, res) => {
      const index = requests.push(body) - 1;
      let r: ChatReply;
      try {
        r = await reply(body, index);
      } catch (e) {
        res
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ error: { message: String(e), type: 'server_error' } }));
        return;
      }
      const id = `chatcmpl-standin-${++n}`;
      const model = body.model ?? 'standin';
      const created = Math.floor(Date.now() / 1000);
      const toolCall =
        r.type === 'tool_call'
          ? { id: r.id, type: 'function', function: { name: r.name, arguments: JSON.stringify(r.arguments) } }
          : undefined;
      const finish = toolCall ? 'tool_calls' : 'stop';
      const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
      if (!body.stream) {
        const message = toolCall
          ? { role: 'assistant', content: null, tool_calls: [toolCall] }
          : { role: 'assistant', content: r.type === 'text' ? r.text : '' };
        res.writeHead(200, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            id,
            object: 'chat.completion',
            created,
            model,
            choices: [{ index: 0, message, finish_reason: finish }],
            usage,
          }),
        );
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
        res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`);
      chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
      if (toolCall) chunk([{ index: 0, delta: { tool_calls: [{ index: 0, ...toolCall }] }, finish_reason: null }]);
      else chunk([{ index: 0, delta: { content: r.type === 'text' ? r.text : '' }, finish_reason: null }]);
      chunk([{ index: 0, delta: {}, finish_reason: finish }]);
      chunk([], { usage });
      res.write('data: [DONE]\n\n');
      res.end();
    },
  ).then((s) => ({ ...s, requests }));
}

// ---- the Gemini API, for Gemini CLI (GOOGLE_GEMINI_BASE_URL) ------------------------------------

export type GeminiPart =
  | { text: string }
  | { functionCall: { name: string; args: Record<string, unknown>; id?: string } }
  | { functionResponse: { name: string; response: Record<string, unknown>; id?: string } };

export interface GeminiRequest {
  /** The model named in the path (models/<model>:streamGenerateContent). */
  model: string;
  /** streamGenerateContent, generateContent or countTokens. */
  method: string;
  contents?: { role?: string; parts?: GeminiPart[] }[];
  tools?: { functionDeclarations?: { name: string }[] }[];
  [k: string]: unknown;
}

/** The function names a Gemini request offers. */
export function geminiToolNames(req: GeminiRequest): string[] {
  return (req.tools ?? []).flatMap((t) => (t.functionDeclarations ?? []).map((f) => f.name));
}

/** The functionResponse parts of a Gemini request's last turn (what the tools called in the turn before answered). */
export function geminiFunctionResponses(req: GeminiRequest): { name: string; response: Record<string, unknown> }[] {
  const last = req.contents?.[req.contents.length - 1];
  return (last?.parts ?? []).flatMap((p) => ('functionResponse' in p ? [p.functionResponse] : []));
}

/** What Gemini sent back for the function NAME anywhere in a request's turns (its response as JSON), or undefined. */
export function geminiFunctionResult(req: GeminiRequest, name: string): string | undefined {
  for (const c of req.contents ?? [])
    for (const p of c.parts ?? [])
      if ('functionResponse' in p && p.functionResponse.name === name) return JSON.stringify(p.functionResponse.response);
  return undefined;
}

/**
 * A stand-in for the Gemini API (POST /v1beta/models/<model>:<method>): streamGenerateContent answers as SSE (one
 * `data:` chunk with the parts, finishReason STOP and usageMetadata), generateContent as one JSON response, countTokens
 * with a count. `reply` gives the parts of each generate request (streamed or not); it may be async. `usage`: the
 * usageMetadata of every answer (default 10 prompt and 5 candidate tokens). `host`: the address it listens on
 * (127.0.0.1 unless given).
 */
export function startGeminiStandIn(
  reply: (req: GeminiRequest, index: number) => GeminiPart[] | Promise<GeminiPart[]>,
  usage: Record<string, number> = { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 },
  host?: string,
): Promise<{ url: string; requests: GeminiRequest[]; close(): Promise<void> }> {
  const requests: GeminiRequest[] = [];
  return serveJsonPosts(
    (p) => /^\/v1beta\/models\/[^/:]+:(?:streamGenerateContent|generateContent|countTokens)$/.test(p),
    JSON.stringify({ error: { code: 404, message: 'not here', status: 'NOT_FOUND' } }),
    '',
    async (body: Record<string, unknown>, res, _headers, path) => {
      const m = /^\/v1beta\/models\/([^/:]+):(\w+)$/.exec(path)!;
      if (m[2] === 'countTokens') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ totalTokens: 10 }));
        return;
      }
      const req = { ...body, model: m[1]!, method: m[2]! } as GeminiRequest;
      const index = requests.push(req) - 1;
      let parts: GeminiPart[];
      try {
        parts = await reply(req, index);
      } catch (e) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 500, message: String(e) } }));
        return;
      }
      const answer = {
        candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
        usageMetadata: usage,
        modelVersion: m[1],
      };
      if (m[2] === 'generateContent') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(`data: ${JSON.stringify(answer)}\r\n\r\n`);
      res.end();
    },
    host,
  ).then((s) => ({ ...s, requests }));
}
