// Loaded history per conversation: rows in seq order, the messages by id, pins, threads, task history.
import { create } from 'zustand';
import type { EventView, EventViewOf, Message } from '../model';
import type { ReadReceipt } from '../../shared/agents/agent-sessions';

export type Row =
  { key: string; seq: number; kind: 'message'; msgId: string } | { key: string; seq: number; kind: 'event'; event: EventView };

export interface ConvTimeline {
  rows: Row[];
  /** Lowest seq loaded (page older with before_seq). */
  firstSeq: number | null;
  /** Highest seq applied; live events at or below it are duplicates. */
  lastSeq: number;
  hasOlder: boolean;
  loadingOlder: boolean;
  status: 'loading' | 'ready' | 'error';
  pins: string[];
  /** Replies per thread root, as far as loaded. */
  threadCounts: Record<string, number>;
  /** task.updated events seen, oldest first. */
  taskHistory: EventViewOf<'task.updated'>[];
  /** Read receipts: how far each member (and named instance) read (conversations.history reads). */
  reads?: ReadReceipt[];
}

export interface ThreadState {
  convId: string;
  replies: string[];
  status: 'loading' | 'ready' | 'error';
}

export interface TimelineState {
  convs: Record<string, ConvTimeline>;
  /**
   * Every loaded message by msg_id. Never changed in place: the sync layer writes a new Map, and a changed
   * message is a new object, so selectors of one message re-render only that message.
   */
  messages: Map<string, Message>;
  threads: Record<string, ThreadState>;
}

export const timelineStore = create<TimelineState>(() => ({ convs: {}, messages: new Map(), threads: {} }));
export const useTimeline = timelineStore;

export const emptyTimeline = (): ConvTimeline => ({
  rows: [],
  firstSeq: null,
  lastSeq: 0,
  hasOlder: false,
  loadingOlder: false,
  status: 'loading',
  pins: [],
  threadCounts: {},
  taskHistory: [],
  reads: [],
});
