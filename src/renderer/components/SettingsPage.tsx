// Settings: the owner's preferences of this app (how decisions are sent) and, as its own page, Phone
// (Settings → Phone: remote access, pairing, devices; PhonePage.tsx).
import { useUi } from '../stores/ui';
import { hrefOf, setDecideAtOnce, UNDO_MS } from '../sync';
import { ExportControls } from './ExportDialog';

/** Export…: the whole history as one archive (the same as `perch export`), downloaded by the browser. */
function ExportSection() {
  return (
    <section className="settings-section" aria-labelledby="settings-export">
      <h2 id="settings-export">Export</h2>
      <p className="muted">
        All conversations, messages, decisions, handoffs, tasks, files and checkpoints in one archive (.tar.gz) with a readable transcript per conversation.
        No keys or other secrets. Import it into another Perch with <code>perch import FILE</code>. A conversation's ⋯ menu and an agent on the Agents page
        export just that conversation, or that agent's conversations.
      </p>
      <ExportControls scope={{}} />
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
