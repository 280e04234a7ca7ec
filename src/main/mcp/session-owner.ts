// One agent answers for a session (hub/control/connections.ts): a harness door's hook from agent A whose session's
// folder is covered more specifically by another agent's recorded connection is answered with the harness's "no
// decision" and nothing else: no card filed, no status noted. The hooks of that other agent answer instead.
// A wake run's hooks (the run's own key) are never silenced: Perch started that session for its agent (hook-door.ts).
import type { PerchHub as Hub } from '../hub/services';
import { otherAgentAnswers } from '../hub/control/connections';

/** The session's folder in a hook's input: Claude Code's and Codex's cwd; Cursor's cwd, else its first workspace root. */
export function sessionFolder(text: string): string | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (typeof o.cwd === 'string' && o.cwd) return o.cwd;
  const roots = o.workspace_roots;
  return Array.isArray(roots) && typeof roots[0] === 'string' ? roots[0] : undefined;
}

/** The agent answering instead of agentId for this hook's session (so this hook stays silent), or undefined. */
export function answeredByAnother(hub: Hub, harness: string, agentId: string, text: string): string | undefined {
  // Cheap when nothing is recorded for the harness: the folder is only read when a connection could cover it.
  return otherAgentAnswers(hub.db, harness, agentId, () => sessionFolder(text));
}
