// An agent's extra keys (scopes, expiry): list, issue (the secret shown once), revoke.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { KEY_SCOPES, type AgentKeyView, type KeyScope } from '../../../shared/agents/scoped-keys';
import { addAgentKey, listAgentKeys, revokeAgentKey } from '../../sync';
import { dateTimeOf } from '../../format';
import { CopyButton, Dialog, OnTheLaptop } from '../common';
import { useLaptopOnly } from '../../stores/paired-device';

const EXPIRY: Array<{ label: string; ms: number | null }> = [
  { label: 'Never', ms: null },
  { label: '1 hour', ms: 3_600_000 },
  { label: '1 day', ms: 86_400_000 },
  { label: '7 days', ms: 7 * 86_400_000 },
  { label: '30 days', ms: 30 * 86_400_000 },
];

/** An agent's extra keys: each with scopes and an optional expiry; issue one (shown once) or revoke one. */
export function KeysDialog({ agent, onClose }: { agent: string; onClose: () => void }) {
  const [keys, setKeys] = useState<AgentKeyView[] | null>(null);
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<KeyScope[]>([...KEY_SCOPES]);
  const [expiry, setExpiry] = useState(0);
  const [issued, setIssued] = useState<{ secret: string; key: AgentKeyView } | null>(null);
  const noIssue = useLaptopOnly('agents.add_key'); // a paired phone lists and revokes keys; the laptop issues them
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
        Extra keys for the same agent, each limited to some scopes: read (reads and get_updates), write (messages, cards, progress), files,
        state, ask (request_human). A call outside a key&apos;s scopes is refused with forbidden.
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
                <span key={sc} className="chip">
                  {sc}
                </span>
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
      {noIssue ? (
        <>
          <OnTheLaptop>New keys are issued on the laptop.</OnTheLaptop>
          <div className="row">
            <button type="button" className="btn btn-ghost" onClick={onClose}>
              Close
            </button>
          </div>
        </>
      ) : (
        <form className="form" onSubmit={submit} aria-label="Issue a key">
          <div className="field">
            <label htmlFor="key-name">Key name</label>
            <input
              id="key-name"
              value={name}
              maxLength={60}
              onChange={(e) => setName(e.target.value)}
              placeholder="e.g. ci-reader"
              required
            />
          </div>
          <fieldset className="field">
            <legend>Scopes</legend>
            <div className="scope-boxes">
              {KEY_SCOPES.map((sc) => (
                <label key={sc}>
                  <input
                    type="checkbox"
                    checked={scopes.includes(sc)}
                    onChange={(e) =>
                      setScopes(
                        e.target.checked ? KEY_SCOPES.filter((x) => x === sc || scopes.includes(x)) : scopes.filter((x) => x !== sc),
                      )
                    }
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
                <option key={x.label} value={i}>
                  {x.label}
                </option>
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
      )}
    </Dialog>
  );
}
