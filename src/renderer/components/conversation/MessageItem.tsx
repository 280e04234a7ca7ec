// One message: who (with provenance), when, edited/recalled, its body by kind, reactions, thread replies,
// and the owner's actions on it.
import { memo, useEffect, useRef, useState } from 'react';
import type { CardPayload, FilePayload, Message, RequestMessagePayload } from '../../model';
import { useTimeline } from '../../stores/timeline';
import { useSession } from '../../stores/session';
import { useConversations } from '../../stores/conversations';
import { useFiles, fileKey } from '../../stores/files';
import { editMessage, fileLink, focusMessage, hideMessage, openImage, openThread, pin, react, recallMessage, setReplyTo } from '../../sync';
import { transport } from '../../transport';
import { bytes, dateTimeOf, timeOf } from '../../format';
import { AgentBadge, Avatar, ConfirmDialog, ItemBoundary, laptopButton, Markdown } from '../common';
import { useLaptopOnly } from '../../stores/paired-device';
import { CardView } from './CardView';
import { RequestCard } from './RequestCard';
import { Icon } from '../Icon';

/** A touch screen without hover (a phone): the message actions show on a tap instead (focus-within). */
const TOUCH = typeof matchMedia === 'function' && matchMedia('(hover: none)').matches;

const QUICK_REACTIONS = ['👍', '✅', '👀', '❤️', '🎉', '🙏', '❓', '🚀'];
const GROUP_MS = 5 * 60_000;

type MessageItemProps = { msgId: string; prevMsgId: string | null; highlighted?: boolean; inThread?: boolean };

/** One message; if it cannot be shown, a small note with its raw text and a Hide button, never a blank app. */
export const MessageItem = memo(function MessageItem(props: MessageItemProps) {
  const text = useTimeline((s) => s.messages.get(props.msgId)?.text ?? undefined);
  return (
    <ItemBoundary what="message" raw={text} actions={<HideButton msgId={props.msgId} />}>
      <MessageItemView {...props} />
    </ItemBoundary>
  );
});

function HideButton({ msgId }: { msgId: string }) {
  return (
    <button type="button" className="btn btn-small btn-ghost" onClick={() => void hideMessage(msgId, true)}>
      Hide
    </button>
  );
}

