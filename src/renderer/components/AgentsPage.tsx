// Agents: add one (its key shown once, with copy-ready connection snippets), edit its role config,
// rotate or revoke its key; below, the standing rules for their own permission prompts (agents/StandingRules.tsx). This is the list and its row's buttons; each dialog is a component in agents/.
import { useState } from 'react';
import type { AgentKeyResult, AgentSummary } from '../model';
import { useAgents } from '../stores/agents';
import { openDirectWith, revokeAgent, rotateKey } from '../sync';
import { dateTimeOf } from '../format';
import { CapsForm, PauseButton, PausedBadge, pauseText } from './Control';
import { Avatar, ConfirmDialog, laptopButton, OnTheLaptop } from './common';
import { useLaptopOnly } from '../stores/device';
import { ReviewToggle } from './HeldItems';
import { WakeDialog } from './WakeDialog';
import { AddAgentDialog } from './agents/AddAgentDialog';
import { KeyDialog } from './agents/KeyDialog';
import { ConnectDialog } from './agents/ConnectDialog';
import { ConfigDialog } from './agents/ConfigDialog';
import { KeysDialog } from './agents/KeysDialog';
import { BudgetField } from './agents/BudgetField';
import { StandingRules } from './agents/StandingRules';
import { ExportDialog } from './ExportDialog';
import { placesWarning } from '../../shared/places';

export function AgentsPage() {
  const agents = useAgents((s) => s.list);
  const [adding, setAdding] = useState(false);
  const [shown, setShown] = useState<AgentKeyResult | null>(null);
  const [editing, setEditing] = useState<AgentSummary | null>(null);
  const [waking, setWaking] = useState<AgentSummary | null>(null);
  const [keysOf, setKeysOf] = useState<string | null>(null);
  const [connecting, setConnecting] = useState<string | null>(null);
  const [exporting, setExporting] = useState<string | null>(null);
  const [ask, setAsk] = useState<{ kind: 'rotate' | 'revoke'; agent: string } | null>(null);
  // On a paired phone: what only the laptop may do (stores/device.ts laptopOnly) is not offered.
  const noAdd = useLaptopOnly('agents.add');
  const noWake = useLaptopOnly('wake.get');
  const noRotate = useLaptopOnly('agents.rotate_key');
  const noExport = useLaptopOnly('archive.export');
  return (
    <div className="page agents">
      <header className="page-head row-between">
        <div>
          <h1>Agents</h1>
          <p className="muted">Each agent connects to Perch over MCP with its own key. Keys are shown once; Perch keeps only a hash.</p>
        </div>
        <button type="button" className="btn btn-primary" onClick={() => setAdding(true)} {...laptopButton(noAdd)}>
          Add agent
        </button>
      </header>
      {noAdd && <OnTheLaptop>Adding agents, their keys, wake setup and exports are managed on the laptop.</OnTheLaptop>}
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
                {a.paused && <>{pauseText(a.paused)} · </>}Key {a.key_hint ?? '—'} (connects from {(a.from ?? ['local']).join(', ')}) · added {dateTimeOf(a.created_at)}
                {a.presence?.from && ` · last call from ${a.presence.from.via}`}
                {a.config.skills.length + a.config.mcp_servers.length + a.config.apis.length > 0 &&
                  ` · ${a.config.skills.length} skills, ${a.config.mcp_servers.length} MCP servers, ${a.config.apis.length} APIs`}
              </p>
              {!a.revoked && placesWarning(a.from ?? []) && (
                <p className="warn small" role="note" aria-label={`${a.name}: where its key may connect from`}>{placesWarning(a.from ?? [])}</p>
              )}
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
              <button type="button" className="btn btn-ghost" aria-label={`Wake runs of ${a.name}`} onClick={() => setWaking(a)} {...laptopButton(noWake)}>
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
              <button type="button" className="btn btn-ghost" aria-label={`Export conversations of ${a.name}`} onClick={() => setExporting(a.name)} {...laptopButton(noExport)}>
                Export…
              </button>
              <button
                type="button"
                className="btn btn-ghost"
                aria-label={`Rotate key of ${a.name}`}
                onClick={() => setAsk({ kind: 'rotate', agent: a.name })}
                {...laptopButton(noRotate)}
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
      <StandingRules />
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
      {exporting && (
        <ExportDialog
          title={`Export ${exporting}'s conversations`}
          what={`Every conversation ${exporting} is a member of, each whole, and ${exporting}'s checkpoints. Its keys stay here: after an import, issue it a new one.`}
          scope={{ agent: exporting }}
          onClose={() => setExporting(null)}
        />
      )}
      {connecting && <ConnectDialog agent={connecting} from={agents.find((a) => a.name === connecting)?.from} onClose={() => setConnecting(null)} />}
    </div>
  );
}
