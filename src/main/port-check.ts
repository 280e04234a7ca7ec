// What to tell the owner when Perch's port is taken. Agents are configured with Perch's URL and
// send their keys to it: whatever holds the port receives those keys.
import { DEFAULT_PORT } from './paths';

export type PortHolder = 'perch' | 'other' | 'unknown';

/** Asks whatever listens on 127.0.0.1:port whether it is a Perch hub (bounded: 1.5 s). */
export async function describePortHolder(port: number): Promise<PortHolder> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST', signal: AbortSignal.timeout(1500) });
    await res.arrayBuffer();
    return /realm="perch"/.test(res.headers.get('www-authenticate') ?? '') ? 'perch' : 'other';
  } catch {
    return 'unknown';
  }
}

/** The owner-facing explanation of a taken port (the CLI adds the --port hint itself). */
export function portTakenExplanation(port: number, holder: PortHolder): { holder: string; keys: string } {
  const who =
    holder === 'perch'
      ? 'another Perch hub (with another data dir) answers there'
      : holder === 'other'
        ? 'a program that is NOT Perch answers there'
        : 'something holds it that does not answer as Perch (another program, or one still starting or stopping)';
  const keys =
    holder === 'perch'
      ? `Agents configured for port ${port} talk to that other hub.`
      : `Agents configured for http://127.0.0.1:${port}/mcp send their keys to whatever holds the port: if you did not expect this, rotate your agents' keys (\`perch agent rotate-key NAME\`, or in the app) once Perch is back on its port.`;
  return { holder: who, keys };
}

/** The message `perch serve` prints when it cannot listen on its port. */
export function portTakenMessage(port: number, holder: PortHolder): string {
  const { holder: who, keys } = portTakenExplanation(port, holder);
  const def = port === DEFAULT_PORT ? ` (Perch's default port)` : '';
  return `port ${port} is in use${def}: ${who}. ${keys} Stop whatever holds it, or run on another port with --port N (--port 0 picks a free one) and point your agents at it.`;
}
