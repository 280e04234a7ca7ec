// What agents are doing: the live progress feed and per-minute activity for sparklines.
import { create } from 'zustand';
import type { ProgressView } from '../model';

export interface AgentActivity {
  /** Progress reports per minute (minute = floor(ms / 60000)). */
  byMinute: Record<number, number>;
  errorsByMinute: Record<number, number>;
  last: ProgressView | null;
}

export interface ProgressState {
  /** Newest first, capped. */
  items: ProgressView[];
  activity: Record<string, AgentActivity>;
  loaded: boolean;
}

export const PROGRESS_KEEP = 3000;

export const progressStore = create<ProgressState>(() => ({ items: [], activity: {}, loaded: false }));
export const useProgress = progressStore;
