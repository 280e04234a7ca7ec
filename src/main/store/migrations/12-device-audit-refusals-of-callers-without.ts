// Migration 12: device audit: refusals of callers without a device credential are tallied (count), apart from device entries. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration12: Migration = {
  version: 12,
  name: 'device audit: refusals of callers without a device credential are tallied (count), apart from device entries',
  // A refusal with no device behind it (junk pairing claims, malformed button tokens …) adds to one row per
  // window and (action, outcome) with a count, instead of a row each; those rows and the devices' own entries are
  // pruned separately, so junk never pushes a device's entries out. Earlier such rows become tallies of 1.
  sql: /* sql */ `
ALTER TABLE device_audit ADD COLUMN count INTEGER;
UPDATE device_audit SET count = 1 WHERE device_id IS NULL AND outcome LIKE 'refused:%';
CREATE INDEX device_audit_tallies ON device_audit (action, outcome, at) WHERE count IS NOT NULL;
CREATE INDEX device_audit_entries ON device_audit (id) WHERE count IS NULL;
`,
};
