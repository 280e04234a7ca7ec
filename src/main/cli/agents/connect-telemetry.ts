// The telemetry part of `perch connect claude-code|codex|copilot|gemini … --write` (shared/agents/telemetry-config.ts): the
// edit of Claude Code's settings file, of Codex's config.toml, of Copilot's headers file and of Gemini's settings.json gets the hub's OTLP receiver with the agent's telemetry-only
// token. A token already in that file that still works is kept (running connect again changes nothing), and so is the
// agent's working token written for its other harness or scope (an agent has one token); otherwise
// --write makes a new one (the earlier stops working), and a run without --write shows where it would go. The file is
// read once, by the plan (config-plan.ts, never through a project's links): the edit chooses the token from that text.
import type { ConfigEdit, ConnectClient, ConnectOptions } from '../../../shared/agents/harness-config';
import { hookBaseUrl } from '../../../shared/agents/harness-config';
import {
  setClaudeTelemetry,
  setCodexTelemetry,
  setCopilotTelemetry,
  setGeminiTelemetry,
  telemetryFile,
  telemetryTokenIn,
} from '../../../shared/agents/telemetry-config';
import { newTelemetryToken, telemetryTokenMatches } from '../../hub/features/ledger/telemetry-tokens';
import type { FeaturesHub } from '../../hub/features/services';
import { agentConnections } from '../../hub/control/connections';
import { readConfig, type ConfigScope } from './config-files';
import { withHub } from '../common';

/** What a run without --write shows in place of a token it would make. */
const TOKEN_TO_MAKE = 'perch_otlp_<made-by---write>';

export interface TelemetryPlan {
  /** The edits, the settings file's with the telemetry added. */
  edits: ConfigEdit[];
  /** Why the user's own telemetry was left as it was, when it was. */
  notes: string[];
  /** The token (to keep out of printed diffs), known once the edits were planned. */
  token: () => string | undefined;
}

/**
 * The agent's working token already written in another of its telemetry files (the other harness at this scope, or
 * where `perch connect --write` recorded it), or undefined. An agent has one token: making a new one for this file
 * would stop the telemetry of every other harness and scope it is connected at.
 */
function tokenWrittenElsewhere(hub: FeaturesHub, agentId: string, scope: ConfigScope): string | undefined {
  const places = [
    ...(['claude-code', 'codex', 'copilot', 'gemini'] as const).map((client) => ({ client, scope })),
    ...agentConnections(hub.db, agentId).map((c) => ({ client: c.client, scope: { base: c.dir, project: c.scope === 'project' } })),
  ];
  for (const p of places) {
    const file = telemetryFile(p.client, p.scope.project);
    if (!file) continue;
    let token: string | undefined;
    try {
      token = telemetryTokenIn(readConfig(p.scope, file));
    } catch {
      continue; // a file that cannot be read (gone, refused) holds no token to keep
    }
    if (token && telemetryTokenMatches(hub, agentId, token)) return token;
  }
  return undefined;
}

/** The edits with the settings file's getting the telemetry: its token chosen from the text the plan read (config-plan.ts). */
export function withTelemetry(
  client: ConnectClient,
  o: ConnectOptions,
  edits: ConfigEdit[],
  where: { scope: ConfigScope; agentId: string; dataDir: string; write: boolean },
): TelemetryPlan {
  const { scope, agentId, dataDir, write } = where;
  const file = telemetryFile(client, !!o.project);
  const notes: string[] = [];
  let token: string | undefined;
  const base = hookBaseUrl(o.mcpUrl);
  const set =
    client === 'claude-code'
      ? setClaudeTelemetry
      : client === 'copilot'
        ? setCopilotTelemetry
        : client === 'gemini'
          ? setGeminiTelemetry
          : setCodexTelemetry;
  return {
    notes,
    token: () => token,
    edits: edits.map((e): ConfigEdit => {
      if (e.file !== file) return e;
      // Whether the file's own telemetry was left whole (then nothing of Perch's telemetry is in it): the summary
      // (`what`, read after apply) says only what was written.
      let left = false;
      return {
        file: e.file,
        get what() {
          return left
            ? e.what
            : `${e.what}, and its OpenTelemetry to ${base}/v1/… with ${o.agent}'s telemetry token (tool calls, tokens and cost for the ledger)`;
        },
        apply: (text, abs) => {
          const edited = e.apply(text, abs);
          // Telemetry of the user's own that stays whole takes no token: none is made (a new one would stop the
          // agent's working token wherever it is sent from), none is written.
          const trial = set(edited, { base, token: TOKEN_TO_MAKE }, abs);
          left = !!trial.note && trial.text === edited;
          if (left) {
            notes.push(trial.note!);
            return trial.text;
          }
          const found = telemetryTokenIn(text);
          token = withHub(dataDir, (hub) => {
            if (found && telemetryTokenMatches(hub, agentId, found)) return found;
            const elsewhere = tokenWrittenElsewhere(hub, agentId, scope);
            if (elsewhere) return elsewhere;
            return write ? newTelemetryToken(hub, agentId).token : TOKEN_TO_MAKE;
          });
          const r = set(edited, { base, token }, abs);
          if (r.note) notes.push(r.note);
          return r.text;
        },
      };
    }),
  };
}
