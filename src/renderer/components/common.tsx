// Small building blocks: avatar, markdown body, error boundary, JSON viewer, dialog, icons.
import { Component, useEffect, useRef, useState, type ErrorInfo, type ReactNode } from 'react';
import { renderMarkdown } from '../markdown';
import { hueOf, initials } from '../format';
import type { UserRef } from '../model';
import { Icon } from './Icon';
import { ON_THE_LAPTOP_TITLE } from '../stores/paired-device';

export function Avatar({ user, size = 36 }: { user: Pick<UserRef, 'name' | 'kind'>; size?: number }) {
  const hue = hueOf(user.name);
  return (
    <span
      className={`avatar ${user.kind === 'agent' ? 'avatar-agent' : 'avatar-human'}`}
      style={{ width: size, height: size, fontSize: size * 0.4, background: `hsl(${hue} 55% 46%)` }}
      aria-hidden="true"
    >
      {user.kind === 'agent' ? <BotIcon size={size * 0.55} /> : initials(user.name)}
    </span>
  );
}

/** Agent-written Markdown, sanitized; raw HTML in it shows as text. Each code block has a Copy button. */
export function Markdown({ text, className }: { text: string; className?: string }) {
  const html = renderMarkdown(text);
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => addCodeCopyButtons(ref.current), [html]);
  return <div ref={ref} className={`md ${className ?? ''}`} onClick={copyCodeBlock} dangerouslySetInnerHTML={{ __html: html }} />;
}

/** A Copy button in each code block of rendered Markdown (made here, never from the message's own HTML). */
function addCodeCopyButtons(root: HTMLElement | null): void {
  for (const pre of root?.querySelectorAll('pre') ?? []) {
    if (pre.querySelector(':scope > .code-copy')) continue;
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'code-copy';
    b.textContent = 'Copy';
    b.setAttribute('aria-label', 'Copy code');
    pre.appendChild(b);
  }
}

function copyCodeBlock(e: React.MouseEvent<HTMLElement>): void {
  const b = (e.target as HTMLElement).closest<HTMLButtonElement>('.code-copy');
  const pre = b?.parentElement;
  if (!b || !pre) return;
  e.stopPropagation();
  const code = pre.querySelector('code')?.textContent ?? '';
  void copyText(code).then(() => {
    b.textContent = 'Copied';
    setTimeout(() => (b.textContent = 'Copy'), 1500);
  });
}

/** Puts text on the clipboard (a hidden textarea where the Clipboard API is refused). */
export async function copyText(text: string): Promise<void> {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const ta = document.createElement('textarea');
    ta.value = text;
    document.body.appendChild(ta);
    ta.select();
    document.execCommand('copy');
    ta.remove();
  }
}

/**
 * One item (a message, a card block, an inbox card, a page) that fails to render shows a small "Could not
 * show this …" with its raw text, instead of unmounting the whole app. It tries again when `raw` changes.
 */
export class ItemBoundary extends Component<
  { what: string; raw?: string; actions?: ReactNode; children: ReactNode },
  { failed: boolean; raw?: string }
> {
  override state: { failed: boolean; raw?: string } = { failed: false, raw: this.props.raw };

  static getDerivedStateFromError(): { failed: boolean } {
    return { failed: true };
  }

  static getDerivedStateFromProps(props: { raw?: string }, state: { failed: boolean; raw?: string }) {
    return props.raw === state.raw ? null : { failed: false, raw: props.raw };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error(`Perch could not show this ${this.props.what}:`, error, info.componentStack);
  }

  override render(): ReactNode {
    if (!this.state.failed) return this.props.children;
    return (
      <div className="item-error" role="note">
        <span>Could not show this {this.props.what}.</span> {this.props.actions}
        {this.props.raw !== undefined && this.props.raw !== '' && (
          <details>
            <summary>Show the raw text</summary>
            <pre>{this.props.raw}</pre>
          </details>
        )}
      </div>
    );
  }
}

/** JSON as a collapsible tree (pretty-printed, never interpreted). */
export function JsonView({ value, label = 'Details', open = false }: { value: unknown; label?: string; open?: boolean }) {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? 'undefined';
  } catch {
    text = String(value);
  }
  return (
    <details className="json" open={open}>
      <summary>{label}</summary>
      <JsonNode value={value} depth={0} />
      <CopyButton text={text} label={`Copy ${label.toLowerCase()} as JSON`} small />
    </details>
  );
}

function JsonNode({ value, depth }: { value: unknown; depth: number }): ReactNode {
  if (value === null) return <span className="j-null">null</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return <span className="j-punct">[]</span>;
    return (
      <details className="j-node" open={depth < 2}>
        <summary className="j-punct">
          [{value.length} item{value.length === 1 ? '' : 's'}]
        </summary>
        <ol className="j-list" start={0}>
          {value.slice(0, 500).map((v, i) => (
            <li key={i}>
              <JsonNode value={v} depth={depth + 1} />
            </li>
          ))}
        </ol>
      </details>
    );
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return <span className="j-punct">{'{}'}</span>;
    return (
      <details className="j-node" open={depth < 2}>
        <summary className="j-punct">{`{${entries.length} key${entries.length === 1 ? '' : 's'}}`}</summary>
        <dl className="j-obj">
          {entries.slice(0, 500).map(([k, v]) => (
            <div key={k} className="j-row">
              <dt className="j-key">{k}</dt>
              <dd>
                <JsonNode value={v} depth={depth + 1} />
              </dd>
            </div>
          ))}
        </dl>
      </details>
    );
  }
  if (typeof value === 'string') return <span className="j-str">{JSON.stringify(value)}</span>;
  if (typeof value === 'number') return <span className="j-num">{String(value)}</span>;
  if (typeof value === 'boolean') return <span className="j-bool">{String(value)}</span>;
  return <span>{String(value)}</span>;
}

