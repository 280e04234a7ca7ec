// Migration 18: what a wake run cost the machine. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration18: Migration = {
  version: 18,
  name: 'what a wake run cost the machine',
  // A wake run's process tree is sampled while it lives (launcher/resources.ts): its peak resident memory (bytes) and the
  // CPU seconds it used are kept with the run. NULL: never sampled (a webhook, a platform without sampling).
  sql: /* sql */ `
ALTER TABLE wake_runs ADD COLUMN peak_rss_bytes INTEGER;
ALTER TABLE wake_runs ADD COLUMN cpu_secs REAL;
`,
};
