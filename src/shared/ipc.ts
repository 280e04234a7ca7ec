// IPC channel names between the Electron main process and the app's own window. One definition.
export const IPC = {
  /** invoke(action, input) → OwnerReply */
  call: 'perch:call',
  /** main → renderer: a LiveItem of the hub's live stream */
  event: 'perch:event',
  /** renderer → main: the conversation on screen (no OS notification for it) */
  focus: 'perch:focus',
  /** main → renderer: open this conversation (a notification was clicked) */
  navigate: 'perch:navigate',
} as const;

/** What the preload exposes as window.perch. */
export interface PerchBridge {
  call(action: string, input?: unknown): Promise<import('./owner-api').OwnerReply>;
  onEvent(cb: (item: unknown) => void): () => void;
  setFocus(convId: string | null): void;
  onNavigate(cb: (convId: string) => void): () => void;
}