const MessageItemView = memo(function MessageItemView(props: MessageItemProps) {
  const { msgId, prevMsgId, inThread } = props;
  const m = useTimeline((s) => s.messages.get(msgId));
  const compact = useTimeline((s) => {
    if (!prevMsgId) return false;
    const p = s.messages.get(prevMsgId);
    const me = s.messages.get(msgId);
    return (
      !!p &&
      !!me &&
      p.sender.id === me.sender.id &&
      me.created_at - p.created_at < GROUP_MS &&
      !me.reply_to &&
      p.kind === 'text' &&
      me.kind === 'text'
    );
  });
  const replyCount = useTimeline((s) => (m && !inThread ? (s.convs[m.conv_id]?.threadCounts[msgId] ?? 0) : 0));
  const pinned = useTimeline((s) => (m ? (s.convs[m.conv_id]?.pins.includes(msgId) ?? false) : false));
  const ownerId = useSession((s) => s.info?.owner.id);
  const direct = useConversations((s) => (m ? s.byId[m.conv_id]?.kind === 'direct' : false));
  const [editing, setEditing] = useState(false);
  if (!m) return null;
  const mine = m.sender.id === ownerId;
  const isAgent = m.provenance?.ai || m.sender.kind === 'agent';
  const name = mine ? 'You' : m.sender.name;
  if (m.hidden) {
    // Hidden by the owner (messages.hide): only who and when; the content is not rendered at all.
    return (
      <article className="msg msg-hidden" aria-label={`Hidden message from ${m.sender.name}`} data-msg-id={m.msg_id}>
        <div className="msg-gutter" />
        <div className="msg-main">
          <p className="msg-hidden-note">
            You hid a message from {name} · {timeOf(m.created_at)}{' '}
            <button
              type="button"
              className="link"
              aria-label={`Show the hidden message from ${m.sender.name}`}
              onClick={() => void hideMessage(m.msg_id, false)}
            >
              Show
            </button>
          </p>
        </div>
      </article>
    );
  }
  return (
    <article
      className={`msg ${compact ? 'msg-compact' : ''} ${mine ? 'msg-mine' : ''} ${props.highlighted ? 'msg-highlight' : ''} ${m.recalled ? 'msg-recalled' : ''}`}
      aria-label={`Message from ${m.sender.name}`}
      data-msg-id={m.msg_id}
      tabIndex={TOUCH ? -1 : undefined} // a touch screen has no hover: a tap focuses the message and shows its actions (styles.css)
    >
      <div className="msg-gutter">
        {compact ? (
          <time className="msg-time-hover" dateTime={new Date(m.created_at).toISOString()} title={dateTimeOf(m.created_at)}>
            {timeOf(m.created_at)}
          </time>
        ) : (
          <Avatar user={m.sender} />
        )}
      </div>
      <div className="msg-main">
        {!compact && (
          <div className="msg-head">
            <strong className="msg-author">{name}</strong>
            {m.sender.instance && (
              <span className="msg-instance" title="The agent's session (instance name)">
                · {m.sender.instance}
              </span>
            )}
            {isAgent && (
              <AgentBadge
                title={
                  m.provenance?.on_behalf_of
                    ? `AI agent acting for ${m.provenance.on_behalf_of.name}; attested by the Perch hub`
                    : undefined
                }
              />
            )}
            <time className="msg-time" dateTime={new Date(m.created_at).toISOString()} title={dateTimeOf(m.created_at)}>
              {timeOf(m.created_at)}
            </time>
            {m.intent && <span className={`chip chip-intent chip-intent-${m.intent}`}>{m.intent}</span>}
            {/* in a direct conversation a message names the other side anyway (hub/talk/messages.ts): no need to say so */}
            {m.to && m.to.length > 0 && !(direct && m.to.length === 1) && (
              <span className="msg-to">→ {m.to.map((t) => `@${t}`).join(' ')}</span>
            )}
            {pinned && (
              <span className="pinned" title="Pinned">
                <Icon name="pin" size={11} /> pinned
              </span>
            )}
          </div>
        )}
        {m.reply_to && <ReplyQuote msgId={m.reply_to} />}
        {m.recalled ? (
          <p className="recalled">This message was recalled.</p>
        ) : editing ? (
          <EditBox msg={m} onDone={() => setEditing(false)} />
        ) : (
          <>
            <MessageBody msg={m} />
            <ReviewMark msg={m} />
            {m.edited_at && (
              <span className="edited" title={`Edited ${dateTimeOf(m.edited_at)}`}>
                (edited)
              </span>
            )}
          </>
        )}
        {m.claimed_by && <p className="claimed small">Claimed by {m.claimed_by.name}</p>}
        {m.topics && m.topics.length > 0 && (
          <div className="topics">
            {m.topics.map((t) => (
              <span key={t} className="chip chip-topic">
                #{t}
              </span>
            ))}
          </div>
        )}
        {!m.recalled && <Reactions msg={m} />}
        {replyCount > 0 && (
          <button type="button" className="thread-link" onClick={() => void openThread(m.conv_id, m.msg_id)}>
            <Icon name="thread" size={13} /> {replyCount} {replyCount === 1 ? 'reply' : 'replies'}
          </button>
        )}
      </div>
      {!m.recalled && <MessageActions msg={m} mine={mine} pinned={pinned} inThread={!!inThread} onEdit={() => setEditing(true)} />}
    </article>
  );
});

/** Review mode: the owner edited this before it was posted ("edited by you"), or read it first (a quiet mark). */
function ReviewMark({ msg }: { msg: Message }) {
  if (msg.provenance?.owner_edited) {
    return (
      <span className="review-mark review-edited" title="You changed this text in review before it was posted">
        edited by you
      </span>
    );
  }
  if (msg.provenance?.reviewed) {
    return (
      <span className="review-mark" title="You reviewed this before it was posted" aria-label="reviewed by you">
        ✓ reviewed
      </span>
    );
  }
  return null;
}

function ReplyQuote({ msgId }: { msgId: string }) {
  const q = useTimeline((s) => s.messages.get(msgId));
  return (
    <button
      type="button"
      className="reply-quote"
      onClick={() => focusMessage(msgId)}
      aria-label={`In reply to ${q ? q.sender.name : 'an earlier message'}`}
    >
      <span className="reply-bar" aria-hidden="true" />
      <strong>{q?.sender.name ?? 'Earlier message'}</strong>{' '}
      <span className="muted">
        {q ? (q.recalled ? 'recalled message' : q.hidden ? 'hidden message' : (q.text ?? '').slice(0, 140)) : ''}
      </span>
    </button>
  );
}

