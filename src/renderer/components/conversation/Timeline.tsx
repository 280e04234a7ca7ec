// The conversation's history, virtualized: older pages load on scroll up, live events append at the bottom.
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useTimeline, type Row, timelineStore } from '../../stores/timeline';
import { useUi } from '../../stores/ui';
import { focusMessage, loadOlder } from '../../sync';
import { VirtualList } from '../VirtualList';
import { MessageItem } from './MessageItem';
import { SystemRow } from './SystemRow';
import { useSession } from '../../stores/session';

type Item = Row | { key: '__start'; kind: 'start'; seq: 0 };

const START: Item = { key: '__start', kind: 'start', seq: 0 };

function estimate(item: Item): number {
  if (item.kind === 'start') return 60;
  if (item.kind === 'event') return 34;
  const m = timelineStore.getState().messages.get(item.msgId);
  if (!m) return 60;
  switch (m.kind) {
    case 'card':
      return 220;
    case 'request':
      return 240;
    case 'image':
      return 280;
    case 'file':
      return 96;
    default:
      return 46 + 21 * Math.ceil(((m.text ?? '').length + 1) / 90);
  }
}

const getKey = (item: Item) => item.key;

export function Timeline({ convId }: { convId: string }) {
  const rows = useTimeline((s) => s.convs[convId]?.rows);
  const status = useTimeline((s) => s.convs[convId]?.status ?? 'loading');
  const hasOlder = useTimeline((s) => s.convs[convId]?.hasOlder ?? false);
  const loadingOlder = useTimeline((s) => s.convs[convId]?.loadingOlder ?? false);
  const focusMsg = useUi((s) => s.focusMsg);
  const [highlight, setHighlight] = useState<string | null>(null);

  const items = useMemo<Item[]>(() => (rows ? [START, ...rows] : []), [rows]);
  const lastMsgId = useMemo(() => {
    for (let i = (rows?.length ?? 0) - 1; i >= 0; i--) {
      const r = rows![i]!;
      if (r.kind === 'message') return r.msgId;
    }
    return null;
  }, [rows]);
  const onNearTop = useCallback(() => void loadOlder(convId), [convId]);

  // Scrolled up while messages arrive: a "new messages" marker counts them and brings the reader down.
  const wrap = useRef<HTMLDivElement>(null);
  const atEnd = useRef(true);
  const [unseen, setUnseen] = useState(0);
  const lastKey = useRef<string | null>(null);
  useEffect(() => {
    const list = rows ?? [];
    const prev = lastKey.current;
    lastKey.current = list.length ? list[list.length - 1]!.key : null;
    if (!prev || atEnd.current || prev === lastKey.current) return;
    let added = 0;
    for (let i = list.length - 1; i >= 0 && list[i]!.key !== prev; i--) if (list[i]!.kind === 'message') added++;
    if (added) setUnseen((n) => n + added);
  }, [rows]);
  const onAtEdgeChange = useCallback((at: boolean) => {
    atEnd.current = at;
    if (at) setUnseen(0);
  }, []);
  const toEnd = () => {
    const el = wrap.current?.querySelector<HTMLElement>('.timeline-list');
    if (el) el.scrollTop = el.scrollHeight;
  };

  // A message to show (from search, pins or the inbox) that is older than what is loaded: page back to it.
  useEffect(() => {
    if (!focusMsg || !rows || status !== 'ready') return;
    if (rows.some((r) => r.kind === 'message' && r.msgId === focusMsg)) return;
    if (hasOlder && !loadingOlder) void loadOlder(convId);
  }, [focusMsg, rows, hasOlder, loadingOlder, status, convId]);

  const render = useCallback(
    (item: Item, index: number) => {
      if (item.kind === 'start') return <TimelineStart convId={convId} />;
      if (item.kind === 'event') return <SystemRow event={item.event} />;
      const prev = items[index - 1];
      const message = (
        <MessageItem
          msgId={item.msgId}
          prevMsgId={prev && prev.kind === 'message' ? prev.msgId : null}
          highlighted={highlight === item.msgId}
        />
      );
      if (item.msgId !== lastMsgId) return message;
      return (
        <>
          {message}
          <ReadReceipts convId={convId} msgId={item.msgId} />
        </>
      );
    },
    [convId, items, highlight, lastMsgId],
  );

  if (status === 'loading' && !rows?.length) {
    return (
      <div className="timeline timeline-loading" role="status">
        Loading messages…
      </div>
    );
  }
  if (status === 'error') {
    return (
      <div className="timeline timeline-loading" role="alert">
        This conversation could not be loaded.
      </div>
    );
  }
  return (
    <div className="timeline" ref={wrap}>
      {unseen > 0 && (
        <button type="button" className="new-messages" onClick={toEnd}>
          {unseen} new message{unseen === 1 ? '' : 's'} ↓
        </button>
      )}
      {loadingOlder && (
        <div className="older-loading" role="status">
          Loading older messages…
        </div>
      )}
      <VirtualList<Item>
        items={items}
        getKey={getKey}
        estimate={estimate}
        render={render}
        stick="bottom"
        onNearTop={hasOlder ? onNearTop : undefined}
        scrollToKey={focusMsg}
        onAtEdgeChange={onAtEdgeChange}
        onScrolledTo={() => {
          setHighlight(focusMsg);
          focusMessage(null);
          setTimeout(() => setHighlight(null), 2500);
        }}
        label="Messages"
        role="log"
        className="timeline-list"
      />
    </div>
  );
}

const TimelineStart = memo(function TimelineStart({ convId }: { convId: string }) {
  const hasOlder = useTimeline((s) => s.convs[convId]?.hasOlder ?? false);
  return (
    <div className="timeline-start muted">{hasOlder ? 'Scroll up for older messages' : 'This is the beginning of the conversation.'}</div>
  );
});

/** "read by kit, rue" under the last message: the members (not its sender, not you) who confirmed it. */
const ReadReceipts = memo(function ReadReceipts({ convId, msgId }: { convId: string; msgId: string }) {
  const reads = useTimeline((s) => s.convs[convId]?.reads);
  const m = useTimeline((s) => s.messages.get(msgId));
  const me = useSession((s) => s.info?.owner.id);
  if (!reads || !m) return null;
  const readers = new Map<string, string[]>();
  for (const r of reads) {
    if (r.seq < m.seq || r.user.id === m.sender.id || r.user.id === me) continue;
    const instances = readers.get(r.user.name) ?? [];
    if (r.instance) instances.push(r.instance);
    readers.set(r.user.name, instances);
  }
  if (readers.size === 0) return null;
  const title = [...readers].map(([name, inst]) => (inst.length ? `${name} (${inst.join(', ')})` : name)).join(', ');
  return (
    <div className="read-receipts muted small" aria-label="Read receipts" title={`Read by ${title}`}>
      read by {[...readers.keys()].join(', ')}
    </div>
  );
});
