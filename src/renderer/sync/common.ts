// What every part of the sync layer shares: error text, notices, and running an owner action for a click.
import { OwnerError } from '../transport';
import { uiStore, type Toast } from '../stores/ui';

export function errorText(err: unknown): string {
  if (err instanceof OwnerError) return err.nextStep ? `${err.message} ${err.nextStep}` : err.message;
  return err instanceof Error ? err.message : String(err);
}

let toastId = 0;
/** A notice at the bottom of the window, gone after a few seconds. */
export function toast(text: string, kind: Toast['kind'] = 'info'): void {
  const id = ++toastId;
  uiStore.setState((s) => ({ toasts: [...s.toasts.slice(-3), { id, kind, text }] }));
  setTimeout(() => uiStore.setState((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) })), kind === 'error' ? 8000 : 4000);
}

/** Runs an owner action for a click: a refusal becomes a visible notice, never an unhandled rejection. */
export async function attempt<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof OwnerError && err.code === 'unauthorized') return undefined;
    toast(`${what}: ${errorText(err)}`, 'error');
    return undefined;
  }
}
