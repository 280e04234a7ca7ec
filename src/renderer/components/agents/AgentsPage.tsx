// Agents: a compact list of every agent beside the selected one's detail pane (Linear's pattern; on a phone, the
// list, then the detail with a way back). The detail holds what the owner does with one agent: pause, message,
// review mode, its role config, wake runs, connecting it, its keys, export, caps and budget, rotating or revoking
// its key; its Ledger tab shows what its harness reported and spent (ledger/AgentLedger.tsx). Below, the standing rules for their own permission prompts (agents/StandingRules.tsx). Each dialog is a
// component in agents/.
import { useState } from 'react';
import type { AgentKeyResult, AgentSummary } from '../../model';
import { useAgents } from '../../stores/agents';
import { hrefOf, openDirectWith, revokeAgent, rotateKey } from '../../sync';
import { dateTimeOf } from '../../format';
import { CapsForm, PauseButton, PausedBadge, pauseText } from '../fleet/Control';
import { Avatar, ConfirmDialog, laptopButton, OnTheLaptop } from '../common';
import { useLaptopOnly } from '../../stores/paired-device';
import { ReviewToggle } from '../approvals/HeldItems';
import { WakeDialog } from './WakeDialog';
import { AddAgentDialog } from './AddAgentDialog';
import { KeyDialog } from './KeyDialog';
import { ConnectDialog } from './ConnectDialog';
import { ConfigDialog } from './ConfigDialog';
import { KeysDialog } from './KeysDialog';
import { BudgetField } from './BudgetField';
import { StandingRules } from './StandingRules';
import { ExportDialog } from '../settings/ExportDialog';
import { placesWarning } from '../../../shared/agents/places';
import { AgentStatePill } from '../fleet/AgentState';
import { AgentLedger } from '../ledger/AgentLedger';

export function AgentsPage({ selected, tab }: { selected?: string; tab?: 'ledger' }) {
  const agents = useAgents((s) => s.list);
  const [adding, setAdding] = useState(false);
  const [shown, setShown] = useState<AgentKeyResult | null>(null);
  const [editing, setEditing] = useState<AgentSummary | null>(null);
  const [waking, setWaking] = useState<AgentSummary | null>(null);
  const [keysOf, setKeysOf] = useState<string | null>(null);
  const [connecting, setConnecting] = useState<string | null>(null);
  const [exporting, setExporting] = useState<string | null>(null);
  const [ask, setAsk] = useState<{ kind: 'rotate' | 'revoke'; agent: string } | null>(null);
  // On a paired phone: what only the laptop may do (stores/paired-device.ts laptopOnly) is not offered.
  const noAdd = useLaptopOnly('agents.add');
  // The detail shows the agent the address names, else (on a wide screen; a phone shows the list) the first.
  const current = agents.find((a) => a.name === selected) ?? (selected ? undefined : agents[0]);
  return (
    <div className={`page agents ${selected ? 'agents-picked' : ''}`}>
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
      {agents.length > 0 && (
        <div className="agents-split">
          <ul className="agent-list" aria-label="Agents">
            {agents.map((a) => (
              <AgentRow key={a.id} agent={a} active={a.id === current?.id} />
            ))}
          </ul>
          {current ? (
            <AgentDetail
              agent={current}
              tab={tab}
              on={{ edit: setEditing, wake: setWaking, keys: setKeysOf, connect: setConnecting, export: setExporting, ask: setAsk }}
            />
          ) : (
            <p className="muted agent-detail" role="status">
              No agent named “{selected}”. <a href={hrefOf({ name: 'agents' })}>All agents</a>
            </p>
          )}
        </div>
      )}
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
      {connecting && (
        <ConnectDialog
          agent={connecting}
          from={agents.find((a) => a.name === connecting)?.from}
          connections={agents.find((a) => a.name === connecting)?.connections}
          onClose={() => setConnecting(null)}
        />
      )}
    </div>
  );
}

/** One agent in the list: its name, state and what it is for, in one compact row; a link to its detail. */
function AgentRow({ agent: a, active }: { agent: AgentSummary; active: boolean }) {
  return (
    <li className={`agent-row ${a.revoked ? 'revoked' : ''} ${active ? 'active' : ''}`} aria-label={`Agent ${a.name}`}>
      <a href={hrefOf({ name: 'agents', agent: a.name })} className="agent-row-link" aria-current={active ? 'true' : undefined}>
        <Avatar user={{ name: a.name, kind: 'agent' }} size={28} />
        <span className="agent-row-text">
          <span className="agent-row-name">
            <strong>{a.name}</strong>
            {a.revoked ? (
              <span className="chip chip-failed">revoked</span>
            ) : a.paused ? (
              <span className="chip chip-paused">paused</span>
            ) : null}
          </span>
          <span className="agent-row-desc muted small">{a.description || 'No description.'}</span>
        </span>
        {!a.revoked && <AgentStatePill agentId={a.id} name={a.name} compact />}
      </a>
    </li>
  );
}

interface DetailActions {
  edit: (a: AgentSummary) => void;
  wake: (a: AgentSummary) => void;
  keys: (name: string) => void;
  connect: (name: string) => void;
  export: (name: string) => void;
  ask: (q: { kind: 'rotate' | 'revoke'; agent: string }) => void;
}

