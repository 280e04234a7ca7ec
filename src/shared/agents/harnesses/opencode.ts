// What `perch connect opencode NAME` puts in OpenCode's own config, and `perch disconnect opencode NAME` takes out
// again (pure: text in, text out; the CLI reads and writes the files through config-files.ts, as for the other
// harnesses). The agent's key is never written: both files read PERCH_KEY_<NAME> from OpenCode's environment (the
// plugin, inside a wake run of its own agent — PERCH_AGENT names it — the run's key PERCH_KEY first: a run holds no
// PERCH_KEY_<NAME>, and its hooks are then the run's; another agent's run key is never sent, it would speak for that
// agent: its pause and rules, its ledger).
//   user scope:    ~/.config/opencode/opencode.json mcp.perch-NAME (remote, the key as {env:PERCH_KEY_<NAME>}, which
//                  OpenCode fills in), ~/.config/opencode/plugin/perch.js (the plugin below)
//   project scope: DIR/opencode.json and DIR/.opencode/plugin/perch.js (OpenCode reads both when started in DIR)
// OpenCode has no command or HTTP hooks; it imports every plugin/*.js of its config folders in-process. The plugin
// Perch writes is small and self-contained: no import, nothing spawned, one fetch to the hub's door per hook
// (POST <base>/hook/opencode/<event>?agent=NAME, src/main/mcp/hook-door/opencode.ts; the wire in opencode-wire.ts):
// tool.execute.before waits for the door's answer and throws its block reason (pause, a standing deny rule);
// tool.execute.after, a few session events and each model call's tokens (step-finish parts) report; OpenCode's permission prompt (a permission.asked event) is
// filed as a card, and the owner's decision (or a standing rule's) is the plugin's reply to it through the SDK client
// OpenCode hands its plugins, unless OpenCode's own dialog answered first (then the card is withdrawn). When the hub does not answer (stopped, the key not set, an
// error) the plugin lets OpenCode go on (fail open, as Claude Code's and Codex's hooks do) and says so once on stderr.
import { keyEnvVar } from '../key-env';
import { ConfigFileError, jsonText, objectAt, parseObject, type Json } from '../config-json';
import { AgentConflict, hookBaseUrl, serverName, setPerchServer, type ConnectOptions } from '../harness-config';
import { unsetMcpServer, type UnconfigEdit } from '../harness-unconfig';
import { OPENCODE_STATUS_EVENTS } from './opencode-wire';

/** The first line of the plugin Perch writes: how a later connect or disconnect knows the file is Perch's, and whose. */
export const PLUGIN_MARK = '// Perch plugin for OpenCode, written by `perch connect opencode';
/** How long the plugin waits for the door: tool-before (before every tool call), the reports, a permission prompt (past the door's 540 s wait for the owner). */
export const PLUGIN_BEFORE_MS = 30_000;
export const PLUGIN_REPORT_MS = 5_000;
export const PLUGIN_ASK_MS = 600_000;

/** The files, relative to the home dir (user scope) or the project dir. */
export function openCodeFiles(project: boolean): { config: string; plugin: string } {
  return project
    ? { config: 'opencode.json', plugin: '.opencode/plugin/perch.js' }
    : { config: '.config/opencode/opencode.json', plugin: '.config/opencode/plugin/perch.js' };
}

/** OpenCode's MCP entry for the agent: remote (streamable HTTP), the key by reference. */
export function openCodeMcpEntry(o: ConnectOptions): Json {
  return { type: 'remote', url: o.mcpUrl, headers: { Authorization: `Bearer {env:${keyEnvVar(o.agent)}}` }, enabled: true };
}

/**
 * What a wake run of the agent gives OpenCode (the run's PERCH_OPENCODE_CONFIG, which the OpenCode recipe passes as
 * OPENCODE_CONFIG_CONTENT): its MCP entry mcp.perch-NAME with the run's key by reference ({env:PERCH_KEY}, filled in
 * by OpenCode from the run's environment), so no key is in it. OpenCode 1.18.33 merges OPENCODE_CONFIG_CONTENT after
 * the user's, OPENCODE_CONFIG's and the project's files, so this entry's header wins over the one `perch connect`
 * wrote ({env:PERCH_KEY_<NAME>}, which a run does not hold) and over any project's.
 */
export function openCodeRunConfig(mcpUrl: string, agent: string): string {
  const entry = { type: 'remote', url: mcpUrl, headers: { Authorization: 'Bearer {env:PERCH_KEY}' }, enabled: true };
  return JSON.stringify({ mcp: { [serverName(agent)]: entry } });
}

