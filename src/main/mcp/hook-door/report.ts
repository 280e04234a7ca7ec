// A harness's status report ({event, harness, session_id, …}: HarnessReport), checked field by field: the body POST
// /hook takes, and what a harness door builds from the harness's own hook input (hook-wire.ts reportOf).
import { HARNESSES, HARNESS_EVENTS, type HarnessEvent, type HarnessName, type HarnessReport } from '../../../shared/agents/harness';

const STRING_FIELDS = ['session_id', 'cwd', 'message', 'notification_type', 'source', 'reason', 'tool_name', 'tool_detail'] as const;

/** The report in the body, or why it is not one. */
export function parseReport(buf: Buffer): HarnessReport | string {
  let v: unknown;
  try {
    v = JSON.parse(buf.toString('utf8'));
  } catch {
    return 'the body is not JSON';
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) return 'the body is not a JSON object';
  return reportOfObject(v as Record<string, unknown>);
}

/** A report from its fields (a parsed body, or what reportOf built from a harness's hook input), or why it is not one. */
export function reportOfObject(o: Record<string, unknown>): HarnessReport | string {
  if (!HARNESS_EVENTS.includes(o.event as HarnessEvent)) return `event must be one of ${HARNESS_EVENTS.join(', ')}`;
  if (!HARNESSES.includes(o.harness as HarnessName)) return `harness must be one of ${HARNESSES.join(', ')}`;
  const r: HarnessReport = { event: o.event as HarnessEvent, harness: o.harness as HarnessName };
  for (const k of STRING_FIELDS) {
    if (o[k] === undefined || o[k] === null) continue;
    if (typeof o[k] !== 'string') return `${k} must be a string`;
    r[k] = o[k] as string;
  }
  return r;
}
