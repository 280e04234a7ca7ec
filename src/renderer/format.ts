// Small formatting helpers for times, sizes and names.
export function timeOf(ms: number): string {
  return new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
}

export function dateTimeOf(ms: number): string {
  return new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

export function ago(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 45) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  return `${Math.round(h / 24)} d ago`;
}

/** "in 4m 10s", "in 2h 5m", "expired". */
export function countdown(until: number, now: number): string {
  const s = Math.floor((until - now) / 1000);
  if (s <= 0) return 'expired';
  if (s < 60) return `${s}s left`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s left`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${m % 60}m left`;
  return `${Math.floor(h / 24)}d ${h % 24}h left`;
}

/**
 * Money as money, the one formatter of amounts in the UI: "$0.59" (never "$0.5900000000000001"), "$1,204.50";
 * amounts under a cent keep up to four decimals ("$0.004") so a small spend does not read as nothing.
 */
export function money(usd: number): string {
  if (!Number.isFinite(usd)) return '$—';
  const abs = Math.abs(usd);
  const max = abs > 0 && abs < 0.01 ? 4 : 2;
  return `${usd < 0 ? '-' : ''}$${abs.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: max })}`;
}

/** Dollar amounts inside a text from the hub ("cost_usd: $0.5900000000000001 of $0.5 today") written with money(). */
export function moneyIn(text: string): string {
  return text.replace(/\$(\d+(?:\.\d+)?(?:e-?\d+)?)/g, (_, n: string) => money(Number(n)));
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function initials(name: string): string {
  const parts = name.split(/[\s_-]+/).filter(Boolean);
  return ((parts[0]?.[0] ?? '?') + (parts[1]?.[0] ?? '')).toUpperCase();
}

/** A stable hue per name, for avatars. */
export function hueOf(name: string): number {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) % 360;
  return h;
}

export const TASK_STATE_LABEL: Record<string, string> = {
  submitted: 'Submitted',
  working: 'Working',
  input_required: 'Input required',
  completed: 'Completed',
  failed: 'Failed',
  canceled: 'Canceled',
};