/** The content of a message by its kind. Text is always sanitized Markdown; content that fails to render is a small note. */
export function MessageBody({ msg, compact }: { msg: Message; compact?: boolean }) {
  if (msg.hidden) return <p className="msg-hidden-note">Hidden message</p>;
  return (
    <ItemBoundary what="message" raw={msg.text ?? (msg.payload ? JSON.stringify(msg.payload, null, 2) : undefined)}>
      <MessageContent msg={msg} compact={compact} />
    </ItemBoundary>
  );
}

function MessageContent({ msg, compact }: { msg: Message; compact?: boolean }) {
  if (msg.recalled) return <p className="recalled">This message was recalled.</p>;
  switch (msg.kind) {
    case 'card':
      if (msg.payload && (msg.payload as unknown as CardPayload).card)
        return <CardView msg={msg} payload={msg.payload as unknown as CardPayload} />;
      break;
    case 'request':
      if (msg.payload && (msg.payload as unknown as RequestMessagePayload).request_id) {
        return (
          <RequestCard
            requestId={(msg.payload as unknown as RequestMessagePayload).request_id}
            fallback={msg.text ? <Markdown text={msg.text} /> : null}
            compact={compact}
          />
        );
      }
      break;
    case 'file':
    case 'image':
      if (msg.payload && (msg.payload as unknown as FilePayload).file_id) {
        const p = msg.payload as unknown as FilePayload;
        return (
          <>
            <FileView payload={p} image={msg.kind === 'image' || (p.has_thumb && p.mime.startsWith('image/'))} />
            {msg.text && msg.text !== p.name && <Markdown text={msg.text} />}
          </>
        );
      }
      break;
    default:
      break;
  }
  return msg.text ? <Markdown text={msg.text} /> : null;
}

function FileView({ payload, image }: { payload: FilePayload; image: boolean }) {
  const thumb = useFiles((s) => s.links[fileKey(payload.file_id, 'thumb')]);
  const noLinks = useLaptopOnly('files.url'); // file links are the laptop's: a paired phone shows the name, not the file
  useEffect(() => {
    if (image && payload.has_thumb && !noLinks) void fileLink(payload.file_id, 'thumb');
  }, [image, payload.file_id, payload.has_thumb, noLinks]);
  if (image) {
    const w = payload.width && payload.height ? Math.min(320, payload.width) : 240;
    const h = payload.width && payload.height ? Math.round((w * payload.height) / payload.width) : 180;
    return (
      <button
        type="button"
        className="image-thumb"
        aria-label={`View image ${payload.name}`}
        onClick={() => openImage(payload.file_id, payload.name)}
        {...laptopButton(noLinks)}
      >
        {thumb ? (
          <img src={transport.fileHref(thumb.url)} alt={payload.name} width={w} height={h} />
        ) : (
          <span className="thumb-placeholder" style={{ width: w, height: h }} />
        )}
      </button>
    );
  }
  return (
    <div className="file-card">
      <span className="file-icon" aria-hidden="true">
        <Icon name="file" size={24} />
      </span>
      <span className="file-meta">
        <strong>{payload.name}</strong>
        <span className="muted small">
          {payload.mime} · {bytes(payload.size)}
        </span>
      </span>
      <button
        type="button"
        className="btn"
        aria-label={`Download ${payload.name}`}
        {...laptopButton(noLinks)}
        onClick={async () => {
          const link = await fileLink(payload.file_id, 'original');
          if (!link) return;
          const a = document.createElement('a');
          a.href = transport.fileHref(link.url);
          a.download = payload.name;
          document.body.appendChild(a);
          a.click();
          a.remove();
        }}
      >
        Download
      </button>
    </div>
  );
}

function Reactions({ msg }: { msg: Message }) {
  if (!msg.reactions?.length) return null;
  return (
    <div className="reactions" role="group" aria-label="Reactions">
      {msg.reactions.map((r) => (
        <button
          key={r.key}
          type="button"
          className={`reaction ${r.mine ? 'mine' : ''}`}
          aria-pressed={r.mine}
          aria-label={`${r.key} ${r.count}${r.mine ? ', you reacted' : ''}`}
          title={r.users.join(', ')}
          onClick={() => void react(msg.conv_id, msg.msg_id, r.key, !r.mine)}
        >
          <span>{r.key}</span> <span className="reaction-count">{r.count}</span>
        </button>
      ))}
    </div>
  );
}

