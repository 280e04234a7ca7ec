// Export…: one archive (the same as `perch export`, docs/archive-format.md) downloaded by the browser, of the whole
// history (Settings → Export), of one conversation (its ⋯ menu) or of an agent's conversations (Agents page).
import { useState } from 'react';
import { downloadArchive, OwnerError } from '../../transport';
import { Dialog, ErrorLine } from '../common';

/** What to export: everything ({}), some conversations, or the conversations an agent (by name) is in. */
export interface ExportScope {
  conversations?: string[];
  agent?: string;
}

interface ExportState {
  busy: boolean;
  percent: number | null;
  error: string | null;
  done: string | null;
}

/** Runs an export of `scope` and hands the archive to the browser as a download. */
export function useExport(scope: ExportScope): { state: ExportState; run: () => Promise<void> } {
  const [state, setState] = useState<ExportState>({ busy: false, percent: null, error: null, done: null });
  const run = async () => {
    setState({ busy: true, percent: null, error: null, done: null });
    try {
      const { blob, name } = await downloadArchive(scope, (received, total) =>
        setState((s) => ({ ...s, percent: total ? Math.floor((100 * received) / total) : null })),
      );
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
  return { state, run };
}

/** The Export… button with its progress bar and outcome. */
export function ExportControls({ scope, label = 'Export…' }: { scope: ExportScope; label?: string }) {
  const { state, run } = useExport(scope);
  return (
    <>
      <button type="button" className="btn btn-primary" onClick={() => void run()} disabled={state.busy}>
        {state.busy ? 'Exporting…' : label}
      </button>
      {state.busy && <progress aria-label="Export progress" max={100} value={state.percent ?? undefined} />}
      {state.done && (
        <p className="muted small" role="status">
          Saved {state.done}.
        </p>
      )}
      <ErrorLine error={state.error} />
    </>
  );
}

/** A dialog that exports part of the history: what it holds, then Export. */
export function ExportDialog({ title, what, scope, onClose }: { title: string; what: string; scope: ExportScope; onClose: () => void }) {
  return (
    <Dialog title={title} onClose={onClose}>
      <p>{what}</p>
      <p className="muted small">
        One archive (.tar.gz) with a readable transcript per conversation, its messages, decisions, handoffs and files. No keys or other
        secrets. Import it into another Perch with <code>perch import FILE</code>.
      </p>
      <div className="row">
        <ExportControls scope={scope} label="Export" />
      </div>
    </Dialog>
  );
}
