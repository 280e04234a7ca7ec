// Agents: add one (its key shown once, with copy-ready connection snippets), edit its role config,
// rotate or revoke its key.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { AgentKeyResult, AgentSummary } from '../model';
import { useAgents } from '../stores/agents';
import { addAgent, addAgentKey, listAgentKeys, openDirectWith, revokeAgent, revokeAgentKey, rotateKey, setAgentBudget, updateAgentConfig, type ConfigPatch } from '../sync';
import { KEY_SCOPES, type AgentKeyView, type KeyScope } from '../../shared/sessions';
import { connectionSnippets, keyEnvVar } from '../../shared/snippets';
import { useSession } from '../stores/session';
import { dateTimeOf } from '../format';
import { CapsForm, PauseButton, PausedBadge, pauseText } from './Control';
import { Avatar, ConfirmDialog, CopyButton, Dialog } from './common';
import { ReviewToggle } from './HeldItems';
import { WakeDialog } from './WakeDialog';

const ENV_HINT = 'Put the first line in your shell profile (e.g. ~/.zshrc) and restart the app, then';
const SNIPPETS: Array<{ key: string; label: string; hint: string }> = [
  { key: 'claude_code', label: 'Claude Code', hint: 'Run in a terminal (--scope user: every project of yours sees it):' },
  { key: 'claude_desktop', label: 'Claude Desktop', hint: 'Add to claude_desktop_config.json (Settings → Developer → Edit Config), then restart Claude Desktop. It runs mcp-remote through npx:' },
  { key: 'cursor', label: 'Cursor', hint: `${ENV_HINT} add the rest to ~/.cursor/mcp.json (or the project’s .cursor/mcp.json):` },
  { key: 'vscode', label: 'VS Code', hint: `${ENV_HINT} add the rest to .vscode/mcp.json:` },
  { key: 'windsurf', label: 'Windsurf', hint: `${ENV_HINT} add the rest to ~/.codeium/windsurf/mcp_config.json:` },
  { key: 'codex', label: 'Codex CLI', hint: `${ENV_HINT} add the rest to ~/.codex/config.toml:` },
  { key: 'gemini', label: 'Gemini CLI', hint: 'Run in a terminal (keep the export in your shell profile):' },
  { key: 'zed', label: 'Zed', hint: 'Add to Zed’s settings.json:' },
  { key: 'perch_call', label: 'perch call', hint: 'Try the key from a shell (perch on your PATH: npm link in the Perch clone, see the README):' },
];