export function CopyButton({ text, label = 'Copy', small }: { text: string; label?: string; small?: boolean }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      className={`btn ${small ? 'btn-small' : ''} btn-ghost`}
      aria-label={label}
      onClick={async () => {
        await copyText(text);
        setDone(true);
        setTimeout(() => setDone(false), 1500);
      }}
    >
      {done ? 'Copied' : 'Copy'}
    </button>
  );
}

/** A button that runs one owner action and stays disabled until it has answered (no double sends). */
export function BusyButton({ className, onClick, children }: { className: string; onClick: () => Promise<unknown>; children: ReactNode }) {
  const [busy, setBusy] = useState(false);
  return (
    <button
      type="button"
      className={className}
      disabled={busy}
      onClick={async () => {
        setBusy(true);
        await onClick();
        setBusy(false);
      }}
    >
      {children}
    </button>
  );
}

const FIELDS = 'input:not([type=hidden]):not([disabled]), textarea:not([disabled]), select:not([disabled])';
const FOCUSABLE = `${FIELDS}, button:not([disabled]), [href], [tabindex]:not([tabindex="-1"])`;

/**
 * A modal dialog (the native <dialog>: Esc closes, the page behind is inert). Focus starts on what the dialog is
 * for (an autoFocus element, else its first field, else its first control — never the Close button, so typing
 * cannot close it) and goes back to what opened it when it closes.
 */
/** A failure the owner should read, announced to screen readers (role alert); nothing when there is none. */
export function ErrorLine({ error }: { error: ReactNode }) {
  if (!error) return null;
  return (
    <p className="error" role="alert">
      {error}
    </p>
  );
}

export function Dialog({ title, onClose, children, wide }: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [opener] = useState(() => (typeof document === 'undefined' ? null : (document.activeElement as HTMLElement | null)));
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    const chosen = d.contains(document.activeElement) ? (document.activeElement as HTMLElement) : null; // React's autoFocus ran first
    if (!d.open) d.showModal();
    const body = d.querySelector('.dialog-body');
    (chosen ?? body?.querySelector<HTMLElement>(FIELDS) ?? body?.querySelector<HTMLElement>(FOCUSABLE))?.focus();
    return () => {
      d.close();
      if (opener && opener !== document.body && opener.isConnected) opener.focus();
    };
  }, []);
  return (
    <dialog
      ref={ref}
      className={`dialog ${wide ? 'dialog-wide' : ''}`}
      aria-label={title}
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
      onClick={(e) => {
        if (e.target === ref.current) onClose();
      }}
    >
      <div className="dialog-head">
        <h2>{title}</h2>
        <button type="button" className="btn btn-ghost btn-icon" aria-label="Close" onClick={onClose}>
          <Icon name="close" />
        </button>
      </div>
      <div className="dialog-body">{children}</div>
    </dialog>
  );
}

export function BotIcon({ size = 16 }: { size?: number }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      aria-hidden="true"
    >
      <rect x="4" y="8" width="16" height="12" rx="3" />
      <path d="M12 4v4M9 13h.01M15 13h.01M9 17h6" />
    </svg>
  );
}

/** "AI agent for you": provenance the server attests, shown on every agent message. */
export function AgentBadge({ title }: { title?: string }) {
  return (
    <span className="badge badge-agent" title={title ?? 'Written by an AI agent acting for you (attested by the Perch hub)'}>
      AI agent for you
    </span>
  );
}

/** Asks before something that cannot be undone. */
export function ConfirmDialog(props: {
  title: string;
  children: ReactNode;
  confirm: string;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <Dialog title={props.title} onClose={props.onCancel}>
      <div className="confirm-body">{props.children}</div>
      <div className="row">
        <button type="button" className={`btn ${props.danger ? 'btn-danger' : 'btn-primary'}`} autoFocus onClick={props.onConfirm}>
          {props.confirm}
        </button>
        <button type="button" className="btn btn-ghost" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

/** In place of a part of a page that a paired device can neither load nor use (laptop-only, stores/paired-device.ts laptopOnly): one plain line. */
export function OnTheLaptop({ children }: { children: ReactNode }) {
  return (
    <p className="muted on-the-laptop" role="note">
      {children}
    </p>
  );
}

/** The props of a button for something only the laptop may do: on a paired device it is disabled, its title says why. */
export function laptopButton(onLaptopOnly: boolean): { disabled?: true; title?: string } {
  return onLaptopOnly ? { disabled: true, title: ON_THE_LAPTOP_TITLE } : {};
}
