// Perch's own events on the Ledger page (owner API ledger.events, what `perch ledger events` lists): wake runs started
// and ended, pauses and resumes, standing rules added and removed, and the ledger's own removals (retention) and
// imports (perch import), newest first, narrowed by what they are and by agent.
import { useEffect, useMemo, useState } from 'react';
import { api } from '../../transport';
import { perchEventText, type PerchEventView } from '../../../shared/ledger/views';

/** What the filter offers: each group's events. */
const GROUPS = {
  wake: { label: 'Wake runs', events: ['wake_run_started', 'wake_run_ended'] },
  pause: { label: 'Pauses and resumes', events: ['paused', 'resumed'] },
  rule: { label: 'Standing rules', events: ['rule_added', 'rule_removed'] },
  ledger: { label: 'The ledger itself', events: ['ledger_removed', 'ledger_imported'] },
} as const satisfies Record<string, { label: string; events: ReadonlyArray<PerchEventView['event']> }>;

type Group = '' | keyof typeof GROUPS;

export function PerchEvents() {
  const [events, setEvents] = useState<PerchEventView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [group, setGroup] = useState<Group>('');
  const [agent, setAgent] = useState('');

  useEffect(() => {
    api('ledger.events', { limit: 200 }).then(
      (r) => setEvents(r.events),
      (e: Error) => setError(e.message),
    );
  }, []);

  const agents = useMemo(() => [...new Set((events ?? []).map((e) => e.agent.name))].sort(), [events]);
  const shown = useMemo(
    () =>
      (events ?? []).filter(
        (e) => (!group || (GROUPS[group].events as readonly string[]).includes(e.event)) && (!agent || e.agent.name === agent),
      ),
    [events, group, agent],
  );

  return (
    <section aria-label="Perch's events">
      <h2>Perch&apos;s events</h2>
      <p className="muted">What Perch itself did for your agents: wake runs, pauses, standing rules, and the ledger&apos;s own changes.</p>
      <div className="ledger-filters">
        <label>
          Show{' '}
          <select value={group} onChange={(e) => setGroup(e.target.value as Group)}>
            <option value="">all</option>
            {Object.entries(GROUPS).map(([k, g]) => (
              <option key={k} value={k}>
                {g.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Agent{' '}
          <select value={agent} onChange={(e) => setAgent(e.target.value)}>
            <option value="">all</option>
            {agents.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
      </div>
      {error ? (
        <p role="alert" className="error">
          {error}
        </p>
      ) : events === null ? (
        <p className="muted">Loading…</p>
      ) : shown.length === 0 ? (
        <p className="muted">No events {events.length ? 'match' : 'in the last 14 days'}.</p>
      ) : (
        <ol className="ledger-events">
          {shown.map((e) => {
            const text = perchEventText(e);
            return (
              <li key={e.id} className="ledger-event" aria-label={`${e.agent.name}: ${text}`}>
                <span className="ledger-time">{new Date(e.at).toLocaleString()}</span> <strong>{e.agent.name}</strong> {text}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}