function MessageActions(props: { msg: Message; mine: boolean; pinned: boolean; inThread: boolean; onEdit: () => void }) {
  const { msg, mine, pinned } = props;
  const [picker, setPicker] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const pickerRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!picker) return;
    pickerRef.current?.querySelector('button')?.focus();
    const close = (e: MouseEvent) => {
      if (!pickerRef.current?.contains(e.target as Node)) setPicker(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [picker]);
  return (
    <>
      <div className={`msg-actions ${picker ? 'open' : ''}`} role="toolbar" aria-label="Message actions">
        <button type="button" className="act" aria-label="Add reaction" aria-expanded={picker} onClick={() => setPicker(!picker)}>
          <Icon name="smile" />
        </button>
        {!props.inThread && (
          <>
            <button type="button" className="act" aria-label="Reply" title="Reply" onClick={() => setReplyTo(msg.msg_id)}>
              <Icon name="reply" />
            </button>
            <button
              type="button"
              className="act"
              aria-label="Reply in thread"
              title="Reply in thread"
              onClick={() => void openThread(msg.conv_id, msg.thread_id ?? msg.msg_id)}
            >
              <Icon name="thread" />
            </button>
          </>
        )}
        <button
          type="button"
          className="act"
          aria-label={pinned ? 'Unpin' : 'Pin'}
          title={pinned ? 'Unpin' : 'Pin'}
          onClick={() => void pin(msg.conv_id, msg.msg_id, !pinned)}
        >
          <Icon name="pin" />
        </button>
        {mine && msg.kind === 'text' && (
          <button type="button" className="act" aria-label="Edit" title="Edit" onClick={props.onEdit}>
            <Icon name="edit" />
          </button>
        )}
        <button
          type="button"
          className="act"
          aria-label="Hide"
          title="Hide (only from your view; Show brings it back)"
          onClick={() => void hideMessage(msg.msg_id, true)}
        >
          <Icon name="hide" />
        </button>
        {mine && (
          <button
            type="button"
            className="act act-danger"
            aria-label="Recall"
            title="Recall (delete for everyone)"
            onClick={() => setConfirming(true)}
          >
            <Icon name="trash" />
          </button>
        )}
        {picker && (
          <div className="reaction-picker" ref={pickerRef} role="group" aria-label="Pick a reaction">
            {QUICK_REACTIONS.map((k) => (
              <button
                key={k}
                type="button"
                aria-label={`React ${k}`}
                onClick={() => {
                  const have = msg.reactions?.find((r) => r.key === k)?.mine ?? false;
                  void react(msg.conv_id, msg.msg_id, k, !have);
                  setPicker(false);
                }}
              >
                {k}
              </button>
            ))}
          </div>
        )}
      </div>
      {confirming && (
        <ConfirmDialog
          title="Recall this message?"
          confirm="Recall for everyone"
          danger
          onCancel={() => setConfirming(false)}
          onConfirm={() => {
            setConfirming(false);
            void recallMessage(msg.msg_id);
          }}
        >
          <p>Its content is deleted for everyone in the conversation. This cannot be undone.</p>
        </ConfirmDialog>
      )}
    </>
  );
}

function EditBox({ msg, onDone }: { msg: Message; onDone: () => void }) {
  const [text, setText] = useState(msg.text ?? '');
  const save = async () => {
    if (text.trim() && text !== msg.text) await editMessage(msg.msg_id, text);
    onDone();
  };
  return (
    <div className="edit-box">
      <textarea
        aria-label="Edit message"
        value={text}
        autoFocus
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            void save();
          }
          if (e.key === 'Escape') onDone();
        }}
      />
      <div className="row">
        <button type="button" className="btn btn-primary btn-small" onClick={() => void save()}>
          Save
        </button>
        <button type="button" className="btn btn-ghost btn-small" onClick={onDone}>
          Cancel
        </button>
        <span className="muted small">Enter to save · Esc to cancel</span>
      </div>
    </div>
  );
}
