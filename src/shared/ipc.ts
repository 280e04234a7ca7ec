// IPC channel names between the Electron main process and the app's own window. One definition.
export const IPC = {
  /** invoke(action, input) → OwnerReply */
  call: 'perch:call',
  /** main → renderer: a LiveItem of the hub's live stream */
  event: 'perch:event',
  /** renderer → main: the conversation on screen (no OS notification for it) */
  focus: 'perch:focus',
  /** main → renderer: open this (a NavigateTarget: a notification was clicked) */
  navigate: 'perch:navigate',
} as const;

/** What a clicked notification opens in the window: a conversation, a request's card, or the Approvals inbox. */
export type NavigateTarget = { to: 'conversation'; conv_id: string } | { to: 'request'; request_id: string } | { to: 'approvals' };

/** The target when v is one (what came over IPC is checked, not trusted). */
export function navigateTarget(v: unknown): NavigateTarget | undefined {
  if (!v || typeof v !== 'object') return undefined;
  const t = v as Record<string, unknown>;
  if (t.to === 'conversation' && typeof t.conv_id === 'string') return { to: 'conversation', conv_id: t.conv_id };
  if (t.to === 'request' && typeof t.request_id === 'string') return { to: 'request', request_id: t.request_id };
  if (t.to === 'approvals') return { to: 'approvals' };
  return undefined;
}

/** What the preload exposes as window.perch. */
export interface PerchBridge {
  call(action: string, input?: unknown): Promise<import('./api/owner-api').OwnerReply>;
  onEvent(cb: (item: unknown) => void): () => void;
  setFocus(convId: string | null): void;
  onNavigate(cb: (target: NavigateTarget) => void): () => void;
}
