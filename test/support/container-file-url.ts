// Shared by the container tests: an agent in a container sends a file, then both it and an agent on the loopback ask
// for that file's link.
import { connect, type AgentKey, type Served } from './serve-harness';

/** `boxed` (reaching the hub at host.docker.internal through `fetch`) opens a direct conversation with the owner
 *  `homebody` and sends boxed.txt ("from the box"); answers the link file_url gives it and the one file_url gives
 *  `local` (on the loopback) for the same file. */
export async function fileUrlsFromBoxAndLoopback(
  served: Served,
  boxed: AgentKey,
  local: AgentKey,
  fetch: typeof globalThis.fetch,
): Promise<{ url: string; localUrl: string }> {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type R = any;
  const c = await connect('v1', `http://host.docker.internal:${served.port}/mcp`, boxed, { fetch });
  let url: string;
  let localUrl: string;
  try {
    const conv = (await c.ok('open_direct', { user: 'homebody' })) as R;
    const convId = conv.conversation.conv_id as string;
    const sent = (await c.ok('send_file', {
      conv_id: convId,
      name: 'boxed.txt',
      mime: 'text/plain',
      data: Buffer.from('from the box').toString('base64'),
    })) as R;
    url = ((await c.ok('file_url', { conv_id: convId, file_id: sent.file_id })) as R).url;
    const l = await connect('v1', served.mcpUrl, local);
    try {
      localUrl = ((await l.ok('file_url', { conv_id: convId, file_id: sent.file_id })) as R).url;
    } finally {
      await l.close();
    }
  } finally {
    await c.close();
  }
  return { url, localUrl };
}
