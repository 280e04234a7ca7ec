// A thread beside the conversation: its root, its replies (live), and a composer that replies in it.
import { useShallow } from 'zustand/react/shallow';
import { useTimeline } from '../../stores/timeline';
import { MessageItem } from './MessageItem';
import { Composer } from './Composer';
import { Icon } from '../Icon';
import { closeThread } from '../../sync';

export function ThreadPanel({ convId, rootId }: { convId: string; rootId: string }) {
  const replies = useTimeline(useShallow((s) => s.threads[rootId]?.replies ?? []));
  const status = useTimeline((s) => s.threads[rootId]?.status ?? 'loading');
  return (
    <aside className="side-panel thread-panel" aria-label="Thread">
      <div className="side-head">
        <h2>Thread</h2>
        <button type="button" className="btn btn-ghost btn-icon" aria-label="Close thread" onClick={() => closeThread()}>
          <Icon name="close" />
        </button>
      </div>
      <div className="thread-body">
        <MessageItem msgId={rootId} prevMsgId={null} inThread />
        <div className="thread-divider muted small">
          {status === 'loading' ? 'Loading replies…' : `${replies.length} ${replies.length === 1 ? 'reply' : 'replies'}`}
        </div>
        {replies.map((id, i) => (
          <MessageItem key={id} msgId={id} prevMsgId={i > 0 ? replies[i - 1]! : null} inThread />
        ))}
      </div>
      <Composer convId={convId} threadId={rootId} />
    </aside>
  );
}
