// Settings: the owner's preferences of this app (how decisions are sent) and, as its own page, Phone
// (Settings → Phone: remote access, pairing, devices; PhonePage.tsx).
import { useState } from 'react';
import { useUi } from '../stores/ui';
import { hrefOf, setDecideAtOnce, UNDO_MS } from '../sync';
import { downloadArchive, OwnerError } from '../transport';

/** Export…: the whole history as one archive (the same as `perch export`), downloaded by the browser. */
function ExportSection() {
  const [state, setState] = useState<{ busy: boolean; percent: number | null; error: string | null; done: string | null }>({ busy: false, percent: null, error: null, done: null });
  const run = async () => {
    setState({ busy: true, percent: null, error: null, done: null });
    try {
      const { blob, name } = await downloadArchive({}, (received, total) => setState((s) => ({ ...s, percent: total ? Math.floor((100 * received) / total) : null })));
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = name;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setState({ busy: false, percent: null, error: null, done: name });
    } catch (err) {
      const e = err instanceof OwnerError ? `${err.message} ${err.nextStep}` : String(err);
      setState({ busy: false, percent: null, error: e, done: null });
    }
  };
  return (
    <section className="settings-section" aria-labelledby="settings-export">
      <h2 id="settings-export">Export</h2>
      <p className="muted">
        All conversations, messages, decisions, handoffs, tasks, files and checkpoints in one archive (.tar.gz) with a readable transcript per conversation.
        No keys or other secrets. Import it into another Perch with <code>perch import FILE</code>.
      </p>
      <button type="button" onClick={() => void run()} disabled={state.busy}>
        {state.busy ? 'Exporting…' : 'Export…'}
      </button>
      {state.busy && (
        <progress aria-label="Export progress" max={100} value={state.percent ?? undefined} />
      )}
      {state.done && <p className="muted small" role="status">Saved {state.done}.</p>}
      {state.error && <p className="error" role="alert">{state.error}</p>}
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
        <p className="muted small">Kept in this browser (or this desktop app).</p>
      </section>
      <ExportSection />
    </div>
  );
}
