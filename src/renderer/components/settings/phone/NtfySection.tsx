// Settings → Phone, the optional ntfy channel: server, topic, opaque.
import { useState } from 'react';
import { saveNtfy } from '../../../sync';

export function NtfySection({ ntfy }: { ntfy: { server: string; topic: string; opaque: boolean } | null }) {
  const [on, setOn] = useState(!!ntfy);
  const [server, setServer] = useState(ntfy?.server ?? 'https://ntfy.sh');
  const [topic, setTopic] = useState(ntfy?.topic ?? '');
  const [opaque, setOpaque] = useState(ntfy?.opaque ?? true);
  const [error, setError] = useState<string | null>(null);
  return (
    <section className="ph-section" aria-labelledby="ph-ntfy-title">
      <h2 id="ph-ntfy-title">ntfy (optional)</h2>
      <p className="muted small">
        If you run ntfy, Perch can also post each notice to a topic, with Approve / Reject buttons that call this hub&apos;s public URL.
        Unlike Web Push, the ntfy server reads what it carries: keep it opaque unless the server is your own.
      </p>
      <form
        className="ph-ntfy-form"
        aria-label="ntfy"
        noValidate
        onSubmit={async (e) => {
          e.preventDefault();
          setError(await saveNtfy(on ? { server: server.trim(), topic: topic.trim(), opaque } : null));
        }}
      >
        <label className="field-check">
          <input type="checkbox" checked={on} onChange={(e) => setOn(e.target.checked)} /> Send to ntfy
        </label>
        {on && (
          <>
            <div className="field">
              <label htmlFor="ph-ntfy-server">Server</label>
              <input id="ph-ntfy-server" type="url" spellCheck={false} value={server} onChange={(e) => setServer(e.target.value)} />
            </div>
            <div className="field">
              <label htmlFor="ph-ntfy-topic">Topic</label>
              <input
                id="ph-ntfy-topic"
                spellCheck={false}
                maxLength={64}
                placeholder="a long random name: anyone who knows it can read it"
                value={topic}
                onChange={(e) => setTopic(e.target.value)}
              />
            </div>
            <label className="field-check">
              <input type="checkbox" checked={opaque} onChange={(e) => setOpaque(e.target.checked)} /> Opaque: send “Perch needs you”
              instead of the summary, with no Approve / Reject buttons
            </label>
          </>
        )}
        {error && (
          <p className="error small" role="alert">
            {error}
          </p>
        )}
        <div>
          <button type="submit" className="btn btn-ghost">
            Save ntfy
          </button>
        </div>
      </form>
    </section>
  );
}
