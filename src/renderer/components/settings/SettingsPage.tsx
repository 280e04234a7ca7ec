// Settings, one tab each, named for what it holds: Decisions (how decisions are sent), Containers (agents in
// containers), Data (retention and export) and, as its own page, Phone (remote access, pairing, devices;
// PhonePage.tsx).
import { RuleSuggestions, StandingRules } from '../agents/StandingRules';
import { useEffect, useState, type FormEvent } from 'react';
import type { ContainersState } from '../../../shared/agents/places';
import { MAX_RETENTION_DAYS, type RetentionPlan, type RetentionStatus } from '../../../shared/features/retention';
import { useUi, type SettingsTab } from '../../stores/ui';
import { canNotifyDesktop, hrefOf, setDecideAtOnce, setPromptWindow, UNDO_MS } from '../../sync';
import { DesktopNotifyControl } from '../approvals/DesktopNotify';
import { api, OwnerError } from '../../transport';
import { useLaptopOnly } from '../../stores/paired-device';
import { ExportControls } from './ExportDialog';
import { OnTheLaptop, ErrorLine } from '../common';
import { WakeLimitsSection } from '../fleet/WakeQueue';

/** Export…: the whole history as one archive (the same as `perch export`), downloaded by the browser. */
function ExportSection() {
  const onLaptopOnly = useLaptopOnly('archive.export');
  return (
    <section className="settings-section" aria-labelledby="settings-export">
      <h2 id="settings-export">Export</h2>
      <p className="muted">
        All conversations, messages, decisions, handoffs, tasks, files and checkpoints in one archive (.tar.gz) with a readable transcript
        per conversation. No keys or other secrets. Import it into another Perch with <code>perch import FILE</code>. A conversation's ⋯
        menu and an agent on the Agents page export just that conversation, or that agent's conversations.
      </p>
      {onLaptopOnly ? <OnTheLaptop>Exports are made on the laptop.</OnTheLaptop> : <ExportControls scope={{}} />}
    </section>
  );
}

