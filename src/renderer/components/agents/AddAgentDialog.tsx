// Agents, adding one: its name, description and instructions; its key is shown next (KeyDialog).
import { useState, type FormEvent } from 'react';
import type { AgentKeyResult } from '../../model';
import { addAgent } from '../../sync';
import { Dialog } from '../common';

export function AddAgentDialog({ onClose, onAdded }: { onClose: () => void; onAdded: (r: AgentKeyResult) => void }) {
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [instructions, setInstructions] = useState('');
  const [busy, setBusy] = useState(false);
  const valid = /^[a-z0-9][a-z0-9_-]{0,39}$/.test(name);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!valid) return;
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
          <input id="agent-name" value={name} onChange={(e) => setName(e.target.value.toLowerCase())} placeholder="e.g. planner" required autoFocus aria-describedby="agent-name-hint" />
          <span id="agent-name-hint" className="hint">
            1–40 characters: a–z, 0–9, - and _.
          </span>
        </div>
        <div className="field">
          <label htmlFor="agent-desc">Description</label>
          <input id="agent-desc" value={description} onChange={(e) => setDescription(e.target.value)} placeholder="What this agent is for" />
        </div>
        <div className="field">
          <label htmlFor="agent-instr">Instructions</label>
          <textarea id="agent-instr" rows={4} value={instructions} onChange={(e) => setInstructions(e.target.value)} placeholder="What it should follow (it reads them with get_config)" />
        </div>
        <div className="row">
          <button type="submit" className="btn btn-primary" disabled={!valid || busy}>
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
