// Start a direct conversation, a group or a task channel with some of the owner's agents.
import { useState, type FormEvent } from 'react';
import { useAgents } from '../../stores/agents';
import { createConversation, hrefOf, showNewConversation } from '../../sync';
import { Dialog } from '../common';

export function NewConversationDialog() {
  const all = useAgents((s) => s.list);
  const agents = all.filter((a) => !a.revoked);
  const [kind, setKind] = useState<'direct' | 'group' | 'task'>('direct');
  const [title, setTitle] = useState('');
  const [members, setMembers] = useState<string[]>([]);
  const [assignee, setAssignee] = useState('');
  const close = () => showNewConversation(false);
  const valid = kind === 'direct' ? members.length === 1 : title.trim().length > 0;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!valid) return;
    const r = await createConversation(kind, { title: title.trim(), members, ...(kind === 'task' && assignee ? { assignee } : {}) });
    if (r) close();
  };
  return (
    <Dialog title="New conversation" onClose={close}>
      <form className="form" onSubmit={submit}>
        <div className="segmented" role="radiogroup" aria-label="Kind">
          {(['direct', 'group', 'task'] as const).map((k) => (
            <label key={k} className={kind === k ? 'active' : ''}>
              <input
                type="radio"
                name="kind"
                value={k}
                checked={kind === k}
                onChange={() => {
                  setKind(k);
                  setMembers([]);
                }}
              />
              {k === 'direct' ? 'Direct' : k === 'group' ? 'Group' : 'Task'}
            </label>
          ))}
        </div>
        {kind !== 'direct' && (
          <div className="field">
            <label htmlFor="new-title">Title</label>
            <input
              id="new-title"
              value={title}
              onChange={(e) => setTitle(e.target.value)}
              required
              placeholder={kind === 'task' ? 'What needs doing' : 'Group name'}
            />
          </div>
        )}
        <fieldset className="field">
          <legend>{kind === 'direct' ? 'With' : 'Members'}</legend>
          {agents.length === 0 && (
            <p className="muted">
              No agents yet.{' '}
              <a href={hrefOf({ name: 'agents' })} onClick={close}>
                Add an agent
              </a>{' '}
              first, then start a conversation with it.
            </p>
          )}
          <div className="member-picks">
            {agents.map((a) => (
              <label key={a.id} className="check">
                <input
                  type={kind === 'direct' ? 'radio' : 'checkbox'}
                  name="members"
                  checked={members.includes(a.name)}
                  onChange={(e) =>
                    setMembers(kind === 'direct' ? [a.name] : e.target.checked ? [...members, a.name] : members.filter((m) => m !== a.name))
                  }
                />
                {a.name}
              </label>
            ))}
          </div>
        </fieldset>
        {kind === 'task' && (
          <div className="field">
            <label htmlFor="new-assignee">Assignee</label>
            <select id="new-assignee" value={assignee} onChange={(e) => setAssignee(e.target.value)}>
              <option value="">Nobody yet</option>
              {members.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </div>
        )}
        <div className="row">
          <button type="submit" className="btn btn-primary" disabled={!valid}>
            {kind === 'direct' ? 'Open' : 'Create'}
          </button>
          <button type="button" className="btn btn-ghost" onClick={close}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}
