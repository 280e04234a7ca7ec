// Migration 14: imported history: provenance of messages and events from an archive. It has shipped: never edit it; a change is a new migration (index.ts).
import type { Migration } from './migration';

export const migration14: Migration = {
  version: 14,
  name: 'imported history: provenance of messages and events from an archive',
  // perch import (store/export/import.ts) writes the rows of a Perch archive into this hub:
  // - messages.provenance: 'imported' for a message that came from an archive (NULL: written here).
  // - events.imported: 1 for an event that came from an archive. get_updates never delivers such events and
  //   unread counts leave them out, so an import wakes nobody; history, search and the owner's views show them.
  sql: /* sql */ `
ALTER TABLE messages ADD COLUMN provenance TEXT;
ALTER TABLE events ADD COLUMN imported INTEGER;
`,
};