export function AgentsPage() {
  const agents = useAgents((s) => s.list);
  const [adding, setAdding] = useState(false);
  const [shown, setShown] = useState<AgentKeyResult | null>(null);
  const [editing, setEditing] = useState<AgentSummary | null>(null);
  const [waking, setWaking] = useState<AgentSummary | null>(null);
  const [keysOf, setKeysOf] = useState<string | null>(null);
  const [connecting, setConnecting] = useState<string | null>(null);
  const [ask, setAsk] = useState<{ kind: 'rotate' | 'revoke'; agent: string } | null>(null);
  return (
    <div className="page agents">
      <header className="page-head row-between">
        <div>
          <h1>Agents</h1>
          <p className="muted">Each agent connects to Perch over MCP with its own key. Keys are shown once; Perch keeps only a hash.</p>
        </div>
        <button type="button" className="btn btn-primary" onClick={() => setAdding(true)}>
          Add agent
        </button>
      </header>
      {agents.length === 0 && <p className="muted">No agents yet. Add your first one to get its key and connection snippets.</p>}
      <ul className="agent-list" aria-label="Agents">
        {agents.map((a) => (
          <li key={a.id} className={`agent-row ${a.revoked ? 'revoked' : ''}`} aria-label={`Agent ${a.name}`}>
            <Avatar user={{ name: a.name, kind: 'agent' }} size={40} />
            <div className="agent-info">
              <div className="agent-title">
                <strong>{a.name}</strong>
                {a.revoked ? <span className="chip chip-failed">revoked</span> : a.waiting ? <span className="chip chip-working">waiting for news</span> : null}
                <PausedBadge paused={a.paused} />
                <span className="muted small">config v{a.config_version}</span>
              </div>
              <p className="agent-desc">{a.description || <span className="muted">No description.</span>}</p>
              <p className="muted small">
                {a.paused && <>{pauseText(a.paused)} · </>}Key {a.key_hint ?? '—'} · added {dateTimeOf(a.created_at)}
                {a.config.skills.length + a.config.mcp_servers.length + a.config.apis.length > 0 &&
                  ` · ${a.config.skills.length} skills, ${a.config.mcp_servers.length} MCP servers, ${a.config.apis.length} APIs`}
              </p>
              {!a.revoked && <CapsForm agent={a} />}
              {!a.revoked && <BudgetField agent={a} />}
            </div>
            <div className="agent-actions">
              <PauseButton agent={a} />
              {!a.revoked && (
                <button type="button" className="btn btn-ghost" onClick={() => void openDirectWith(a.name)}>
                  Message
                </button>
              )}
              <ReviewToggle name={a.name} on={a.review} /> {/* review mode (HeldItems.tsx) */}
              <button type="button" className="btn btn-ghost" aria-label={`Edit config of ${a.name}`} onClick={() => setEditing(a)}>
                Edit config
              </button>
              <button type="button" className="btn btn-ghost" aria-label={`Wake runs of ${a.name}`} onClick={() => setWaking(a)}>
                Wake
              </button>
              {!a.revoked && (
                <button type="button" className="btn btn-ghost" aria-label={`Connect ${a.name}`} onClick={() => setConnecting(a.name)}>
                  Connect
                </button>
              )}
              {!a.revoked && (
                <button type="button" className="btn btn-ghost" aria-label={`Keys of ${a.name}`} onClick={() => setKeysOf(a.name)}>
                  Keys
                </button>
              )}
              <button
                type="button"
                className="btn btn-ghost"
                aria-label={`Rotate key of ${a.name}`}
                onClick={() => setAsk({ kind: 'rotate', agent: a.name })}
              >
                Rotate key
              </button>
              {!a.revoked && (
                <button
                  type="button"
                  className="btn btn-danger-ghost"
                  aria-label={`Revoke ${a.name}`}
                  onClick={() => setAsk({ kind: 'revoke', agent: a.name })}
                >
                  Revoke
                </button>
              )}
            </div>
          </li>
        ))}
      </ul>
      {adding && (
        <AddAgentDialog
          onClose={() => setAdding(false)}
          onAdded={(r) => {
            setAdding(false);
            setShown(r);
          }}
        />
      )}
      {ask && (
        <ConfirmDialog
          title={ask.kind === 'rotate' ? `Rotate ${ask.agent}'s key?` : `Revoke ${ask.agent}'s key?`}
          confirm={ask.kind === 'rotate' ? 'Rotate key' : 'Revoke'}
          danger
          onCancel={() => setAsk(null)}
          onConfirm={async () => {
            const { kind, agent } = ask;
            setAsk(null);
            if (kind === 'rotate') {
              const r = await rotateKey(agent);
              if (r) setShown(r);
            } else {
              await revokeAgent(agent);
            }
          }}
        >
          <p>
            {ask.kind === 'rotate'
              ? `${ask.agent} gets a new key; the old key stops working at once.`
              : `${ask.agent}'s key stops working at once. It can connect again only after you rotate its key.`}
          </p>
        </ConfirmDialog>
      )}
      {shown && <KeyDialog result={shown} onClose={() => setShown(null)} />}
      {editing && <ConfigDialog agent={editing} onClose={() => setEditing(null)} />}
      {waking && <WakeDialog agent={waking} onClose={() => setWaking(null)} />}
      {keysOf && <KeysDialog agent={keysOf} onClose={() => setKeysOf(null)} />}
      {connecting && <ConnectDialog agent={connecting} onClose={() => setConnecting(null)} />}
    </div>
  );
}

