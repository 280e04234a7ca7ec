// Wake runs of one agent: what Perch starts when the agent is woken and nothing of it listens (a command
// or a loopback webhook), ready-made recipes, and its runs (status, why, duration, the log tail live).
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import type { AgentSummary } from '../../model';
import { useWake } from '../../stores/wake';
import { loadWakeLimits, loadWakeState, setWake, stopWakeRun, wakeLogTail, type WakeInput } from '../../sync';
import { wakeRecipes, type WakeRunView } from '../../../shared/agents/wake';
import { dateTimeOf, money } from '../../format';
import { CopyButton, Dialog, ErrorLine } from '../common';
import { RunResources } from '../fleet/WakeQueue';

type Mode = 'argv' | 'shell' | 'webhook';

export function WakeDialog({ agent, onClose }: { agent: AgentSummary; onClose: () => void }) {
  const state = useWake((s) => s.byAgent[agent.id]);
  const runs = useWake(
    useShallow((s) =>
      Object.values(s.runs)
        .filter((r) => r.agent_id === agent.id)
        .sort((a, b) => b.started_at - a.started_at)
        .slice(0, 20),
    ),
  );
  useEffect(() => void loadWakeState(agent.id).catch(() => {}), [agent.id]);
  // How runs are held on this computer (a cgroup of their own, or only their process group): said on the card.
  const containment = useWake((s) => s.limits?.containment ?? null);
  useEffect(() => void loadWakeLimits().catch(() => {}), []);
  const a = state?.action;
  const [mode, setMode] = useState<Mode>('argv');
  const [command, setCommand] = useState('');
  const [cwd, setCwd] = useState('');
  const [env, setEnv] = useState('');
  const [timeout, setTimeoutSecs] = useState('900');
  const [cap, setCap] = useState('6');
  const [error, setError] = useState<string | null>(null);
  const [openRun, setOpenRun] = useState<string | null>(null);
  useEffect(() => {
    if (!a) return;
    setMode(a.kind === 'webhook' ? 'webhook' : a.argv ? 'argv' : 'shell');
    setCommand(a.kind === 'webhook' ? (a.url ?? '') : a.argv ? a.argv.join('\n') : (a.shell ?? ''));
    setCwd(a.cwd ?? '');
    setEnv(
      Object.entries(a.env ?? {})
        .map(([k, v]) => `${k}=${v}`)
        .join('\n'),
    );
    setTimeoutSecs(String(a.timeout_secs));
    setCap(String(a.max_runs_per_hour));
  }, [a]);
  const recipes = useMemo(() => wakeRecipes(agent.name), [agent.name]);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const input: WakeInput = { timeout_secs: Number(timeout), max_runs_per_hour: Number(cap) };
    if (mode === 'webhook') input.webhook = command.trim();
    else {
      if (mode === 'argv')
        input.argv = command
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean);
      else input.shell = command;
      if (cwd.trim()) input.cwd = cwd.trim();
      const pairs = env
        .split('\n')
        .map((l) => l.trim())
        .filter(Boolean);
      if (pairs.some((p) => p.indexOf('=') <= 0)) return setError('Environment: one K=V per line.');
      if (pairs.length) input.env = Object.fromEntries(pairs.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]));
    }
    setError(null);
    await setWake(agent.id, input);
  };

  return (
    <Dialog title={`Wake ${agent.name}`} onClose={onClose} wide>
      <p className="muted small">
        When an event wakes {agent.name} (it is named, handed work, answered…) and no get_updates of it is waiting, Perch starts this — one
        run at a time, with its own short-lived key in PERCH_KEY (and PERCH_URL, PERCH_MCP_CONFIG, PERCH_OPENCODE_CONFIG, PERCH_WAKE), and
        its harness&apos;s telemetry sent to the Ledger with a token of the run&apos;s own. Five failed runs in a row switch it off.
      </p>
      {containment && (
        <p className="muted small" aria-label="How runs are held">
          {containment.line}
        </p>
      )}
      {state && (
        <p className="small" aria-label="Wake status">
          {!a ? (
            'No wake action: Perch does not start this agent.'
          ) : state.enabled ? (
            `On · ${state.runs_last_hour} run(s) in the last hour`
          ) : (
            <span className="error">Off: {state.off_reason}</span>
          )}
          {state.webhook_secret && (
            <>
              {' '}
              · Signing secret <code>{state.webhook_secret.slice(0, 6)}…</code>{' '}
              <CopyButton text={state.webhook_secret} label="Copy secret" small />
            </>
          )}
        </p>
      )}
      <form className="form" onSubmit={submit} aria-label="Wake action">
        <div className="row">
          {(['argv', 'shell', 'webhook'] as const).map((m) => (
            <label key={m} className="small">
              <input type="radio" name="wake-mode" checked={mode === m} onChange={() => setMode(m)} />{' '}
              {m === 'argv' ? 'Command (no shell)' : m === 'shell' ? 'Shell string' : 'Webhook (loopback)'}
            </label>
          ))}
        </div>
        <div className="field">
          <label htmlFor="wake-command">
            {mode === 'argv' ? 'Program and arguments, one per line' : mode === 'shell' ? 'Shell command' : 'URL (http://127.0.0.1:PORT/…)'}
          </label>
          <textarea
            id="wake-command"
            className="mono"
            rows={mode === 'argv' ? 4 : 2}
            value={command}
            onChange={(e) => setCommand(e.target.value)}
            spellCheck={false}
          />
        </div>
        {mode !== 'webhook' && (
          <div className="grid-3">
            <div className="field">
              <label htmlFor="wake-cwd">Working directory</label>
              <input id="wake-cwd" className="mono" value={cwd} onChange={(e) => setCwd(e.target.value)} placeholder="/home/me/project" />
            </div>
            <div className="field">
              <label htmlFor="wake-env">Environment (K=V per line)</label>
              <textarea id="wake-env" className="mono" rows={2} value={env} onChange={(e) => setEnv(e.target.value)} spellCheck={false} />
            </div>
            <div className="field">
              <label htmlFor="wake-timeout">Timeout (s) · runs per hour</label>
              <div className="row">
                <input id="wake-timeout" type="number" min={1} value={timeout} onChange={(e) => setTimeoutSecs(e.target.value)} />
                <input aria-label="Runs per hour" type="number" min={1} value={cap} onChange={(e) => setCap(e.target.value)} />
              </div>
            </div>
          </div>
        )}
        <ErrorLine error={error} />
        <div className="row">
          <button type="submit" className="btn btn-primary">
            Save wake action
          </button>
          {a && (
            <button type="button" className="btn btn-danger-ghost" onClick={() => void setWake(agent.id, { off: true })}>
              Turn off
            </button>
          )}
        </div>
      </form>
      <details className="wake-recipes">
        <summary>Recipes</summary>
        <ul>
          {recipes.map((r) => (
            <li key={r.id}>
              <strong>{r.title}</strong>{' '}
              <button
                type="button"
                className="btn btn-small"
                aria-label={`Use the ${r.title} recipe`}
                onClick={() => {
                  setMode(r.form.argv ? 'argv' : 'shell');
                  setCommand(r.form.argv ? r.form.argv.join('\n') : (r.form.shell ?? ''));
                  setCwd(r.form.cwd);
                  setError(null);
                  document.getElementById('wake-command')?.focus();
                }}
              >
                Fill the form
              </button>{' '}
              <CopyButton text={r.cli} small />
              <pre className="mono small">{r.cli}</pre>
              <span className="muted small">{r.note}</span>
            </li>
          ))}
        </ul>
      </details>
      <h3>Runs</h3>
      {runs.length === 0 && <p className="muted small">No runs yet.</p>}
      <ul className="wake-runs" aria-label={`Wake runs of ${agent.name}`}>
        {runs.map((r) => (
          <li key={r.id} className={`wake-run status-${r.status}`}>
            <button
              type="button"
              className="link"
              aria-expanded={openRun === r.id}
              onClick={() => setOpenRun(openRun === r.id ? null : r.id)}
            >
              <span className={`chip chip-${r.status === 'succeeded' ? 'done' : r.status === 'running' ? 'working' : 'failed'}`}>
                {r.status.replace('_', ' ')}
              </span>{' '}
              {dateTimeOf(r.started_at)} · {whyText(r)}
              {r.duration_ms != null && ` · ${(r.duration_ms / 1000).toFixed(1)} s`}
              {r.exit_code != null && ` · exit ${r.exit_code}`}
              {r.usage?.total_cost_usd != null && ` · ${money(r.usage.total_cost_usd)}`}
              <RunResources run={r} />
            </button>
            {r.status === 'running' && (
              <button type="button" className="btn btn-danger-ghost btn-small" onClick={() => void stopWakeRun(agent.id)}>
                Stop
              </button>
            )}
            {r.error && <span className="muted small"> {r.error}</span>}
            {openRun === r.id && <RunLog run={r} />}
          </li>
        ))}
      </ul>
    </Dialog>
  );
}

