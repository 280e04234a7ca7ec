// An agent's key, shown once (when added or rotated), with its connection snippets.
import type { AgentKeyResult } from '../../model';
import { keyEnvVar } from '../../../shared/snippets';
import { harnessSnippets } from '../../../shared/harness-config';
import { useSession } from '../../stores/session';
import { CopyButton, Dialog } from '../common';
import { Snippets } from './Snippets';

export function KeyDialog({ result, onClose }: { result: AgentKeyResult; onClose: () => void }) {
  const mcpUrl = useSession((s) => s.info?.mcp_url);
  return (
    <Dialog title={`Key for ${result.agent.name}`} onClose={onClose} wide>
      <p className="warn">This key is shown only now. Copy it into the agent’s MCP client; Perch cannot show it again.</p>
      <div className="key-box">
        <code aria-label="Agent key">{result.key}</code>
        <CopyButton text={result.key} label="Copy key" />
      </div>
      <Snippets snippets={{ ...(mcpUrl ? harnessSnippets(mcpUrl, result.agent.name) : {}), ...result.snippets }} />
      <p className="muted small">The snippets stay on the agent’s Connect button (with the key as {keyEnvVar(result.agent.name)}).</p>
      <div className="row">
        <button type="button" className="btn btn-primary" onClick={onClose}>
          I have copied it
        </button>
      </div>
    </Dialog>
  );
}
