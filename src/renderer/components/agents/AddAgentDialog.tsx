// Agents, adding one: its name, description and instructions; its key is shown next (KeyDialog).
import { useState, type FormEvent } from 'react';
import type { AgentKeyResult } from '../../model';
import { addAgent } from '../../sync';
import { Dialog } from '../common';
import { nameProblem, suggestName } from '../../../shared/agents/agents';

export function AddAgentDialog({ onClose, onAdded }: { onClose: () => void; onAdded: (r: AgentKeyResult) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [instructions, setInstructions] = useState('');
  const [busy, setBusy] = useState(false);
  const [tried, setTried] = useState(false);
  const problem = nameProblem(name);
  const suggestion = problem ? suggestName(name) : '';
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (problem) return; // the name field says why, with a valid name to use
    setBusy(true);
    const input: { name: string; description?: string; instructions?: string } = { name };
    if (description.trim()) input.description = description.trim();
    if (instructions.trim()) input.instructions = instructions.trim();
    const r = await addAgent(input);
    setBusy(false);
    if (r) onAdded(r);
  };
  return (
    <Dialog title="Add an agent" onClose={onClose}>
      <form className="form" onSubmit={submit}>
        <div className="field">
          <label htmlFor="agent-name">Name</label>
          <input
            id="agent-name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="e.g. planner"
            autoFocus
            aria-invalid={!!problem && (tried || !!name)}
            aria-describedby="agent-name-hint"
          />
          {problem && (tried || name) ? (
            <span id="agent-name-hint" className="error small" role="alert">
              {problem}{' '}
              {suggestion && (
                <button type="button" className="link" onClick={() => setName(suggestion)}>
                  Use {suggestion}
                </button>
              )}
            </span>
          ) : (
            <span id="agent-name-hint" className="hint">
              1–40 characters: a–z, 0–9, - and _.
            </span>
          )}
        </div>
        <div className="field">
          <label htmlFor="agent-desc">Description</label>
          <input
            id="agent-desc"
            value={description}
            onChange={(e) => setDescription(e.target.value)}
            placeholder="What this agent is for"
          />
        </div>
        <div className="field">
          <label htmlFor="agent-instr">Instructions</label>
          <textarea
            id="agent-instr"
            rows={4}
            value={instructions}
            onChange={(e) => setInstructions(e.target.value)}
            placeholder="What it should follow (it reads them with get_config)"
          />
        </div>
        <div className="row">
          <button type="submit" className="btn btn-primary" disabled={busy}>
            Add agent
          </button>
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
