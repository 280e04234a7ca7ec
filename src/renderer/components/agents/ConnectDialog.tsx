// An agent's connection snippets again, after its key dialog closed.
import { connectionSnippets, keyEnvVar } from '../../../shared/snippets';
import { harnessSnippets } from '../../../shared/harness-config';
import { useSession } from '../../stores/session';
import { Dialog } from '../common';
import { Snippets } from './Snippets';

/** The connection snippets again, after the key dialog closed: the key stays unknown, they refer to PERCH_KEY_<AGENT>. */
export function ConnectDialog({ agent, onClose }: { agent: string; onClose: () => void }) {
  const mcpUrl = useSession((s) => s.info?.mcp_url);
  const env = keyEnvVar(agent);
  return (
    <Dialog title={`Connect ${agent}`} onClose={onClose} wide>
      <p className="muted">
        Perch keeps only a hash of {agent}’s key, so these snippets use <code>${env}</code> where the key goes: set it to the key you were shown when you added{' '}
        {agent} (or rotate the key for a new one). Clients that cannot read the environment need the key pasted in place of <code>{`\${${env}}`}</code>.
      </p>
      {mcpUrl ? <Snippets snippets={{ ...harnessSnippets(mcpUrl, agent), ...connectionSnippets(mcpUrl, agent, null) }} /> : <p className="muted">Loading…</p>}
    </Dialog>
  );
}
