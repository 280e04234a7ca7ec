// The owner's composer: Markdown text, @mentions that fill `to` (waking those named), replies, threads,
// a private-note mode that only one agent sees (notes.send), and files: attached with the button, dropped on the
// composer or pasted, sent with files.send (the text as the first file's caption), each shown with its upload's
// progress. Text over the message limit (LIMITS.maxTextChars) is refused before sending, with a counter as it
// nears the limit and an offer to send it as a file instead. Nothing here may widen the page (styles.css).
import { useEffect, useMemo, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent } from 'react';
import { LIMITS } from '../../../shared/limits';
import { useConversations } from '../../stores/conversations';
import { useSession } from '../../stores/session';
import { useUi } from '../../stores/ui';
import { useTimeline } from '../../stores/timeline';
import { attachRefusal, sendFile, sendMessage, sendNote, setReplyTo, textAsFile, type FileTarget } from '../../sync';
import type { UserRef } from '../../model';
import { bytes } from '../../format';
import { Icon } from '../Icon';

/** The counter shows from this share of the message limit on. */
const COUNTER_FROM = 0.9;

/** A file in the composer: waiting to be sent, on its way (progress 0..1), or refused by the hub (error). */
interface Attachment {
  id: number;
  file: File;
  progress: number | null;
  error?: string;
}
let attachmentIds = 0;

const MENTION = /(^|[^\w@])@([a-z0-9][a-z0-9_-]{0,39})/g;

/** Members named with @name in the text (only real members count). */
export function mentionsIn(text: string, members: UserRef[]): string[] {
  const names = new Set<string>();
  for (const m of text.matchAll(MENTION)) names.add(m[2]!);
  return members.filter((u) => names.has(u.name)).map((u) => u.name);
}