/** Agents in containers: the container listener switch (owner actions containers.get / containers.set; laptop only). */
function ContainersSection() {
  const [state, setState] = useState<ContainersState | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    api('containers.get', {}).then(
      (r) => live && setState(r.containers),
      (err: unknown) => live && setError(err instanceof OwnerError ? err.message : String(err)),
    );
    return () => {
      live = false;
    };
  }, []);
  const turn = async (on: boolean) => {
    setBusy(true);
    setError(null);
    try {
      setState((await api('containers.set', { on })).containers);
    } catch (err) {
      setError(err instanceof OwnerError ? `${err.message} ${err.nextStep}` : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="settings-section" aria-labelledby="settings-containers">
      <h2 id="settings-containers">Agents in containers</h2>
      <p className="muted">
        Serves <code>/mcp</code> (nothing else) on this computer&apos;s container bridge, and to containers that Docker Desktop or Podman
        machine bring to the loopback (Host <code>host.docker.internal</code>), for agents whose key may connect from containers. Takes
        effect at once.
      </p>
      <label className="check">
        <input
          type="checkbox"
          checked={!!state && (state.on || state.forced)}
          disabled={!state || busy || state.forced}
          onChange={(e) => void turn(e.target.checked)}
        />{' '}
        Let agents in containers connect
      </label>
      {state?.forced && (
        <p className="muted small">
          On for this run: the hub was started with <code>--containers</code>.
        </p>
      )}
      {state && (
        <p className="muted small" role="status" aria-label="Container listener">
          {state.bridges.length === 0
            ? 'No container bridge found on this computer (docker0, br-*, podman*). Docker Desktop and Podman machine need none: their containers reach the hub at host.docker.internal on its port. Docker on Linux or rootful Podman: start it, then turn this off and on again.'
            : `Container bridge found: ${state.bridges.map((b) => `${b.name} (${b.address})`).join(', ')}.`}
          {state.container_mcp_url && (
            <>
              {' '}
              Agents in a container use <code>{state.container_mcp_url}</code>.
            </>
          )}
        </p>
      )}
      <ErrorLine error={error} />
    </section>
  );
}

/** Retention: how long the hub keeps history (owner actions retention.get / retention.set / retention.dry_run). */
function RetentionSection() {
  const noSet = useLaptopOnly('retention.set');
  const [status, setStatus] = useState<RetentionStatus | null>(null);
  const [form, setForm] = useState({
    keep_days: '',
    archive_idle_days: '',
    keep_pinned: true,
    keep_requests: true,
    keep_checkpoints: true,
    export_dir: '',
  });
  const [plan, setPlan] = useState<RetentionPlan | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const load = async () => {
    const r = await api('retention.get', {});
    setStatus(r);
    const hub = r.rules.find((x) => x.conv_id === null);
    setForm({
      keep_days: hub?.keep_days != null ? String(hub.keep_days) : '',
      archive_idle_days: hub?.archive_idle_days != null ? String(hub.archive_idle_days) : '',
      keep_pinned: hub?.keep_pinned ?? true,
      keep_requests: hub?.keep_requests ?? true,
      keep_checkpoints: hub?.keep_checkpoints ?? true,
      export_dir: r.export_dir ?? '',
    });
  };
  useEffect(() => {
    load().catch((err: unknown) => setError(err instanceof OwnerError ? err.message : String(err)));
  }, []);
  const days = (v: string, what: string): number | null => {
    if (!v.trim()) return null;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 1 || n > MAX_RETENTION_DAYS)
      throw new Error(`${what}: a whole number of days from 1 to ${MAX_RETENTION_DAYS}, or empty for never.`);
    return n;
  };
  const act = async (what: 'save' | 'preview') => {
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      if (what === 'preview') {
        setPlan(await api('retention.dry_run', {}));
      } else {
        const input = {
          keep_days: days(form.keep_days, 'Keep history'),
          archive_idle_days: days(form.archive_idle_days, 'Archive idle conversations'),
          keep_pinned: form.keep_pinned,
          keep_requests: form.keep_requests,
          keep_checkpoints: form.keep_checkpoints,
          export_dir: form.export_dir.trim() || null,
        };
        await api('retention.set', input);
        await load();
        setPlan(null);
        setSaved('Saved. Retention runs in small steps in the background.');
      }
    } catch (err) {
      setError(err instanceof OwnerError ? `${err.message} ${err.nextStep}` : err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  const own = status ? status.rules.filter((r) => r.conv_id !== null).length : 0;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    void act('save');
  };
  return (
    <section className="settings-section" aria-labelledby="settings-retention">
      <h2 id="settings-retention">Retention</h2>
      <p className="muted">
        How long this hub keeps history. Older messages and events are deleted; what you keep below stays however old, and a pending request
        is always kept. Empty: keep forever.
        {own > 0 && ` ${own} conversation${own === 1 ? ' has its' : 's have their'} own rule (perch retention).`}
      </p>
      <form className="form retention-form" onSubmit={submit} aria-label="Retention rule">
        <div className="field-row">
          <label className="field">
            <span>Keep history for (days)</span>
            <input
              inputMode="numeric"
              value={form.keep_days}
              placeholder="forever"
              disabled={noSet}
              onChange={(e) => setForm({ ...form, keep_days: e.target.value })}
            />
          </label>
          <label className="field">
            <span>Archive conversations idle for (days)</span>
            <input
              inputMode="numeric"
              value={form.archive_idle_days}
              placeholder="never"
              disabled={noSet}
              onChange={(e) => setForm({ ...form, archive_idle_days: e.target.value })}
            />
          </label>
        </div>
        <label className="check">
          <input
            type="checkbox"
            checked={form.keep_pinned}
            disabled={noSet}
            onChange={(e) => setForm({ ...form, keep_pinned: e.target.checked })}
          />{' '}
          Keep pinned messages
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={form.keep_requests}
            disabled={noSet}
            onChange={(e) => setForm({ ...form, keep_requests: e.target.checked })}
          />{' '}
          Keep requests and their decisions
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={form.keep_checkpoints}
            disabled={noSet}
            onChange={(e) => setForm({ ...form, keep_checkpoints: e.target.checked })}
          />{' '}
          Keep the agents&apos; summaries (checkpoints)
        </label>
        <label className="field">
          <span>Export before deleting, into this folder (optional)</span>
          <input
            value={form.export_dir}
            placeholder="/home/you/perch-archives"
            disabled={noSet}
            onChange={(e) => setForm({ ...form, export_dir: e.target.value })}
          />
        </label>
        <div className="row">
          {noSet ? (
            <OnTheLaptop>Retention is set on the laptop.</OnTheLaptop>
          ) : (
            <button type="submit" className="btn btn-primary" disabled={busy || !status}>
              Save retention
            </button>
          )}
          <button type="button" className="btn btn-ghost" disabled={busy || !status} onClick={() => void act('preview')}>
            What would go now?
          </button>
        </div>
      </form>
      {saved && (
        <p className="muted small" role="status">
          {saved}
        </p>
      )}
      {plan && (
        <p className="small" role="status" aria-label="Retention preview">
          {plan.totals.messages + plan.totals.events + plan.totals.files + plan.totals.summaries + plan.totals.archive === 0
            ? plan.ledger && plan.ledger.records > 0
              ? 'No conversation history would go now.'
              : 'Nothing would go now.'
            : `Would delete ${plan.totals.messages} messages, ${plan.totals.events} events, ${plan.totals.files} files and ${plan.totals.summaries} summaries in ${plan.conversations.length} conversations, and archive ${plan.totals.archive}.`}
          {plan.ledger &&
            plan.ledger.records > 0 &&
            ` From the ledger: ${plan.ledger.records} records of the days before ${plan.ledger.before_day}.`}
        </p>
      )}
      <ErrorLine error={error} />
    </section>
  );
}

const TABS: Array<{ tab: SettingsTab | 'decisions' | 'phone'; label: string }> = [
  { tab: 'decisions', label: 'Decisions' },
  { tab: 'containers', label: 'Containers' },
  { tab: 'data', label: 'Data' },
  { tab: 'wake', label: 'Wake runs' },
  { tab: 'phone', label: 'Phone' },
];

/** Settings' tabs, as links (each has its own address), each named for what it holds. */
export function SettingsNav({ current }: { current: SettingsTab | 'decisions' | 'phone' }) {
  return (
    <nav className="settings-nav" aria-label="Settings">
      {TABS.map((t) => (
        <a
          key={t.tab}
          href={hrefOf(
            t.tab === 'phone' ? { name: 'phone' } : t.tab === 'decisions' ? { name: 'settings' } : { name: 'settings', tab: t.tab },
          )}
          aria-current={current === t.tab ? 'page' : undefined}
        >
          {t.label}
        </a>
      ))}
    </nav>
  );
}

function DecisionsSection() {
  const atOnce = useUi((s) => s.decideAtOnce);
  const promptWindow = useUi((s) => s.promptWindow);
  return (
    <>
      <section className="settings-section" aria-labelledby="settings-decisions">
        <h2 id="settings-decisions">Decisions</h2>
        <p className="muted">
          When you approve, reject, answer or choose, or send or discard a held message, Perch waits {UNDO_MS / 1000} seconds before it
          tells the hub, with an Undo button (and the <kbd>u</kbd> key in Approvals). The agent hears of it when that window closes.
        </p>
        <label className="check">
          <input type="checkbox" checked={atOnce} onChange={(e) => setDecideAtOnce(e.target.checked)} /> Send decisions at once (no undo
          window)
        </label>
        <p className="muted">
          A harness&apos;s permission prompt (Claude Code, Codex, Cursor) blocks its agent until you decide, so your decision on one is sent
          at once.
        </p>
        <label className="check">
          <input type="checkbox" checked={promptWindow && !atOnce} disabled={atOnce} onChange={(e) => setPromptWindow(e.target.checked)} />{' '}
          Give harness prompts the {UNDO_MS / 1000} second undo window too
        </label>
        <p className="muted small">Kept in this browser (or this desktop app).</p>
      </section>
      <RuleSuggestions />
      <StandingRules />
      {canNotifyDesktop() && (
        <section className="settings-section" aria-labelledby="settings-notifications">
          <h2 id="settings-notifications">Notifications</h2>
          <p className="muted">
            The tab&apos;s title counts what waits for you and its icon shows a dot. Desktop notifications also name the agent and what it
            wants when something new arrives while Perch is not in front; clicking one opens it. Kept in this browser.
          </p>
          <DesktopNotifyControl where="settings" />
        </section>
      )}
    </>
  );
}

export function SettingsPage({ tab }: { tab?: SettingsTab }) {
  const onLaptopOnly = useLaptopOnly('containers.get');
  return (
    <div className="page settings">
      <header className="page-head">
        <h1>Settings</h1>
        <SettingsNav current={tab ?? 'decisions'} />
      </header>
      {!tab && <DecisionsSection />}
      {tab === 'containers' &&
        (onLaptopOnly ? (
          <section className="settings-section" aria-labelledby="settings-containers">
            <h2 id="settings-containers">Agents in containers</h2>
            <OnTheLaptop>The container listener is switched on the laptop.</OnTheLaptop>
          </section>
        ) : (
          <ContainersSection />
        ))}
      {tab === 'data' && (
        <>
          <RetentionSection />
          <ExportSection />
        </>
      )}
      {tab === 'wake' && <WakeLimitsSection />}
    </div>
  );
}
