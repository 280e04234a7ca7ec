// The environment variable an agent's key is kept in (its own module so that the config builders,
// harness-config.ts, and the snippets, snippets.ts, which use each other's parts, import it without a cycle).

/** PERCH_KEY_<AGENT>: the environment variable a snippet keeps the agent's key in. */
export function keyEnvVar(agent: string): string {
  return `PERCH_KEY_${agent.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;
}
