// The name the hub files a Cursor MCP tool call under (the tool of a standing rule): "MCP:<tool_name>@<server>", the
// server as Cursor names it (its url, else its command; shared/agents/hook-wire.ts, the Cursor section). A server
// name longer than MAX_SERVER_CHARS is shortened and made unique by a hash of the whole; a prompt without a server is
// "MCP:<tool_name>@(unknown server)".
import { createHash } from 'node:crypto';

/** The server part of an MCP tool's name, at most (the rest of the 200 characters a tool name may have is the tool's). */
const MAX_SERVER_CHARS = 100;

/** The name Perch files a Cursor MCP tool call under: the tool and its server. */
export function cursorMcpToolName(tool: string, server: string | undefined): string {
  if (server === undefined || !server.trim()) return `MCP:${tool}@(unknown server)`;
  const s = server.trim();
  const named =
    s.length <= MAX_SERVER_CHARS ? s : `${s.slice(0, MAX_SERVER_CHARS - 20)}…#${createHash('sha256').update(s).digest('hex').slice(0, 16)}`;
  return `MCP:${tool}@${named}`;
}
