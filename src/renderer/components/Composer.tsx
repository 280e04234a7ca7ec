// The owner's composer: Markdown text, @mentions that fill `to` (waking those named), replies, threads,
// and a private-note mode that only one agent sees (notes.send).
import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { useConversations } from '../stores/conversations';
import { useSession } from '../stores/session';
import { useUi } from '../stores/ui';
import { useTimeline } from '../stores/timeline';
import { sendMessage, sendNote, setReplyTo } from '../sync';
import type { UserRef } from '../model';
import { Icon } from './Icon';

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
  const area = useRef<HTMLTextAreaElement>(null);

  const to = useMemo(() => mentionsIn(text, members), [text, members]);
  const target = noteAgent || agents[0]?.name || '';
  const noteMode = mode === 'note' && !threadId;
  const options = suggest ? members.filter((m) => m.name.startsWith(suggest.query.toLowerCase())).slice(0, 8) : [];

  if (!conv) return null;

  const send = async () => {
    const body = text.trim();
    if (!body || busy) return;
    setBusy(true);
    let ok: unknown;
    if (noteMode) {
      if (!target) {
        setBusy(false);
        return;
      }
      ok = await sendNote(target, body, inbox ? undefined : convId);
    } else {
      const input: { conv_id: string; text: string; to?: string[]; reply_to?: string; thread_id?: string } = { conv_id: convId, text: body };
      if (to.length) input.to = to;
      if (replyTo) input.reply_to = replyTo;
      if (threadId) input.thread_id = threadId;
      ok = await sendMessage(input);
    }
    setBusy(false);
    if (ok) {
      setText('');
      setSuggest(null);
      if (replyTo) setReplyTo(null);
    }
    area.current?.focus();
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
    <div className={`composer ${noteMode ? 'composer-note' : ''}`}>
      {!threadId && !inbox && agents.length > 0 && (
        <div className="composer-modes" role="group" aria-label="Composer mode">
          <button type="button" className={`mode ${mode === 'message' ? 'active' : ''}`} aria-pressed={mode === 'message'} onClick={() => setMode('message')}>
            Message
          </button>
          <button type="button" className={`mode ${mode === 'note' ? 'active' : ''}`} aria-pressed={mode === 'note'} onClick={() => setMode('note')}>
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
          Wakes: {to.map((n) => <span key={n} className="chip chip-mention">@{n}</span>)}
        </div>
      )}
      <div className="composer-box">
        <textarea
          ref={area}
          aria-label={label}
          placeholder={noteMode ? `Private note to ${target}…` : threadId ? 'Reply in thread…' : `Message ${conv.title} — @name wakes an agent`}
          rows={1}
          value={text}
          onChange={(e) => {
            setText(e.target.value);
            updateSuggest(e.target.value, e.target.selectionStart);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => setTimeout(() => setSuggest(null), 150)}
          aria-autocomplete="list"
          aria-expanded={!!suggest && options.length > 0}
          aria-controls={suggest ? `mentions-${convId}` : undefined}
        />
        <button type="button" className="btn btn-primary" disabled={busy || !text.trim()} onClick={() => void send()}>
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
      <p className="composer-hint muted small">Enter to send · Shift+Enter for a new line · Markdown works</p>
    </div>
  );
}