export function Composer({ convId, threadId }: { convId: string; threadId?: string }) {
  const conv = useConversations((s) => s.byId[convId]);
  const ownerId = useSession((s) => s.info?.owner.id);
  const replyTo = useUi((s) => (threadId ? null : s.replyTo));
  const replyMsg = useTimeline((s) => (replyTo ? s.messages.get(replyTo) : undefined));
  const members = useMemo(() => (conv?.members ?? []).filter((m) => m.id !== ownerId), [conv?.members, ownerId]);
  const agents = useMemo(() => members.filter((m) => m.kind === 'agent'), [members]);
  const inbox = conv?.kind === 'inbox';
  const [mode, setMode] = useState<'message' | 'note'>(inbox ? 'note' : 'message');
  const [noteAgent, setNoteAgent] = useState<string>('');
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [suggest, setSuggest] = useState<{ query: string; start: number; index: number } | null>(null);
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const [refusals, setRefusals] = useState<string[]>([]);
  const [dragging, setDragging] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const picker = useRef<HTMLInputElement>(null);

  // A file dropped beside the composer must not make the browser leave the app to show it.
  useEffect(() => {
    const keep = (e: globalThis.DragEvent) => {
      if (e.dataTransfer && Array.from(e.dataTransfer.types).includes('Files')) e.preventDefault();
    };
    window.addEventListener('dragover', keep);
    window.addEventListener('drop', keep);
    return () => {
      window.removeEventListener('dragover', keep);
      window.removeEventListener('drop', keep);
    };
  }, []);

  const to = useMemo(() => mentionsIn(text, members), [text, members]);
  const target = noteAgent || agents[0]?.name || '';
  const noteMode = mode === 'note' && !threadId;
  const options = suggest ? members.filter((m) => m.name.startsWith(suggest.query.toLowerCase())).slice(0, 8) : [];

  if (!conv) return null;

  const body = text.trim();
  const tooLong = body.length > LIMITS.maxTextChars;
  const files = noteMode ? [] : attachments;
  const canSend = !busy && !tooLong && (body.length > 0 || files.length > 0);

  /** After a send: the text goes (unless the owner typed on meanwhile), and so does the reply. */
  const cleared = (sent: string) => {
    setText((now) => (now.trim() === sent ? '' : now));
    setSuggest(null);
    if (replyTo) setReplyTo(null);
  };

  const fileTarget = (): FileTarget => {
    const t: FileTarget = { conv_id: convId };
    if (to.length) t.to = to;
    if (replyTo) t.reply_to = replyTo;
    if (threadId) t.thread_id = threadId;
    return t;
  };

  const patch = (id: number, change: Partial<Attachment>) =>
    setAttachments((all) => all.map((a) => (a.id === id ? { ...a, ...change } : a)));

  /**
   * Sends the files one by one, the text as the caption of the first that goes through; a sent file leaves the
   * composer, a refused one stays with the reason (Send tries it again, or the owner removes it). True when any was
   * sent (the text went with it).
   */
  const sendFiles = async (list: Attachment[], caption: string): Promise<boolean> => {
    let sentAny = false;
    for (const a of list) {
      patch(a.id, { progress: 0, error: undefined });
      const t = fileTarget();
      if (!sentAny && caption) t.caption = caption;
      const r = await sendFile(a.file, t, (p) => patch(a.id, { progress: p }));
      if ('sent' in r) {
        sentAny = true;
        setAttachments((all) => all.filter((x) => x.id !== a.id));
      } else {
        patch(a.id, { progress: null, error: `Not sent: ${r.error}` });
      }
    }
    return sentAny;
  };

  const send = async () => {
    if (!canSend) return;
    setBusy(true);
    let ok: unknown;
    if (noteMode) {
      if (!target) {
        setBusy(false);
        return;
      }
      ok = await sendNote(target, body, inbox ? undefined : convId);
    } else if (files.length) {
      ok = await sendFiles(files, body);
    } else {
      const input: { conv_id: string; text: string; to?: string[]; reply_to?: string; thread_id?: string } = {
        conv_id: convId,
        text: body,
      };
      if (to.length) input.to = to;
      if (replyTo) input.reply_to = replyTo;
      if (threadId) input.thread_id = threadId;
      ok = await sendMessage(input);
    }
    setBusy(false);
    if (ok) cleared(body);
    area.current?.focus();
  };

  /** Over-long text goes as a file (message.txt) instead of a message. */
  const sendTextAsFile = async () => {
    if (busy || !body) return;
    setBusy(true);
    const a: Attachment = { id: ++attachmentIds, file: textAsFile(body), progress: 0 };
    setAttachments((all) => [...all, a]);
    if (await sendFiles([a], '')) cleared(body);
    setBusy(false);
    area.current?.focus();
  };

  const attach = (list: FileList | File[] | null | undefined) => {
    const picked = Array.from(list ?? []);
    if (!picked.length) return;
    if (noteMode) {
      setRefusals(['A private note carries text only: switch to Message to send files.']);
      return;
    }
    const refused = picked.map((f) => attachRefusal(f)).filter((r): r is string => !!r);
    setRefusals(refused);
    const ok = picked.filter((f) => !attachRefusal(f)).map((file) => ({ id: ++attachmentIds, file, progress: null }));
    if (ok.length) setAttachments((all) => [...all, ...ok]);
  };

  const onPaste = (e: ClipboardEvent<HTMLTextAreaElement>) => {
    // A pasted screenshot or copied file is attached; pasted text goes into the text as usual.
    if (e.clipboardData.files.length > 0) {
      e.preventDefault();
      attach(e.clipboardData.files);
    }
  };
  const hasFiles = (e: DragEvent) => Array.from(e.dataTransfer.types).includes('Files');
  const onDragOver = (e: DragEvent<HTMLDivElement>) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    e.dataTransfer.dropEffect = 'copy';
    if (!dragging) setDragging(true);
  };
  const onDrop = (e: DragEvent<HTMLDivElement>) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    setDragging(false);
    attach(e.dataTransfer.files);
  };

  const updateSuggest = (value: string, caret: number) => {
    const m = /(^|[^\w@])@([a-z0-9_-]{0,40})$/i.exec(value.slice(0, caret));
    if (m && !noteMode) setSuggest({ query: m[2]!, start: caret - m[2]!.length - 1, index: 0 });
    else setSuggest(null);
  };

  const pick = (name: string) => {
    if (!suggest) return;
    const caret = area.current?.selectionStart ?? text.length;
    const next = `${text.slice(0, suggest.start)}@${name} ${text.slice(caret)}`;
    setText(next);
    setSuggest(null);
    requestAnimationFrame(() => {
      const pos = suggest.start + name.length + 2;
      area.current?.setSelectionRange(pos, pos);
      area.current?.focus();
    });
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (suggest && options.length) {
      if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        e.preventDefault();
        const d = e.key === 'ArrowDown' ? 1 : -1;
        setSuggest({ ...suggest, index: (suggest.index + d + options.length) % options.length });
        return;
      }
      if (e.key === 'Enter' || e.key === 'Tab') {
        e.preventDefault();
        pick(options[suggest.index]!.name);
        return;
      }
      if (e.key === 'Escape') {
        e.preventDefault();
        setSuggest(null);
        return;
      }
    }
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
    if (e.key === 'Escape' && replyTo) setReplyTo(null);
  };

  const label = noteMode ? `Private note to ${target || 'an agent'}` : threadId ? 'Reply in thread' : `Message ${conv.title}`;
  return (
    <div
      className={`composer ${noteMode ? 'composer-note' : ''} ${dragging ? 'composer-dragging' : ''}`}
      onDragOver={onDragOver}
      onDragLeave={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null)) setDragging(false);
      }}
      onDrop={onDrop}
    >
      {!threadId && !inbox && agents.length > 0 && (
        <div className="composer-modes" role="group" aria-label="Composer mode">
          <button
            type="button"
            className={`mode ${mode === 'message' ? 'active' : ''}`}
            aria-pressed={mode === 'message'}
            onClick={() => setMode('message')}
          >
            Message
          </button>
          <button
            type="button"
            className={`mode ${mode === 'note' ? 'active' : ''}`}
            aria-pressed={mode === 'note'}
            onClick={() => setMode('note')}
          >
            <Icon name="lock" size={12} /> Private note
          </button>
          {noteMode && (
            <select aria-label="Agent for the private note" value={target} onChange={(e) => setNoteAgent(e.target.value)}>
              {agents.map((a) => (
                <option key={a.id} value={a.name}>
                  to {a.name}
                </option>
              ))}
            </select>
          )}
          {noteMode && <span className="muted small">Only {target} sees this note; it is woken.</span>}
        </div>
      )}
      {replyMsg && (
        <div className="composer-reply">
          <span>
            Replying to <strong>{replyMsg.sender.name}</strong>: <span className="muted">{(replyMsg.text ?? '').slice(0, 100)}</span>
          </span>
          <button type="button" className="btn btn-ghost btn-small" aria-label="Cancel reply" onClick={() => setReplyTo(null)}>
            <Icon name="close" size={14} />
          </button>
        </div>
      )}
      {!noteMode && to.length > 0 && (
        <div className="composer-to" aria-live="polite">
          Wakes:{' '}
          {to.map((n) => (
            <span key={n} className="chip chip-mention">
              @{n}
            </span>
          ))}
        </div>
      )}
      {files.length > 0 && (
        <AttachmentList attachments={files} busy={busy} onRemove={(id) => setAttachments((all) => all.filter((a) => a.id !== id))} />
      )}
      {refusals.length > 0 && (
        <div className="composer-refusal" role="alert">
          <div>
            {refusals.map((r) => (
              <p key={r}>{r}</p>
            ))}
          </div>
          <button type="button" className="btn btn-ghost btn-small" aria-label="Dismiss" onClick={() => setRefusals([])}>
            <Icon name="close" size={12} />
          </button>
        </div>
      )}
      <div className="composer-box">
        {!noteMode && (
          <>
            <button
              type="button"
              className="btn btn-ghost btn-icon"
              aria-label="Attach files"
              title="Attach files (or drop or paste them here)"
              disabled={busy}
              onClick={() => picker.current?.click()}
            >
              <Icon name="paperclip" />
            </button>
            <input
              ref={picker}
              type="file"
              multiple
              hidden
              aria-label="Files to attach"
              onChange={(e) => {
                attach(e.target.files);
                e.target.value = '';
              }}
            />
          </>
        )}
        <textarea
          ref={area}
          aria-label={label}
          placeholder={
            noteMode ? `Private note to ${target}…` : threadId ? 'Reply in thread…' : `Message ${conv.title} — @name wakes an agent`
          }
          rows={1}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            updateSuggest(e.target.value, e.target.selectionStart);
          }}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          aria-describedby={body.length >= LIMITS.maxTextChars * COUNTER_FROM ? `count-${convId}${threadId ?? ''}` : undefined}
          onBlur={() => setTimeout(() => setSuggest(null), 150)}
          aria-autocomplete="list"
          aria-expanded={!!suggest && options.length > 0}
          aria-controls={suggest ? `mentions-${convId}` : undefined}
        />
        <button type="button" className="btn btn-primary" disabled={!canSend} onClick={() => void send()}>
          {noteMode ? 'Send note' : 'Send'}
        </button>
        {suggest && options.length > 0 && (
          <ul className="mention-list" role="listbox" id={`mentions-${convId}`} aria-label="Mention a member">
            {options.map((m, i) => (
              <li
                key={m.id}
                role="option"
                aria-selected={i === suggest.index}
                className={i === suggest.index ? 'active' : ''}
                onMouseDown={(e) => {
                  e.preventDefault();
                  pick(m.name);
                }}
              >
                @{m.name} <span className="muted small">{m.kind === 'agent' ? 'AI agent' : 'person'}</span>
              </li>
            ))}
          </ul>
        )}
      </div>
      {body.length >= LIMITS.maxTextChars * COUNTER_FROM && (
        <LengthNotice
          id={`count-${convId}${threadId ?? ''}`}
          length={body.length}
          noteMode={noteMode}
          busy={busy}
          onSendAsFile={() => void sendTextAsFile()}
        />
      )}
      <p className="composer-hint muted small">
        Enter to send · Shift+Enter for a new line · Markdown works{noteMode ? '' : ' · drop or paste files'}
      </p>
    </div>
  );
}

