// The telemetry part of `perch connect claude-code|codex … --write` (shared/agents/telemetry-config.ts): the edit of
// Claude Code's settings file and of Codex's config.toml gets the hub's OTLP receiver with the agent's telemetry-only
// token. A token already in that file that still works is kept (running connect again changes nothing); otherwise
// --write makes a new one (the earlier stops working), and a run without --write shows where it would go.
import type { ConfigEdit, ConnectClient, ConnectOptions } from '../../../shared/agents/harness-config';
import { hookBaseUrl } from '../../../shared/agents/harness-config';
import { setClaudeTelemetry, setCodexTelemetry, telemetryTokenIn } from '../../../shared/agents/telemetry-config';
import { newTelemetryToken, telemetryTokenMatches } from '../../hub/features/ledger/telemetry-tokens';
import { readConfig, type ConfigScope } from './config-files';
import { withHub } from '../common';

/** What a run without --write shows in place of a token it would make. */
const TOKEN_TO_MAKE = 'perch_otlp_<made-by---write>';

export interface TelemetryPlan {
  /** The edits, the settings file's with the telemetry added. */
  edits: ConfigEdit[];
  /** Why the user's own telemetry was left as it was, when it was. */
  notes: string[];
  /** The token (to keep out of printed diffs). */
  token: string | undefined;
}

/** The file (relative to the scope) that gets the telemetry settings, or undefined for a client without them. */
function telemetryFile(client: ConnectClient, o: ConnectOptions): string | undefined {
  if (client === 'claude-code') return o.project ? '.claude/settings.local.json' : '.claude/settings.json';
  if (client === 'codex') return '.codex/config.toml';
  return undefined;
}

export function withTelemetry(
  client: ConnectClient,
  o: ConnectOptions,
  edits: ConfigEdit[],
  scope: ConfigScope,
  dataDir: string,
  write: boolean,
): TelemetryPlan {
  const file = telemetryFile(client, o);
  const notes: string[] = [];
  if (!file) return { edits, notes, token: undefined };
  const found = telemetryTokenIn(readConfig(scope, file));
  const token = withHub(dataDir, (hub) => {
    if (found && telemetryTokenMatches(hub, o.agent, found)) return found;
    return write ? newTelemetryToken(hub, o.agent).token : TOKEN_TO_MAKE;
  });
  const t = { base: hookBaseUrl(o.mcpUrl), token };
  const set = client === 'claude-code' ? setClaudeTelemetry : setCodexTelemetry;
  return {
    notes,
    token,
    edits: edits.map((e) =>
      e.file !== file
        ? e
        : {
            ...e,
            what: `${e.what}, and its OpenTelemetry to ${t.base}/v1/… with ${o.agent}'s telemetry token (tool calls, tokens and cost for the ledger)`,
            apply: (text, abs) => {
              const r = set(e.apply(text, abs), t, abs);
              if (r.note) notes.push(r.note);
              return r.text;
            },
          },
    ),
  };
}
