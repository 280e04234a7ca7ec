// An agent's connection snippets again, after its key dialog closed.
import { awaySnippets, connectionSnippets, keyEnvVar } from '../../../shared/agents/snippets';
import { useSession } from '../../stores/session';
import { Dialog } from '../common';
import { Snippets } from './Snippets';

/** The connection snippets again, after the key dialog closed: the key stays unknown, they refer to PERCH_KEY_<AGENT>. */
export function ConnectDialog({ agent, from, onClose }: { agent: string; from?: string[]; onClose: () => void }) {
  const mcpUrl = useSession((s) => s.info?.mcp_url);
  const port = Number(/:(\d+)\/mcp$/.exec(mcpUrl ?? '')?.[1]) || 0;
  // Where its own key may connect from (containers, tailnet): the snippets for there too.
  const away = mcpUrl && from ? awaySnippets(agent, from, { port }, null) : {};
  const env = keyEnvVar(agent);
  return (
    <Dialog title={`Connect ${agent}`} onClose={onClose} wide>
      <p className="muted">
        Perch keeps only a hash of {agent}’s key, so these snippets use <code>${env}</code> where the key goes: set it to the key you were
        shown when you added {agent} (or rotate the key for a new one). Clients that cannot read the environment need the key pasted in
        place of <code>{`\${${env}}`}</code>.
      </p>
      {mcpUrl ? (
        <Snippets snippets={{ ...(from && !from.includes('local') ? {} : connectionSnippets(mcpUrl, agent, null)), ...away }} />
      ) : (
        <p className="muted">Loading…</p>
      )}
    </Dialog>
  );
}
