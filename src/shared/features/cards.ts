// A card's shape: blocks people answer by clicking a button or filling a form. Pure.
import type { UserRef } from '../types';

export const CARD_ID_PATTERN = /^[a-z0-9_-]{1,64}$/;
export const BLOCK_TYPES = ['text', 'buttons', 'form'] as const;
export const BUTTON_STYLES = ['primary', 'danger'] as const;
export const FIELD_TYPES = ['text', 'number', 'select', 'checkbox'] as const;

export type FieldType = (typeof FIELD_TYPES)[number];

export interface ButtonOption {
  id: string;
  label: string;
  style?: (typeof BUTTON_STYLES)[number];
}

export interface FormField {
  id: string;
  label: string;
  type: FieldType;
  required?: boolean;
  options?: string[];
  /** text: the longest answer (characters); number: the highest value. */
  max?: number;
}

export type CardBlock =
  | { type: 'text'; text: string }
  | { type: 'buttons'; id: string; options: ButtonOption[] }
  | { type: 'form'; id: string; submit: string; fields: FormField[] };

export interface Card {
  title?: string;
  blocks: CardBlock[];
  once?: boolean;
}

export interface CardResponse {
  block_id: string;
  value: unknown;
  by: UserRef;
  at: number;
}

export interface CardPayload {
  card: Card;
  /** The latest responses (at most CARD_PAYLOAD_RESPONSES); response_count counts all of them. */
  responses: CardResponse[];
  response_count?: number;
  closed: boolean;
}
