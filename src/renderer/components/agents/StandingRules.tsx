// Standing rules for agents' own permission prompts: what the hub decides without asking the owner (added with
// "Always allow / Always deny" on a prompt's card, or rules.add), each removable.
import { useEffect } from 'react';
import { useRules } from '../../stores/rules';
import { loadRules, removeRule } from '../../sync';
import { dateTimeOf } from '../../format';
import type { PermissionRuleView } from '../../../shared/features/permission-prompts';

/** " on the laptop" / " from <device>" (nothing for a rule added before Perch recorded who added it). */
function addedBy(r: PermissionRuleView): string {
  if (!r.added_by) return '';
  return r.added_by.via === 'laptop' ? ' on the laptop' : ` from ${r.added_by.name || 'a paired device'}`;
}

export function StandingRules() {
  const rules = useRules((s) => s.list);
  const loaded = useRules((s) => s.loaded);
  useEffect(() => {
    void loadRules();
  }, []);
  return (
    <section className="standing-rules" aria-labelledby="standing-rules-title">
      <h2 id="standing-rules-title">Standing rules</h2>
      <p className="muted small">
        Agents' own permission prompts (from their harness's hook) that Perch answers for you. Add one with Always allow or Always deny on a
        prompt. An allow for a command covers any arguments after it, but never a command with quotes, chaining or an option that runs other
        code. Allow rules are added on the laptop only.
      </p>
      {loaded && rules.length === 0 && <p className="muted">No standing rules.</p>}
      {rules.length > 0 && (
        <ul className="rule-list" aria-label="Standing rules">
          {rules.map((r) => {
            const what = `${r.behavior === 'allow' ? 'Always allow' : 'Always deny'} ${r.tool}${r.command_prefix !== null ? ` ${r.command_prefix}` : ''} for ${r.agent.name}`;
            return (
              <li key={r.rule_id} className="rule-row" aria-label={what}>
                <span className={`chip ${r.behavior === 'allow' ? 'chip-req-approved' : 'chip-failed'}`}>always {r.behavior}</span>{' '}
                <strong>{r.agent.name}</strong> · <code>{r.tool}</code>
                {r.command_prefix !== null ? (
                  <>
                    {' '}
                    commands starting with <code>{r.command_prefix}</code>
                    {r.behavior === 'allow' && <span className="muted"> with any arguments after it</span>}
                  </>
                ) : (
                  <span className="muted"> (every prompt)</span>
                )}{' '}
                <span className="muted small">
                  · added {dateTimeOf(r.created_at)}
                  {addedBy(r)}
                </span>{' '}
                <button
                  type="button"
                  className="btn btn-danger-ghost btn-small"
                  aria-label={`Remove rule: ${what}`}
                  onClick={() => void removeRule(r.rule_id)}
                >
                  Remove
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
