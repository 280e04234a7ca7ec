// Settings → Phone, what a push carries: a short summary, or only ids (the phone fetches the details when opened).
import type { PushContent } from '../../../../shared/features/devices';
import { setPushContent } from '../../../sync';

export function PushSection({ content }: { content: PushContent }) {
  return (
    <section className="ph-section" aria-labelledby="ph-push-title">
      <h2 id="ph-push-title">What a push carries</h2>
      <p className="muted small">
        Web Push is end-to-end encrypted to the phone: the push service (Google, Apple, Mozilla) sees only its size, time and the
        phone&apos;s address, not the text.
      </p>
      <fieldset className="field ph-push-content">
        <legend className="sr-only">Push content</legend>
        <label className="field-check">
          <input type="radio" name="ph-push-content" checked={content === 'summary'} onChange={() => void setPushContent('summary')} />
          <span>A short summary (who asks what) — readable on the lock screen</span>
        </label>
        <label className="field-check">
          <input type="radio" name="ph-push-content" checked={content === 'ids'} onChange={() => void setPushContent('ids')} />
          <span>Only ids — the notification shows a generic line; the phone fetches the details when opened</span>
        </label>
      </fieldset>
    </section>
  );
}