/** opencode.json with mcp.perch-NAME set, everything else as it was. */
export function setOpenCodeMcp(text: string | undefined, o: ConnectOptions, file = '~/.config/opencode/opencode.json'): string {
  const root = parseObject(text, file);
  const fresh = text === undefined;
  setPerchServer(objectAt(root, 'mcp', file), o, openCodeMcpEntry(o), file);
  return jsonText(fresh ? { $schema: 'https://opencode.ai/config.json', ...root } : root, text);
}

/** The agent a plugin file Perch wrote is for, or undefined when the file is not Perch's. */
export function pluginAgent(text: string): string | undefined {
  if (!text.startsWith(PLUGIN_MARK)) return undefined;
  const m = /^const AGENT = ("(?:[^"\\]|\\.)*");$/m.exec(text);
  if (!m) return undefined;
  try {
    const v: unknown = JSON.parse(m[1]!);
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** The plugin's source for the agent (an ES module OpenCode imports; plain JavaScript, nothing imported). */
export function openCodePlugin(o: ConnectOptions): string {
  const env = keyEnvVar(o.agent);
  const events = JSON.stringify(Object.keys(OPENCODE_STATUS_EVENTS));
  return `${PLUGIN_MARK} ${o.agent}\` (perch disconnect opencode ${o.agent} takes it out).
// One request to the Perch hub's hook door per hook, the agent's key from ${env} in OpenCode's environment
// (never in this file); in a wake run Perch started for this agent (PERCH_AGENT names it), the run's own key,
// PERCH_KEY. The run key of another agent's run is never sent: it would speak for that agent. tool.execute.before waits for the hub's answer: a block (the agent is paused in Perch, or a
// standing rule of the owner denies the command) stops the tool with Perch's reason. OpenCode's permission prompt
// goes to the owner's Perch inbox; the owner's answer is the reply (whichever of it and OpenCode's dialog comes first).
// Each model call's tokens and cost (its step-finish) go to Perch's cost ledger.
// When the hub does not answer, OpenCode goes on without Perch, and this says so once.
const AGENT = ${JSON.stringify(o.agent)};
const DOOR = ${JSON.stringify(`${hookBaseUrl(o.mcpUrl)}/hook/opencode/`)};
const KEY_ENV = ${JSON.stringify(env)};
const key = () => (process.env.PERCH_AGENT === AGENT && process.env.PERCH_KEY) || process.env[KEY_ENV] || "";
const EVENTS = new Set(${events});
const asked = new Map();
const models = new Map();
let told = false;

async function door(event, body, ms, stop) {
  try {
    const res = await fetch(DOOR + event + "?agent=" + encodeURIComponent(AGENT), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer " + key() },
      body: JSON.stringify(body),
      signal: stop ? AbortSignal.any([stop, AbortSignal.timeout(ms)]) : AbortSignal.timeout(ms),
    });
    const text = await res.text();
    if (!res.ok) throw new Error("HTTP " + res.status + ": " + text.slice(0, 300));
    return JSON.parse(text);
  } catch (e) {
    if (!told && !(stop && stop.aborted)) {
      told = true;
      console.error("perch: the Perch hub did not answer " + AGENT + "'s plugin (" + (e && e.message ? e.message : e) + "); OpenCode goes on without Perch (no pause, no standing rules) until it does.");
    }
    return {};
  }
}

async function ask(client, p, directory) {
  const stop = new AbortController();
  asked.set(p.id, stop);
  try {
    const a = await door("permission-asked", { session_id: p.sessionID, id: p.id, permission: p.permission, patterns: p.patterns, metadata: p.metadata, call_id: p.tool && p.tool.callID, cwd: directory }, ${PLUGIN_ASK_MS}, stop.signal);
    if (stop.signal.aborted || !a || (a.reply !== "once" && a.reply !== "reject")) return;
    await client.postSessionIdPermissionsPermissionId({ path: { id: p.sessionID, permissionID: p.id }, body: { response: a.reply } });
  } catch (e) {
    // OpenCode's prompt was answered already: nothing to reply.
  } finally {
    asked.delete(p.id);
  }
}

function head(v) {
  const s = typeof v === "string" ? v : "";
  return s.length > 2000 ? s.slice(0, 2000) : s;
}

export const PerchPlugin = async ({ client, directory }) => ({
  "tool.execute.before": async (input, output) => {
    const a = await door("tool-before", { session_id: input.sessionID, call_id: input.callID, tool: input.tool, args: output.args, cwd: directory }, ${PLUGIN_BEFORE_MS});
    if (a && typeof a.block === "string") throw new Error(a.block);
  },
  "tool.execute.after": async (input, output) => {
    const exit = output && output.metadata && typeof output.metadata.exit === "number" ? output.metadata.exit : undefined;
    await door("tool-after", { session_id: input.sessionID, call_id: input.callID, tool: input.tool, args: input.args, cwd: directory, title: output && typeof output.title === "string" ? output.title : undefined, exit, output_head: head(output && output.output) }, ${PLUGIN_REPORT_MS});
  },
  event: async ({ event }) => {
    const p = (event && event.properties) || {};
    if (event && event.type === "permission.asked" && p.id && p.sessionID) ask(client, p, directory);
    if (event && event.type === "permission.replied" && asked.has(p.requestID)) asked.get(p.requestID).abort();
    if (event && event.type === "message.updated" && p.info && p.info.role === "assistant" && p.info.id) {
      models.set(p.info.id, { model: p.info.modelID, provider: p.info.providerID });
      if (models.size > 200) models.delete(models.keys().next().value);
    }
    const part = p.part;
    if (event && event.type === "message.part.updated" && part && part.type === "step-finish" && part.id) {
      const m = models.get(part.messageID) || {};
      await door("usage", { session_id: part.sessionID || p.sessionID, message_id: part.messageID, step_id: part.id, model: m.model, provider: m.provider, tokens: part.tokens, cost: part.cost }, ${PLUGIN_REPORT_MS});
    }
    if (!event || !EVENTS.has(event.type)) return;
    const message = event.type === "permission.asked" ? "OpenCode asks: " + p.permission + " (" + (p.patterns || []).join(", ") + ")" : undefined;
    await door("event", { type: event.type, session_id: p.sessionID || (p.info && p.info.id), cwd: directory, message }, ${PLUGIN_REPORT_MS});
  },
});
`;
}

/** The plugin file for the agent: written new, or in the place of Perch's own (another agent's only with --replace); a file of anyone else's is refused. */
export function setOpenCodePlugin(text: string | undefined, o: ConnectOptions, file = '~/.config/opencode/plugin/perch.js'): string {
  if (text !== undefined) {
    const who = pluginAgent(text);
    if (who === undefined)
      throw new ConfigFileError(`${file} is not a plugin Perch wrote; move it away (or rename it), then run perch connect again`);
    if (who !== o.agent && !o.replace)
      throw new AgentConflict(
        `${file} connects agent ${who} already, and connecting ${o.agent} there would replace it. Run again with --replace to make it ${o.agent}${o.project ? '' : `, or connect ${o.agent} for one repository only with --project DIR`}`,
      );
  }
  return openCodePlugin(o);
}

/** The files `perch connect opencode` edits. */
export function openCodeConfigEdits(
  o: ConnectOptions,
): { file: string; what: string; apply: (t: string | undefined, file: string) => string }[] {
  const f = openCodeFiles(!!o.project);
  return [
    {
      file: f.config,
      what: `Perch as the MCP server \`${serverName(o.agent)}\` (remote, the key as {env:${keyEnvVar(o.agent)}})`,
      apply: (t, file) => setOpenCodeMcp(t, o, file),
    },
    {
      file: f.plugin,
      what: `Perch's plugin (tool.execute.before/after, session events and each model call's tokens, each one request to ${hookBaseUrl(o.mcpUrl)}/hook/opencode/…?agent=${encodeURIComponent(o.agent)}, the key from ${keyEnvVar(o.agent)})`,
      apply: (t, file) => setOpenCodePlugin(t, o, file),
    },
  ];
}

/** opencode.json without the agent's Perch server (mcp.perch-NAME); a file left with only its $schema goes. */
export function unsetOpenCodeMcp(text: string | undefined, agent: string, file: string): string | undefined {
  if (text === undefined) return undefined;
  const root = parseObject(text, file);
  if (root.mcp === undefined) return text;
  // unsetMcpServer works on mcpServers: the same edit on OpenCode's mcp object.
  const moved = unsetMcpServer(JSON.stringify({ mcpServers: root.mcp }), agent, file);
  const servers = moved === undefined ? undefined : (JSON.parse(moved) as Json).mcpServers;
  if (servers === undefined) delete root.mcp;
  else root.mcp = servers;
  const keys = Object.keys(root).filter((k) => k !== '$schema');
  if (keys.length === 0) return undefined;
  return jsonText(root, text);
}

/** The files `perch disconnect opencode` edits: the agent's server out, and its plugin file (never another agent's or anyone else's). */
export function openCodeUnconfigEdits(agent: string, project: boolean): UnconfigEdit[] {
  const f = openCodeFiles(project);
  return [
    { file: f.config, what: `the MCP server \`${serverName(agent)}\``, apply: (t, file) => unsetOpenCodeMcp(t, agent, file) },
    {
      file: f.plugin,
      what: `${agent}'s Perch plugin`,
      apply: (t) => (t !== undefined && pluginAgent(t) === agent ? undefined : t),
    },
  ];
}
