// An agent's role config: name, description, instructions, and its skills, MCP servers and APIs as JSON. On a paired
// phone the MCP servers are read-only and left out of the save: their commands are processes the agent's harness may
// start, so only the laptop changes them (the hub refuses the field from a device).
import { useState, type FormEvent } from 'react';
import type { AgentSummary } from '../../model';
import { usePairedDevice } from '../../stores/paired-device';
import { updateAgentConfig, type ConfigPatch } from '../../sync';
import { Dialog, ErrorLine } from '../common';

export function ConfigDialog({ agent, onClose }: { agent: AgentSummary; onClose: () => void }) {
  const c = agent.config;
  const onDevice = usePairedDevice((s) => s.me !== null);
  const [name, setName] = useState(c.name);
  const [description, setDescription] = useState(agent.description);
  const [instructions, setInstructions] = useState(c.instructions);
  const [skills, setSkills] = useState(JSON.stringify(c.skills, null, 2));
  const [servers, setServers] = useState(JSON.stringify(c.mcp_servers, null, 2));
  const [apis, setApis] = useState(JSON.stringify(c.apis, null, 2));
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const parse = (label: string, text: string): unknown[] => {
      const v: unknown = JSON.parse(text.trim() || '[]');
      if (!Array.isArray(v)) throw new Error(`${label} must be a JSON array.`);
      if (v.some((x) => !x || typeof x !== 'object' || typeof (x as { name?: unknown }).name !== 'string'))
        throw new Error(`Every item of ${label} needs a "name".`);
      return v;
    };
    let patch: ConfigPatch;
    try {
      patch = {
        name,
        description,
        instructions,
        skills: parse('Skills', skills) as ConfigPatch['skills'],
        ...(onDevice ? {} : { mcp_servers: parse('MCP servers', servers) as ConfigPatch['mcp_servers'] }),
        apis: parse('APIs', apis) as ConfigPatch['apis'],
      };
    } catch (err) {
      setError(err instanceof SyntaxError ? `Not valid JSON: ${err.message}` : (err as Error).message);
      return;
    }
    setError(null);
    const r = await updateAgentConfig(agent.name, patch);
    if (r) onClose();
  };
  return (
    <Dialog title={`Role config of ${agent.name}`} onClose={onClose} wide>
      <form className="form" onSubmit={submit}>
        <p className="muted small">
          Version {agent.config_version}. Saving a change raises the version; the agent gets config.updated and re-reads it with get_config.
        </p>
        <div className="field">
          <label htmlFor="cfg-name">Role name</label>
          <input id="cfg-name" value={name} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="cfg-desc">Description</label>
          <input id="cfg-desc" value={description} onChange={(e) => setDescription(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="cfg-instr">Instructions</label>
          <textarea id="cfg-instr" rows={5} value={instructions} onChange={(e) => setInstructions(e.target.value)} />
        </div>
        <div className="grid-3">
          <div className="field">
            <label htmlFor="cfg-skills">Skills (JSON)</label>
            <textarea
              id="cfg-skills"
              className="mono"
              rows={8}
              value={skills}
              onChange={(e) => setSkills(e.target.value)}
              spellCheck={false}
            />
            <span className="hint">
              [{'{'}"name", "description"?, "url"?{'}'}]
            </span>
          </div>
          <div className="field">
            <label htmlFor="cfg-servers">MCP servers (JSON)</label>
            <textarea
              id="cfg-servers"
              className="mono"
              rows={8}
              value={servers}
              onChange={(e) => setServers(e.target.value)}
              spellCheck={false}
              readOnly={onDevice}
              aria-describedby="cfg-servers-hint"
            />
            <span className="hint" id="cfg-servers-hint">
              {onDevice ? (
                'MCP servers can be changed only on the laptop.'
              ) : (
                <>
                  [{'{'}"name", "url"? or "command"/"args"?{'}'}]
                </>
              )}
            </span>
          </div>
          <div className="field">
            <label htmlFor="cfg-apis">APIs (JSON)</label>
            <textarea id="cfg-apis" className="mono" rows={8} value={apis} onChange={(e) => setApis(e.target.value)} spellCheck={false} />
            <span className="hint">
              [{'{'}"name", "base_url"?, "docs_url"?{'}'}]
            </span>
          </div>
        </div>
        <ErrorLine error={error} />
        <div className="row">
          <button type="submit" className="btn btn-primary">
            Save config
          </button>
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
