// Numbered, append-only migrations, one file each (NN-name.ts), listed here in order. The database's version is kept in
// PRAGMA user_version. Never edit a migration that has shipped: add a new file with the next number and list it at the end.
// Each has its upgrade test, test/migrations/NN-name.test.ts (test/support/migration-test.ts; test/checks/migration-tests.test.ts).
import type { Migration } from './migration';
import { migration01 } from './01-initial-schema';
import { migration02 } from './02-search-without-reading-whole-histories';
import { migration03 } from './03-review-mode-held-items';
import { migration04 } from './04-wake-runs';
import { migration05 } from './05-owner-control-pause-and-daily-caps';
import { migration06 } from './06-brakes-conversations-paused-by-the-loop';
import { migration07 } from './07-sessions-of-one-agent-scoped-keys';
import { migration08 } from './08-phone-approvals-paired-devices-pairings-device';
import { migration09 } from './09-review-mode-every-write-others-read';
import { migration10 } from './10-messages-the-owner-hid';
import { migration11 } from './11-scoped-keys-read-from-their-own';
import { migration12 } from './12-device-audit-refusals-of-callers-without';
import { migration13 } from './13-standing-rules-for-agents-own-permission';
import { migration14 } from './14-imported-history-provenance-of-messages-and';
import { migration15 } from './15-where-each-key-may-connect-from';
import { migration16 } from './16-archived-conversations-retention-rules-and-search';
import { migration17 } from './17-standing-rules-which-door-filed-a';
import { migration18 } from './18-what-a-wake-run-cost-the';
import { migration19 } from './19-where-each-agent-is-connected';
import { migration20 } from './20-flight-recorder-and-cost-ledger';
import { migration21 } from './21-standing-rules-read-by-a-shell';
import { migration22 } from './22-the-ledger-at-size';

export type { Migration } from './migration';

export const MIGRATIONS: readonly Migration[] = [
  migration01,
  migration02,
  migration03,
  migration04,
  migration05,
  migration06,
  migration07,
  migration08,
  migration09,
  migration10,
  migration11,
  migration12,
  migration13,
  migration14,
  migration15,
  migration16,
  migration17,
  migration18,
  migration19,
  migration20,
  migration21,
  migration22,
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** Checks the registry itself: versions start at 1 and rise by one. */
export function checkMigrationOrder(list: readonly Migration[] = MIGRATIONS): void {
  list.forEach((m, i) => {
    if (m.version !== i + 1) {
      throw new Error(`migration ${m.name} has version ${m.version}, expected ${i + 1}`);
    }
  });
}
