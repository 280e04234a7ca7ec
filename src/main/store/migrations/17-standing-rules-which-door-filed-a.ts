// Migration 17: standing rules: which door filed a prompt, and who added a rule. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration17: Migration = {
  version: 17,
  name: 'standing rules: which door filed a prompt, and who added a rule',
  // - requests.door: 'hook' or 'channel' when `perch hook permission-request` or `perch channel` filed the request
  //   as a harness's permission prompt through the hook door (mcp/hook-door.ts); NULL for every request_human an
  //   agent made itself. Only a door's prompt can be decided by a standing rule (hub/features/requests/permission-rules.ts).
  // - permission_rules.added_by: 'laptop', or the id of the paired device that added the rule (a device adds deny
  //   rules only); added_by_name: that device's name then. NULL for rules added before this version.
  sql: /* sql */ `
ALTER TABLE requests ADD COLUMN door TEXT;
ALTER TABLE permission_rules ADD COLUMN added_by TEXT;
ALTER TABLE permission_rules ADD COLUMN added_by_name TEXT;
`,
};
