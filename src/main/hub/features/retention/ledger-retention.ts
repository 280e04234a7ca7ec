// Retention of the flight recorder (ledger_records): the hub's rule's keep_days applies to it (a conversation's own
// rule does not: records are an agent's, not a conversation's). Whole local days before the cutoff day go, so every
// day left is a whole hash chain and `perch ledger verify` still checks all that is kept; a day is removed from its
// newest record back (what is left of it between steps is still a chain from its start). When a pass will remove
// any, it says so first in today's chain (a perch_event `ledger_removed` of the owner: the cutoff day and how many
// records go), so the removal itself is on the record, tamper-evident like the rest. Export first does not carry the ledger.
import type { TalkHub } from '../../talk/services';
import { appendPerchEvent } from '../../core/ledger-chain';
import { countBefore, deleteOldRecords, newestBefore } from '../../../store/tables/ledger/records';
import type { RetentionRuleRow } from '../../../store/tables/talk/retention';
import { ledgerCutoffDay } from './retention-plan';

/** Where a pass is in the ledger: the day before which records go, and the next id to look at (walking back). */
export interface LedgerPass {
  beforeDay: string;
  upto: number;
}

interface PassLike {
  at: number;
  table: { hub: RetentionRuleRow | undefined };
  tally: { ledger_records: number };
  ledger?: LedgerPass | null;
}

/** Up to `limit` records of the pass, in the step's transaction; true when the ledger's part is done. */
export function ledgerStep(hub: TalkHub, pass: PassLike, limit: number): boolean {
  if (pass.ledger === null) return true;
  const keep = pass.table.hub?.keep_days ?? null;
  if (keep === null) {
    pass.ledger = null;
    return true;
  }
  if (pass.ledger === undefined) {
    const beforeDay = ledgerCutoffDay(pass.at, keep);
    const upto = newestBefore(hub.db, beforeDay);
    if (upto === undefined) {
      pass.ledger = null;
      return true;
    }
    pass.ledger = { beforeDay, upto };
    // Said before anything goes, so a pass dropped half way (a rule changed) has said it too.
    appendPerchEvent(hub, hub.ownerId, {
      event: 'ledger_removed',
      reason: `retention: the days before ${beforeDay} (keep_days ${keep})`,
      records: countBefore(hub.db, beforeDay),
    });
  }
  const gone = deleteOldRecords(hub.db, pass.ledger.beforeDay, pass.ledger.upto, limit);
  if (gone) {
    pass.tally.ledger_records += gone.count;
    pass.ledger.upto = gone.lowest - 1;
    if (gone.count === limit) return false;
  }
  pass.ledger = null;
  return true;
}
