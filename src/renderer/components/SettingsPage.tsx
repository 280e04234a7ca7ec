// Settings: the owner's preferences of this app (how decisions are sent) and, as its own page, Phone
// (Settings → Phone: remote access, pairing, devices; PhonePage.tsx).
import { useUi } from '../stores/ui';
import { hrefOf, setDecideAtOnce, UNDO_MS } from '../sync';

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
    </div>
  );
}
