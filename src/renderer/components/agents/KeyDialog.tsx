// An agent's key, shown once (when added or rotated), with its connection snippets.
import type { AgentKeyResult } from '../../model';
import { keyEnvVar, keyExportLine } from '../../../shared/agents/snippets';
import { CopyButton, Dialog } from '../common';
import { Snippets } from './Snippets';

export function KeyDialog({ result, onClose }: { result: AgentKeyResult; onClose: () => void }) {
  const exportLine = keyExportLine(result.agent.name, result.key);
  return (
    <Dialog title={`Key for ${result.agent.name}`} onClose={onClose} wide>
      <p className="warn">This key is shown only now. Copy it into the agent’s MCP client; Perch cannot show it again.</p>
      <div className="key-box">
        <code aria-label="Agent key">{result.key}</code>
        <CopyButton text={result.key} label="Copy key" />
      </div>
      <p className="muted small">
        Every recipe below reads the key from {keyEnvVar(result.agent.name)}: put this in the shell that starts the client (or your shell
        profile):
      </p>
      <div className="key-box">
        <code aria-label="Export line">{exportLine}</code>
        <CopyButton text={exportLine} label="Copy export line" />
      </div>
      <Snippets snippets={result.snippets} />
      <p className="muted small">The recipes stay on the agent’s Connect button (with the key as {keyEnvVar(result.agent.name)}).</p>
      <div className="row">
        <button type="button" className="btn btn-primary" onClick={onClose}>
          I have copied it
        </button>
      </div>
    </Dialog>
  );
}
