// An approval card's link to its tool call's outcome: once the owner (or a rule, or nobody) has answered a harness's
// permission prompt, the call runs in the harness and its own telemetry says how it ended. The card asks the ledger
// for the call it was the prompt of (ledger.calls request_id) and links to it in the Ledger ("ran 2.3 s, exit 0",
// "failed: …"), asking again now and then until the outcome is known (a harness sends its telemetry in batches).
import { useEffect, useState } from 'react';
import type { RequestItem } from '../../model';
import type { ToolCallView } from '../../../shared/ledger/views';
import { api } from '../../transport';
import { hrefOf } from '../../sync';
import { outcomeText } from './LedgerPage';

/** How often, and how many times, the card asks again while the outcome is not known. */
const ASK_EVERY_MS = 3000;
const ASK_AT_MOST = 100;
/** Perch records its decision as it answers the hook: a card whose call is not found by then has none to show. */
const FIND_AT_MOST = 3;

export function CallOutcome(props: { r: RequestItem }) {
  const { r } = props;
  const [call, setCall] = useState<ToolCallView | null>(null);
  useEffect(() => {
    let asked = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const ask = () => {
      asked++;
      api('ledger.calls', { request_id: r.request_id, limit: 1 }).then(
        ({ calls }) => {
          if (stopped) return;
          const c = calls[0] ?? null;
          setCall(c);
          if (!c?.outcome && asked < (c ? ASK_AT_MOST : FIND_AT_MOST)) timer = setTimeout(ask, ASK_EVERY_MS);
        },
        () => undefined, // a phone that may not read the ledger: no link
      );
    };
    ask();
    return () => {
      stopped = true;
      if (timer) clearTimeout(timer);
    };
  }, [r.request_id]);
  if (!call) return null;
  return (
    <p className="request-call-outcome">
      The call:{' '}
      <a href={hrefOf({ name: 'ledger', call: call.call_id })} aria-label={`The call's outcome: ${outcomeText(call)}`}>
        {outcomeText(call)}
      </a>
    </p>
  );
}