function AddAgentDialog({ onClose, onAdded }: { onClose: () => void; onAdded: (r: AgentKeyResult) => void }) {
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

function KeyDialog({ result, onClose }: { result: AgentKeyResult; onClose: () => void }) {
  return (
    <Dialog title={`Key for ${result.agent.name}`} onClose={onClose} wide>
      <p className="warn">This key is shown only now. Copy it into the agent’s MCP client; Perch cannot show it again.</p>
      <div className="key-box">
        <code aria-label="Agent key">{result.key}</code>
        <CopyButton text={result.key} label="Copy key" />
      </div>
      <Snippets snippets={result.snippets} />
      <p className="muted small">The snippets stay on the agent’s Connect button (with the key as {keyEnvVar(result.agent.name)}).</p>
      <div className="row">
        <button type="button" className="btn btn-primary" onClick={onClose}>
          I have copied it
        </button>
      </div>
    </Dialog>
  );
}

/** The connection snippets again, after the key dialog closed: the key stays unknown, they refer to PERCH_KEY_<AGENT>. */
function ConnectDialog({ agent, onClose }: { agent: string; onClose: () => void }) {
  const mcpUrl = useSession((s) => s.info?.mcp_url);
  const env = keyEnvVar(agent);
  return (
    <Dialog title={`Connect ${agent}`} onClose={onClose} wide>
      <p className="muted">
        Perch keeps only a hash of {agent}’s key, so these snippets use <code>${env}</code> where the key goes: set it to the key you were shown when you added{' '}
        {agent} (or rotate the key for a new one). Clients that cannot read the environment need the key pasted in place of <code>{`\${${env}}`}</code>.
      </p>
      {mcpUrl ? <Snippets snippets={connectionSnippets(mcpUrl, agent, null)} /> : <p className="muted">Loading…</p>}
    </Dialog>
  );
}

function Snippets({ snippets }: { snippets: Record<string, string> }) {
  return (
    <>
      {SNIPPETS.filter((s) => snippets[s.key]).map((s) => (
        <section key={s.key} className="snippet" aria-label={`${s.label} snippet`}>
          <div className="row-between">
            <h3>{s.label}</h3>
            <CopyButton text={snippets[s.key]!} label={`Copy ${s.label} snippet`} />
          </div>
          <p className="muted small">{s.hint}</p>
          <pre>
            <code>{snippets[s.key]}</code>
          </pre>
        </section>
      ))}
    </>
  );
}

function ConfigDialog({ agent, onClose }: { agent: AgentSummary; onClose: () => void }) {
  const c = agent.config;
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
      if (v.some((x) => !x || typeof x !== 'object' || typeof (x as { name?: unknown }).name !== 'string')) throw new Error(`Every item of ${label} needs a "name".`);
      return v;
    };
    let patch: ConfigPatch;
    try {
      patch = {
        name,
        description,
        instructions,
        skills: parse('Skills', skills) as ConfigPatch['skills'],
        mcp_servers: parse('MCP servers', servers) as ConfigPatch['mcp_servers'],
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
        <p className="muted small">Version {agent.config_version}. Saving a change raises the version; the agent gets config.updated and re-reads it with get_config.</p>
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
            <textarea id="cfg-skills" className="mono" rows={8} value={skills} onChange={(e) => setSkills(e.target.value)} spellCheck={false} />
            <span className="hint">[{'{'}"name", "description"?, "url"?{'}'}]</span>
          </div>
          <div className="field">
            <label htmlFor="cfg-servers">MCP servers (JSON)</label>
            <textarea id="cfg-servers" className="mono" rows={8} value={servers} onChange={(e) => setServers(e.target.value)} spellCheck={false} />
            <span className="hint">[{'{'}"name", "url"? or "command"/"args"?{'}'}]</span>
          </div>
          <div className="field">
            <label htmlFor="cfg-apis">APIs (JSON)</label>
            <textarea id="cfg-apis" className="mono" rows={8} value={apis} onChange={(e) => setApis(e.target.value)} spellCheck={false} />
            <span className="hint">[{'{'}"name", "base_url"?, "docs_url"?{'}'}]</span>
          </div>
        </div>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
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

/** The agent's budget (brakes, hub/control/brakes.ts): messages per conversation per hour; empty = off. */
function BudgetField({ agent }: { agent: AgentSummary }) {
  const current = agent.brakes?.budget_per_hour;
  const [value, setValue] = useState(current === null || current === undefined ? '' : String(current));
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="budget-field muted small"
      onSubmit={async (e) => {
        e.preventDefault();
        const v = value.trim();
        const budget = v === '' || v === 'off' ? 'off' : Number(v);
        if (budget !== 'off' && !(Number.isInteger(budget) && budget >= 1)) return;
        setBusy(true);
        await setAgentBudget(agent.name, budget);
        setBusy(false);
      }}
    >
      <label>
        Budget{' '}
        <input
          aria-label={`Budget of ${agent.name}`}
          inputMode="numeric"
          size={7}
          placeholder="off"
          value={value}
          onChange={(e) => setValue(e.target.value)}
        />{' '}
        messages per conversation per hour{agent.brakes?.budget_is_default ? ' (default)' : ''}
      </label>{' '}
      <button type="submit" className="btn btn-ghost" disabled={busy}>
        Set
      </button>
    </form>
  );
}

const EXPIRY: Array<{ label: string; ms: number | null }> = [
  { label: 'Never', ms: null },
  { label: '1 hour', ms: 3_600_000 },
  { label: '1 day', ms: 86_400_000 },
  { label: '7 days', ms: 7 * 86_400_000 },
  { label: '30 days', ms: 30 * 86_400_000 },
];

/** An agent's extra keys: each with scopes and an optional expiry; issue one (shown once) or revoke one. */
function KeysDialog({ agent, onClose }: { agent: string; onClose: () => void }) {
  const [keys, setKeys] = useState<AgentKeyView[] | null>(null);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<KeyScope[]>([...KEY_SCOPES]);
  const [expiry, setExpiry] = useState(0);
  const [issued, setIssued] = useState<{ secret: string; key: AgentKeyView } | null>(null);
  const reload = useCallback(async () => setKeys((await listAgentKeys(agent)) ?? []), [agent]);
  useEffect(() => void reload(), [reload]);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim() || scopes.length === 0) return;
    const ms = EXPIRY[expiry]!.ms;
    const r = await addAgentKey({ agent, name: name.trim(), scopes, ...(ms ? { expires_at: Date.now() + ms } : {}) });
    if (!r) return;
    setIssued({ secret: r.secret, key: r.key });
    setName('');
    void reload();
  };
  return (
    <Dialog title={`Keys of ${agent}`} onClose={onClose} wide>
      <p className="muted">
        Extra keys for the same agent, each limited to some scopes: read (reads and get_updates), write (messages, cards, progress), files, state,
        ask (request_human). A call outside a key&apos;s scopes is refused with forbidden.
      </p>
      {issued && (
        <div className="key-issued" aria-label="New key">
          <p className="warn">Key {issued.key.name} is shown only now.</p>
          <div className="key-box">
            <code aria-label="Scoped key">{issued.secret}</code>
            <CopyButton text={issued.secret} label="Copy key" />
          </div>
        </div>
      )}
      <ul className="key-list" aria-label={`Keys of ${agent}`}>
        {keys?.length === 0 && <li className="muted">No extra keys yet.</li>}
        {keys?.map((k) => (
          <li key={k.id} className="key-row" aria-label={`Key ${k.name}`}>
            <span>
              <strong>{k.name}</strong> <span className="muted small">{k.key_hint}</span>{' '}
              {k.scopes.map((sc) => (
                <span key={sc} className="chip">{sc}</span>
              ))}{' '}
              <span className="muted small">
                {k.revoked ? 'revoked' : k.expired ? 'expired' : k.expires_at ? `until ${dateTimeOf(k.expires_at)}` : 'no expiry'}
              </span>
            </span>
            {!k.revoked && (
              <button
                type="button"
                className="btn btn-danger-ghost"
                aria-label={`Revoke key ${k.name}`}
                onClick={async () => {
                  if (await revokeAgentKey(k.id)) void reload();
                }}
              >
                Revoke
              </button>
            )}
          </li>
        ))}
      </ul>
      <form className="form" onSubmit={submit} aria-label="Issue a key">
        <div className="field">
          <label htmlFor="key-name">Key name</label>
          <input id="key-name" value={name} maxLength={60} onChange={(e) => setName(e.target.value)} placeholder="e.g. ci-reader" required />
        </div>
        <fieldset className="field">
          <legend>Scopes</legend>
          <div className="scope-boxes">
            {KEY_SCOPES.map((sc) => (
              <label key={sc}>
                <input
                  type="checkbox"
                  checked={scopes.includes(sc)}
                  onChange={(e) => setScopes(e.target.checked ? KEY_SCOPES.filter((x) => x === sc || scopes.includes(x)) : scopes.filter((x) => x !== sc))}
                />{' '}
                {sc}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="field">
          <label htmlFor="key-expiry">Expires</label>
          <select id="key-expiry" value={expiry} onChange={(e) => setExpiry(Number(e.target.value))}>
            {EXPIRY.map((x, i) => (
              <option key={x.label} value={i}>{x.label}</option>
            ))}
          </select>
        </div>
        <div className="row">
          <button type="submit" className="btn btn-primary" disabled={!name.trim() || scopes.length === 0}>
            Issue key
          </button>
          <button type="button" className="btn btn-ghost" onClick={onClose}>
            Close
          </button>
        </div>
      </form>
    </Dialog>
  );
}
