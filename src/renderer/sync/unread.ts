// Unread counts in the conversation list: others' messages counted from the live stream, and marking read.
import { api } from '../transport';
import type { ConversationView, EventView } from '../model';
import { conversationsStore } from '../stores/conversations';
import { timelineStore } from '../stores/timeline';

/** Seqs of others' messages counted as unread from the live stream, per conversation (until read). */
const liveUnread = new Map<string, number[]>();

/** Counts a live message of someone else in a conversation the owner is not looking at. */
export function countLiveUnread(convId: string, seq: number): void {
  liveUnread.set(convId, [...(liveUnread.get(convId) ?? []), seq]);
}

/** Puts a live event in the list row: last seq and time, and one more unread when it `counts`. */
export function touchConversation(ev: EventView, counts: boolean): void {
  conversationsStore.setState((s) => {
    const c = s.byId[ev.conv_id];
    if (!c) return s;
    // An event at or below the list's last_seq is already in its counts.
    const fresh = counts && ev.seq > c.last_seq;
    return {
      byId: {
        ...s.byId,
        [ev.conv_id]: {
          ...c,
          last_seq: Math.max(c.last_seq, ev.seq),
          last_event_at: Math.max(c.last_event_at, ev.at),
          unread: c.unread + (fresh ? 1 : 0),
        },
      },
    };
  });
}

/** A conversation as the hub counted it, plus the messages that came live after its snapshot. */
export function conversationReread(conversation: ConversationView, open: boolean): void {
  const convId = conversation.conv_id;
  const later = (liveUnread.get(convId) ?? []).filter((seq) => seq > conversation.last_seq);
  liveUnread.set(convId, later);
  conversationsStore.setState((s) => {
    const known = s.byId[convId];
    const merged = {
      ...conversation,
      last_seq: Math.max(conversation.last_seq, known?.last_seq ?? 0),
      last_event_at: Math.max(conversation.last_event_at, known?.last_event_at ?? 0),
    };
    return { byId: { ...s.byId, [convId]: { ...merged, unread: open ? 0 : conversation.unread + later.length } } };
  });
}

const readTimers = new Map<string, ReturnType<typeof setTimeout>>();
const readSeqs = new Map<string, number>();
/** Clears a conversation's unread count now and tells the hub shortly after (once per burst). */
export function markReadSoon(convId: string): void {
  liveUnread.delete(convId);
  conversationsStore.setState((s) => {
    const c = s.byId[convId];
    return c && c.unread ? { byId: { ...s.byId, [convId]: { ...c, unread: 0 } } } : s;
  });
  if (readTimers.has(convId)) return;
  readTimers.set(
    convId,
    setTimeout(() => {
      readTimers.delete(convId);
      const seq = Math.max(timelineStore.getState().convs[convId]?.lastSeq ?? 0, conversationsStore.getState().byId[convId]?.last_seq ?? 0);
      if (!seq || (readSeqs.get(convId) ?? 0) >= seq) return;
      readSeqs.set(convId, seq);
      void api('conversations.mark_read', { conv_id: convId, seq }).catch(() => {});
    }, 300),
  );
}