/** The selected agent: what it is, where it connects from, and everything the owner does with it. */
function AgentDetail({ agent: a, tab, on }: { agent: AgentSummary; tab?: 'ledger'; on: DetailActions }) {
  const noWake = useLaptopOnly('wake.get');
  const noRotate = useLaptopOnly('agents.rotate_key');
  const noExport = useLaptopOnly('archive.export');
  if (tab === 'ledger')
    return (
      <section className={`agent-detail ${a.revoked ? 'revoked' : ''}`} aria-label={`Agent ${a.name} details`}>
        <AgentHead agent={a} tab={tab} />
        <AgentLedger agent={a.name} />
      </section>
    );
  return (
    <section className={`agent-detail ${a.revoked ? 'revoked' : ''}`} aria-label={`Agent ${a.name} details`}>
      <AgentHead agent={a} tab={tab} />
      <p className="agent-desc">{a.description || <span className="muted">No description.</span>}</p>
      <p className="muted small">
        {a.paused && <>{pauseText(a.paused)} · </>}Key {a.key_hint ?? '—'} (connects from {(a.from ?? ['local']).join(', ')}) · added{' '}
        {dateTimeOf(a.created_at)}
        {a.presence?.from && ` · last call from ${a.presence.from.via}`}
        {a.config.skills.length + a.config.mcp_servers.length + a.config.apis.length > 0 &&
          ` · ${a.config.skills.length} skills, ${a.config.mcp_servers.length} MCP servers, ${a.config.apis.length} APIs`}
      </p>
      {!a.revoked && placesWarning(a.from ?? []) && (
        <p className="warn small" role="note" aria-label={`${a.name}: where its key may connect from`}>
          {placesWarning(a.from ?? [])}
        </p>
      )}
      <div className="agent-actions" role="group" aria-label={`Actions for ${a.name}`}>
        <PauseButton agent={a} />
        {!a.revoked && (
          <button type="button" className="btn btn-ghost" onClick={() => void openDirectWith(a.name)}>
            Message
          </button>
        )}
        <ReviewToggle name={a.name} on={a.review} /> {/* review mode (HeldItems.tsx) */}
        <button type="button" className="btn btn-ghost" aria-label={`Edit config of ${a.name}`} onClick={() => on.edit(a)}>
          Edit config
        </button>
        <button
          type="button"
          className="btn btn-ghost"
          aria-label={`Wake runs of ${a.name}`}
          onClick={() => on.wake(a)}
          {...laptopButton(noWake)}
        >
          Wake
        </button>
        {!a.revoked && (
          <button type="button" className="btn btn-ghost" aria-label={`Connect ${a.name}`} onClick={() => on.connect(a.name)}>
            Connect
          </button>
        )}
        {!a.revoked && (
          <button type="button" className="btn btn-ghost" aria-label={`Keys of ${a.name}`} onClick={() => on.keys(a.name)}>
            Keys
          </button>
        )}
        <button
          type="button"
          className="btn btn-ghost"
          aria-label={`Export conversations of ${a.name}`}
          onClick={() => on.export(a.name)}
          {...laptopButton(noExport)}
        >
          Export…
        </button>
      </div>
      {!a.revoked && <CapsForm agent={a} />}
      {!a.revoked && <BudgetField agent={a} />}
      <div className="agent-danger" role="group" aria-label={`Key of ${a.name}`}>
        <button
          type="button"
          className="btn btn-ghost"
          aria-label={`Rotate key of ${a.name}`}
          onClick={() => on.ask({ kind: 'rotate', agent: a.name })}
          {...laptopButton(noRotate)}
        >
          Rotate key
        </button>
        {!a.revoked && (
          <button
            type="button"
            className="btn btn-danger-ghost"
            aria-label={`Revoke ${a.name}`}
            onClick={() => on.ask({ kind: 'revoke', agent: a.name })}
          >
            Revoke
          </button>
        )}
      </div>
    </section>
  );
}

/** The top of an agent's detail: the way back, what it is, and its pages (Overview; Ledger, ledger/AgentLedger.tsx). */
function AgentHead({ agent: a, tab }: { agent: AgentSummary; tab?: 'ledger' }) {
  return (
    <>
      <a href={hrefOf({ name: 'agents' })} className="btn btn-ghost back-button agent-back">
        ‹ All agents
      </a>
      <div className="agent-title">
        <Avatar user={{ name: a.name, kind: 'agent' }} size={40} />
        <h2>{a.name}</h2>
        {a.revoked ? (
          <span className="chip chip-failed">revoked</span>
        ) : a.waiting ? (
          <span className="chip chip-working">waiting for news</span>
        ) : null}
        <PausedBadge paused={a.paused} />
        {!a.revoked && <AgentStatePill agentId={a.id} name={a.name} />}
        <span className="muted small">config v{a.config_version}</span>
      </div>
      <div className="agent-tabs" role="tablist" aria-label={`${a.name}'s pages`}>
        <a role="tab" aria-selected={tab !== 'ledger'} href={hrefOf({ name: 'agents', agent: a.name })}>
          Overview
        </a>
        <a role="tab" aria-selected={tab === 'ledger'} href={hrefOf({ name: 'agents', agent: a.name, tab: 'ledger' })}>
          Ledger
        </a>
      </div>
    </>
  );
}