/** The counter near the message limit; over it, the refusal in plain words and the offer to send the text as a file. */
function LengthNotice({
  id,
  length,
  noteMode,
  busy,
  onSendAsFile,
}: {
  id: string;
  length: number;
  noteMode: boolean;
  busy: boolean;
  onSendAsFile: () => void;
}) {
  const limit = LIMITS.maxTextChars;
  const over = length - limit;
  const n = (x: number) => x.toLocaleString('en-US');
  return (
    <div className={`composer-length ${over > 0 ? 'over' : ''}`} id={id}>
      <span className="composer-count" aria-label="Characters">
        {n(length)} / {n(limit)}
      </span>
      {over > 0 && (
        <span role="alert" className="composer-over">
          Too long to send as one message: {n(length)} characters, {n(over)} over the limit of {n(limit)}.{' '}
          {noteMode ? 'Shorten it: a private note carries text only.' : 'Shorten it, or send it as a file.'}
        </span>
      )}
      {over > 0 && !noteMode && (
        <button type="button" className="btn btn-small" disabled={busy} onClick={onSendAsFile}>
          <Icon name="file" size={12} /> Send as file
        </button>
      )}
    </div>
  );
}

/** The files waiting in the composer, each with its upload's progress or why the hub refused it. */
function AttachmentList({ attachments, busy, onRemove }: { attachments: Attachment[]; busy: boolean; onRemove: (id: number) => void }) {
  return (
    <ul className="composer-files" aria-label="Attached files">
      {attachments.map((a) => (
        <li key={a.id} className={`composer-file ${a.error ? 'failed' : ''}`}>
          <Icon name="file" size={14} />
          <span className="composer-file-name" title={a.file.name}>
            {a.file.name}
          </span>
          <span className="muted small">{bytes(a.file.size)}</span>
          {a.progress !== null && (
            <span
              className="composer-file-progress"
              role="progressbar"
              aria-label={`Uploading ${a.file.name}`}
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={Math.round(a.progress * 100)}
            >
              <span style={{ width: `${Math.round(a.progress * 100)}%` }} />
            </span>
          )}
          {a.error && (
            <span className="error small" role="alert">
              {a.error}
            </span>
          )}
          {a.progress === null && (
            <button
              type="button"
              className="btn btn-ghost btn-small"
              aria-label={`Remove ${a.file.name}`}
              disabled={busy}
              onClick={() => onRemove(a.id)}
            >
              <Icon name="close" size={12} />
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}
