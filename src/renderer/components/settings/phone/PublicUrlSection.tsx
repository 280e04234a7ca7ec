// Settings → Phone, remote access: the public URL of the HTTPS front (tailscale serve) phones reach this hub through,
// and, without one, how to set it up.
import { useEffect, useState, type FormEvent } from 'react';
import { useSession } from '../../../stores/session';
import { savePublicUrl } from '../../../sync';
import { CopyButton } from '../../common';
import { HTTP_PUBLIC_URL_NOTE } from '../../../../shared/features/devices';

export function PublicUrlSection({ publicUrl, loaded }: { publicUrl: string | null; loaded: boolean }) {
  const info = useSession((s) => s.info);
  const port = /:(\d+)\/?$/.exec(info?.base_url ?? '')?.[1] ?? '<port>';
  const [draft, setDraft] = useState(publicUrl ?? '');
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  useEffect(() => setDraft(publicUrl ?? ''), [publicUrl]);
  const serveCmd = `tailscale serve --bg --https=443 http://127.0.0.1:${port}`;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaving(true);
    setError(await savePublicUrl(draft));
    setSaving(false);
  };
  return (
    <section className="ph-section" aria-labelledby="ph-url-title">
      <h2 id="ph-url-title">Remote access</h2>
      <form className="ph-url-form" onSubmit={submit} aria-label="Public URL" noValidate>
        <div className="field">
          <label htmlFor="ph-public-url">Public URL of the HTTPS front</label>
          <div className="row">
            <input
              id="ph-public-url"
              type="url"
              inputMode="url"
              spellCheck={false}
              placeholder="https://laptop.tail1234.ts.net"
              value={draft}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? 'ph-url-error' : undefined}
              onChange={(e) => setDraft(e.target.value)}
            />
            <button type="submit" className="btn btn-primary" disabled={saving || !loaded}>
              Save
            </button>
          </div>
          {error && (
            <p id="ph-url-error" className="error small" role="alert">
              {error}
            </p>
          )}
        </div>
      </form>
      {publicUrl?.startsWith('http:') && (
        <p className="warn small" role="note">
          Note: {publicUrl} is http, not https: {HTTP_PUBLIC_URL_NOTE}.
        </p>
      )}
      {publicUrl ? (
        <p className="small">
          Phones reach this hub at <code>{publicUrl}</code>. Requests through it need a paired device; loopback gives them no trust, and
          Tailscale Funnel (the public internet) is refused. Empty the field and save to turn remote access off.
        </p>
      ) : (
        <div className="ph-howto" aria-label="How to set up remote access">
          <p>
            <strong>No phone can reach this hub yet.</strong> It listens on 127.0.0.1 only, and stays so. To reach it from your phone, put
            it behind{' '}
            <a href="https://tailscale.com/kb/1312/serve" target="_blank" rel="noreferrer">
              tailscale serve
            </a>{' '}
            (your phone and this computer in the same tailnet). On this computer run:
          </p>
          <CommandLine text={serveCmd} />
          <p>Then see the https address it serves:</p>
          <CommandLine text="tailscale serve status" />
          <p className="muted small">
            Paste that https://…ts.net address above and save. Use serve, not Funnel: Perch refuses requests from the public internet.
          </p>
        </div>
      )}
    </section>
  );
}

function CommandLine({ text }: { text: string }) {
  return (
    <div className="ph-command">
      <code>{text}</code>
      <CopyButton text={text} label={`Copy: ${text}`} small />
    </div>
  );
}
