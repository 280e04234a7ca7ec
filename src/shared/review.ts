// Review mode (hub/review.ts): a held send as the owner sees it in the Approvals inbox.
import type { UserRef } from './types';

export interface HeldItem {
  held_id: string;
  agent: UserRef;
  conv_id: string;
  conv_title: string;
  kind: 'message' | 'card' | 'file';
  /** The message text, the card's text, or the file's caption. */
  text: string;
  state: 'held' | 'sent' | 'discarded';
  created_at: number;
  to?: string[];
  intent?: string;
  reply_to?: string;
  /** kind card: the card (validated). */
  card?: unknown;
  /** kind file: what the file is (its bytes wait in the hub). */
  file?: { name: string; mime: string; size: number; is_image: boolean };
  msg_id?: string;
  sent_text?: string;
  decided_at?: number;
}

export interface HeldSendResult {
  held_id: string;
  state: 'sent';
  conv_id: string;
  msg_id: string;
  seq: number;
  text: string;
  owner_edited: boolean;
}
