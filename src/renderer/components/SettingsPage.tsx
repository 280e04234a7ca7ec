// Settings: the owner's preferences of this app (how decisions are sent) and, as its own page, Phone
// (Settings → Phone: remote access, pairing, devices; PhonePage.tsx).
import { useEffect, useState } from 'react';
import type { ContainersState } from '../../shared/places';
import { useUi } from '../stores/ui';
import { canNotifyDesktop, hrefOf, setDecideAtOnce, setPromptWindow, UNDO_MS } from '../sync';
import { DesktopNotifyControl } from './DesktopNotify';
import { api, OwnerError } from '../transport';
import { useLaptopOnly } from '../stores/device';
import { ExportControls } from './ExportDialog';
import { OnTheLaptop } from './common';
import { WakeLimitsSection } from './WakeQueue';

/** Export…: the whole history as one archive (the same as `perch export`), downloaded by the browser. */
function ExportSection() {
  const onLaptopOnly = useLaptopOnly('archive.export');
  return (
    <section className="settings-section" aria-labelledby="settings-export">
      <h2 id="settings-export">Export</h2>
      <p className="muted">
        All conversations, messages, decisions, handoffs, tasks, files and checkpoints in one archive (.tar.gz) with a readable transcript per conversation.
        No keys or other secrets. Import it into another Perch with <code>perch import FILE</code>. A conversation's ⋯ menu and an agent on the Agents page
        export just that conversation, or that agent's conversations.
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
    api('containers.get', {}).then((r) => live && setState(r.containers), (err: unknown) => live && setError(err instanceof OwnerError ? err.message : String(err)));
    return () => { live = false; };
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
        Serves <code>/mcp</code> (nothing else) on this computer&apos;s container bridge, and to containers that Docker Desktop or Podman machine bring to the loopback (Host <code>host.docker.internal</code>), for agents whose key may connect from containers. Takes effect at once.
      </p>
      <label className="check">
        <input type="checkbox" checked={!!state && (state.on || state.forced)} disabled={!state || busy || state.forced} onChange={(e) => void turn(e.target.checked)} /> Let agents in containers connect
      </label>
      {state?.forced && <p className="muted small">On for this run: the hub was started with <code>--containers</code>.</p>}
      {state && (
        <p className="muted small" role="status" aria-label="Container listener">
          {state.bridges.length === 0
            ? 'No container bridge found on this computer (docker0, br-*, podman*). Docker Desktop and Podman machine need none: their containers reach the hub at host.docker.internal on its port. Docker on Linux or rootful Podman: start it, then turn this off and on again.'
            : `Container bridge found: ${state.bridges.map((b) => `${b.name} (${b.address})`).join(', ')}.`}
          {state.container_mcp_url && <> Agents in a container use <code>{state.container_mcp_url}</code>.</>}
        </p>
      )}
      {error && <p className="error" role="alert">{error}</p>}
    </section>
  );
}

/** The two settings pages, as links (each has its own address). */
export function SettingsNav({ current }: { current: 'settings' | 'phone' }) {
  return (
    <nav className="settings-nav" aria-label="Settings">
      <a href={hrefOf({ name: 'settings' })} aria-current={current === 'settings' ? 'page' : undefined}>
        Decisions
      </a>
      <a href={hrefOf({ name: 'phone' })} aria-current={current === 'phone' ? 'page' : undefined}>
        Phone
      </a>
    </nav>
  );
}

export function SettingsPage() {
  const atOnce = useUi((s) => s.decideAtOnce);
  const promptWindow = useUi((s) => s.promptWindow);
  const onLaptopOnly = useLaptopOnly('containers.get');
  return (
    <div className="page settings">
      <header className="page-head">
        <h1>Settings</h1>
        <SettingsNav current="settings" />
      </header>
      <section className="settings-section" aria-labelledby="settings-decisions">
        <h2 id="settings-decisions">Decisions</h2>
        <p className="muted">
          When you approve, reject, answer or choose, or send or discard a held message, Perch waits {UNDO_MS / 1000} seconds before it tells the hub, with an
          Undo button (and the <kbd>u</kbd> key in Approvals). The agent hears of it when that window closes.
        </p>
        <label className="check">
          <input type="checkbox" checked={atOnce} onChange={(e) => setDecideAtOnce(e.target.checked)} /> Send decisions at once (no undo window)
        </label>
        <p className="muted">
          A harness&apos;s permission prompt (Claude Code, Codex, Cursor) blocks its agent until you decide, so your decision on one is sent at once.
        </p>
        <label className="check">
          <input type="checkbox" checked={promptWindow && !atOnce} disabled={atOnce} onChange={(e) => setPromptWindow(e.target.checked)} /> Give harness prompts the{' '}
          {UNDO_MS / 1000} second undo window too
        </label>
        <p className="muted small">Kept in this browser (or this desktop app).</p>
      </section>
      {canNotifyDesktop() && (
        <section className="settings-section" aria-labelledby="settings-notifications">
          <h2 id="settings-notifications">Notifications</h2>
          <p className="muted">
            The tab&apos;s title counts what waits for you and its icon shows a dot. Desktop notifications also name the agent and what it wants when
            something new arrives while Perch is not in front; clicking one opens it. Kept in this browser.
          </p>
          <DesktopNotifyControl where="settings" />
        </section>
      )}
      {onLaptopOnly ? (
        <section className="settings-section" aria-labelledby="settings-containers">
          <h2 id="settings-containers">Agents in containers</h2>
          <OnTheLaptop>The container listener is switched on the laptop.</OnTheLaptop>
        </section>
      ) : (
        <ContainersSection />
      )}
      <WakeLimitsSection />
      <ExportSection />
    </div>
  );
}
