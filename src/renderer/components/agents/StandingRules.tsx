// Standing rules for agents' own permission prompts: what the hub decides without asking the owner (added with
// "Always allow / Always deny" on a prompt's card, from a suggestion, `perch rules add`, or rules.add), the most recently
// used first, each with what it covers and not, how often it decided and when it last did; rules unused for 30 days
// are offered for removal. Suggestions from the owner's own approvals come first (accept, dismiss).
import { useEffect } from 'react';
import { useRules } from '../../stores/rules';
import { usePairedDevice } from '../../stores/paired-device';
import { acceptSuggestion, dismissSuggestion, loadRules, loadSuggestions, removeRule } from '../../sync';
import { dateTimeOf } from '../../format';
import type { PermissionRuleView } from '../../../shared/features/permission-prompts';
import { RuleCoverageView } from '../conversation/PermissionPrompt';

const UNUSED_DAYS = 30;

/** " on the laptop" / " from <device>" (nothing for a rule added before Perch recorded who added it). */
function addedBy(r: PermissionRuleView): string {
  if (!r.added_by) return '';
  return r.added_by.via === 'laptop' ? ' on the laptop' : ` from ${r.added_by.name || 'a paired device'}`;
}

function whose(r: PermissionRuleView): string {
  return r.scope === 'every' ? 'every agent' : r.scope === 'folder' ? `every agent in ${r.folder ?? '?'}` : r.agent.name;
}

function until(r: PermissionRuleView): string {
  if (r.lifetime === 'always') return '';
  const end = r.expires_at ? ` (until ${dateTimeOf(r.expires_at)})` : '';
  return r.lifetime === 'session' ? ` · this session only${end}` : ` · today only${end}`;
}

export function RuleSuggestions() {
  const suggestions = useRules((s) => s.suggestions);
  const onDevice = usePairedDevice((s) => s.me !== null);
  useEffect(() => {
    void loadSuggestions();
  }, []);
  if (suggestions.length === 0) return null;
  return (
    <section className="rule-suggestions" aria-labelledby="rule-suggestions-title">
      <h2 id="rule-suggestions-title">Suggested rules</h2>
      <p className="muted small">From your own decisions: prompts you approved at least 3 times in two weeks and never rejected.</p>
      <ul className="rule-list" aria-label="Suggested rules">
        {suggestions.map((s) => (
          <li
            key={`${s.agent.id} ${s.tool} ${s.shape}`}
            className="rule-row"
            aria-label={`Suggested: always allow ${s.tool} ${s.shape} for ${s.agent.name}`}
          >
            Always allow <code>{s.shape}</code> for <strong>{s.agent.name}</strong>?{' '}
            <span className="muted small">(approved {s.approved}× in two weeks)</span>{' '}
            {!onDevice && (
              <button type="button" className="btn btn-ghost btn-small" onClick={() => void acceptSuggestion(s)}>
                Accept
              </button>
            )}{' '}
            <button type="button" className="btn btn-ghost btn-small" onClick={() => void dismissSuggestion(s)}>
              Dismiss
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}

export function StandingRules() {
  const rules = useRules((s) => s.list);
  const loaded = useRules((s) => s.loaded);
  useEffect(() => {
    void loadRules();
  }, []);
  const cutoff = Date.now() - UNUSED_DAYS * 24 * 3600 * 1000;
  const unused = rules.filter((r) => (r.last_used_at ?? r.created_at) < cutoff);
  return (
    <section className="standing-rules" aria-labelledby="standing-rules-title">
      <h2 id="standing-rules-title">Standing rules</h2>
      <p className="muted small">
        Agents&apos; own permission prompts (from their harness&apos;s hook) that Perch answers for you, decided on what the command runs.
        An allow covers a command only when every part of it is a literal command the rule names, with no option it does not name; while a
        deny exists, a command Perch cannot read comes to you. Allow rules are added on the laptop only.
      </p>
      {unused.length > 0 && (
        <p className="rule-unused" role="note">
          {unused.length} rule{unused.length === 1 ? '' : 's'} decided nothing for {UNUSED_DAYS} days.{' '}
          <button
            type="button"
            className="btn btn-danger-ghost btn-small"
            onClick={() => void Promise.all(unused.map((r) => removeRule(r.rule_id)))}
          >
            Remove unused rules
          </button>
        </p>
      )}
      {loaded && rules.length === 0 && <p className="muted">No standing rules.</p>}
      {rules.length > 0 && (
        <ul className="rule-list" aria-label="Standing rules">
          {rules.map((r) => {
            const what = `${r.behavior === 'allow' ? 'Always allow' : 'Always deny'} ${r.tool}${r.command_prefix !== null ? ` ${r.command_prefix}` : ''} for ${whose(r)}`;
            return (
              <li key={r.rule_id} id={`rule-${r.rule_id}`} className="rule-row" aria-label={what}>
                <span className={`chip ${r.behavior === 'allow' ? 'chip-req-approved' : 'chip-failed'}`}>always {r.behavior}</span>{' '}
                <strong>{whose(r)}</strong> · <code>{r.tool}</code>
                {r.command_prefix !== null ? (
                  <>
                    {' '}
                    commands starting with <code>{r.command_prefix}</code>
                    {r.any_options && <span className="perm-warning"> and any options</span>}
                    {r.exact && <span className="muted"> exactly</span>}
                  </>
                ) : (
                  <span className="muted"> (every prompt)</span>
                )}{' '}
                <span className="muted small rule-use" aria-label="Use">
                  · decided {r.decided_count} prompt{r.decided_count === 1 ? '' : 's'}
                  {r.last_used_at ? `, last ${dateTimeOf(r.last_used_at)}` : ', never used'}
                  {until(r)} · added {dateTimeOf(r.created_at)}
                  {addedBy(r)}
                  {r.from_request_id && (
                    <>
                      {' '}
                      from <a href={`#/r/${encodeURIComponent(r.from_request_id)}`}>a prompt</a>
                    </>
                  )}
                </span>{' '}
                <button
                  type="button"
                  className="btn btn-danger-ghost btn-small"
                  aria-label={`Remove rule: ${what}`}
                  onClick={() => void removeRule(r.rule_id)}
                >
                  Remove
                </button>
                <RuleCoverageView rule={r} />
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