/** "woken by owner (message.created)" */
/** What woke a run, in words (event types as a person says them). */
const WAKE_REASONS: Record<string, string> = {
  'message.created': 'message',
  'handoff.created': 'handoff',
  'handoff.returned': 'hand-back',
  'request.decided': 'decision',
  'card.response': 'card answer',
  'task.updated': 'task update',
  'floor.granted': 'floor grant',
  'owner.note': 'note',
  'agent.resumed': 'resume',
  'conversation.resumed': 'resume',
};

export function whyText(r: WakeRunView): string {
  const first = r.why.reasons[0];
  if (!first) return 'woken';
  const what = WAKE_REASONS[first.type] ?? first.type;
  return `woken by ${first.by ?? 'Perch'}'s ${what}${r.why.count > 1 ? ` and ${r.why.count - 1} more` : ''}`;
}

/** A run's newest output; re-read every second while the run runs. */
function RunLog({ run }: { run: WakeRunView }) {
  const [tail, setTail] = useState<string>('');
  const running = run.status === 'running';
  useEffect(() => {
    let stop = false;
    const read = () =>
      wakeLogTail(run.id).then(
        (r) => !stop && setTail(r.tail),
        () => undefined,
      );
    void read();
    if (!running)
      return () => {
        stop = true;
      };
    const t = setInterval(read, 1000);
    return () => {
      stop = true;
      clearInterval(t);
    };
  }, [run.id, running]);
  return (
    <pre className="wake-log mono small" aria-label={`Log of run ${run.id}`}>
      {tail || '(no output)'}
    </pre>
  );
}
