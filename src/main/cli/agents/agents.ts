// perch agent …: add, list, show, rotate-key, revoke, config, review, pause/resume, caps, brakes and extra keys,
// written to the database file (works whether or not the hub runs; a running hub sees it at once). Wake actions
// are in cli/agents/wake.ts.
import { parseArgs } from 'node:util';
import type { PerchHub } from '../../hub/services';
import { addAgentKey, listAgentKeys, revokeScopedKey } from '../../hub/identity/agent-keys';
import { findAgent } from '../../hub/identity/identities';
import { addAgent, listAgents, revokeAgent, rotateKey, updateConfig, agentSummary } from '../../hub/control/agents';
import { setReview } from '../../hub/features/review/review';
import { pauseAgent, pauseAll, resumeAgent, resumeAll, setCaps } from '../../hub/control/control';
import { agentBrakes, setAgentBudget } from '../../hub/control/brakes';
import { BRAKES, type AgentBrakes, type BudgetSetting } from '../../../shared/agents/brakes';
import { capCostSource } from '../../../shared/agents/control';
import { connectionSnippets, keyExportLine } from '../../owner/snippets';
import { DATA_DIR_LINE, UsageError, dataDirOf, fail, mcpUrlFor, postJson, print, withHub, type Command } from '../common';
import { readJsonArg } from '../owner/call';
import { setKeyPlaces } from '../../hub/identity/places';
import { PlacesError, normalizePlaces, placesWarning } from '../../../shared/agents/places';
import { placeSnippets } from './away-snippets';
import { WAKE_HELP, cmdAgentWake } from './wake';

const AGENT_SUBCOMMANDS: Record<string, string> = {
  add: `perch agent add NAME [--description TEXT] [--instructions TEXT] [--from PLACES] [--data-dir DIR] [--json]
  Adds an agent and prints its key (shown once) and how to connect a client. --from: where its key may connect
  from, comma-separated: local (this computer, the default), containers (perch serve --containers), tailnet
  (through the HTTPS front, --public-url), IPv4 ranges like 172.18.0.0/16; for containers and tailnet it also
  prints ready snippets (docker run, devcontainer.json, .mcp.json; a remote machine's).`,
  list: `perch agent list [--data-dir DIR] [--json]
  Lists the agents (never their keys).`,
  show: `perch agent show NAME [--data-dir DIR] [--json]
  Shows one agent.`,
  'rotate-key': `perch agent rotate-key NAME [--data-dir DIR] [--json]
  Gives the agent a new key (shown once); the old key stops working at once.`,
  revoke: `perch agent revoke NAME [--data-dir DIR] [--json]
  Revokes the agent; its key stops working at once.`,
  config: `perch agent config NAME ['{json patch}' | @FILE | -] [--data-dir DIR] [--json]
  Changes the agent's config (role, instructions, ...); its config version rises. The patch is one JSON
  object, inline or read from FILE (@FILE) or stdin (-); anything else exits 2 and changes nothing.`,
  review: `perch agent review NAME on|off [--data-dir DIR] [--json]
  Review mode: while on, the agent's send_message, send_card and send_file are held until you send
  (or edit and send) or discard each in the Approvals inbox. Items already held stay held when turned off.`,
  wake: WAKE_HELP,
  pause: `perch agent pause NAME|--all [--reason TEXT] [--data-dir DIR] [--json]
  Pauses one agent (or every agent): its writing tools are refused with \`paused\` until it is resumed
  (reads still work); its waiting get_updates returns agent.paused at once, also while the hub runs.`,
  resume: `perch agent resume NAME|--all [--data-dir DIR] [--json]
  Resumes a paused agent (or every paused agent); it gets agent.resumed and is woken.`,
  caps: `perch agent caps NAME [--cost-usd N] [--messages N] [--tool-calls N] | --off [--data-dir DIR] [--json]
  Sets the agent's daily caps (the owner's local day; a cap given as "off" is lifted, --off lifts all) and
  prints today's usage. Reaching a cap pauses the agent (reason budget). Cost is what the agent reports
  in progress data.usage.cost_usd.`,
  brakes: `perch agent brakes NAME [--budget N|off|default] [--data-dir DIR] [--json]
  Shows the agent's brakes; --budget sets how many messages it may send per conversation per hour
  (1-${BRAKES.budgetMax}, off, or default: ${BRAKES.budgetPerHour}). Works whether or not the hub runs (a running hub is told at once).`,
  key: `perch agent key add AGENT --name NAME [--scopes read,write,files,state,ask] [--expires 30m|12h|7d|SECONDS] [--from PLACES] [--json]
perch agent key list AGENT [--json]
perch agent key revoke KEY_ID [--json]
perch agent key from AGENT PLACES [--key KEY_ID] [--json]
  Extra keys of an agent, each with scopes (default all) and an optional expiry; the key is shown once.
  A call outside a key's scopes is refused with forbidden naming the scope; an expired key gets 401.
  \`key from\` sets where a key may connect from (the agent's own key, or --key one of its extra keys; a wake
  run's key follows the agent's): local, containers, tailnet, IPv4 ranges, comma-separated. A key used
  elsewhere gets 403 naming its places.`,
};

const OPTIONS = `${DATA_DIR_LINE}\n  --json           print JSON`;

export const agent: Command = {
  names: ['agent', 'agents'],
  usage: `  perch agent add NAME [--description T] [--instructions T] [--json]
  perch agent list [--json]
  perch agent show NAME [--json]
  perch agent rotate-key NAME [--json]
  perch agent revoke NAME [--json]
  perch agent config NAME ['{json patch}' | @FILE | -] [--json]
  perch agent review NAME on|off [--json]
  perch agent wake NAME [--cwd DIR] [--timeout SECS] [--env K=V]... -- CMD ARG...   (or --shell 'S', --webhook URL, --off, --show)
  perch agent pause NAME|--all [--reason T]   perch agent resume NAME|--all
  perch agent caps NAME [--cost-usd N] [--messages N] [--tool-calls N] | --off
  perch agent brakes NAME [--budget N|off|default] [--json]
  perch agent key add|list|revoke ...
      Manage agents (works whether or not the hub runs). Keys are shown once.`,
  help: () => `perch agent COMMAND ... — manage agents (works whether or not the hub runs)

${Object.values(AGENT_SUBCOMMANDS).join('\n\n')}

Common options:
${OPTIONS}`,
  subcommands: Object.fromEntries(Object.entries(AGENT_SUBCOMMANDS).map(([sub, text]) => [sub, () => `${text}\n\nOptions:\n${OPTIONS}`])),
  run: cmdAgent,
};

async function cmdAgent(argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  if (sub === 'brakes') return cmdAgentBrakes(rest); // brakes (hub/control/brakes.ts): through the running hub when there is one
  if (sub === 'wake') return cmdAgentWake(rest); // wake runs: its own options, and a command after --
  const { values, positionals } = parseArgs({
    args: rest,
    options: {
      'data-dir': { type: 'string' },
      json: { type: 'boolean' },
      description: { type: 'string' },
      instructions: { type: 'string' },
      // owner control: pause / resume / caps (hub/control/control.ts)
      all: { type: 'boolean' },
      reason: { type: 'string' },
      'cost-usd': { type: 'string' },
      messages: { type: 'string' },
      'tool-calls': { type: 'string' },
      off: { type: 'boolean' },
      name: { type: 'string' },
      scopes: { type: 'string' },
      expires: { type: 'string' }, // perch agent key add
      from: { type: 'string' },
      key: { type: 'string' }, // where a key may connect from (hub/identity/places.ts)
    },
    allowPositionals: true,
    strict: true,
  });
  // Checked before the database is opened: a typo creates nothing.
  if (!sub || !Object.hasOwn(AGENT_SUBCOMMANDS, sub))
    throw new UsageError(`unknown agent command ${JSON.stringify(sub ?? '')}: use ${Object.keys(AGENT_SUBCOMMANDS).join(', ')}`);
  const dataDir = dataDirOf(values);
  const json = !!values.json;
  const name = positionals[0];
  const needName = () => {
    if (!name) throw new UsageError(`perch agent ${sub} needs NAME`);
    return name;
  };
  // review mode (hub/features/review/review.ts): checked before the database is opened
  if (sub === 'review' && (!name || !['on', 'off'].includes(positionals[1] ?? '')))
    throw new UsageError('perch agent review needs NAME and on or off');
  // The config patch (inline, @FILE or -) is read and checked before the database is opened, as with perch call.
  const configPatch = sub === 'config' ? await readJsonArg(positionals[1], 'the config patch') : undefined;
  // Places are checked before the database is opened too (a bad one creates nothing).
  const from = values.from !== undefined ? cliPlaces(values.from, '--from') : undefined;
  if (from && sub !== 'add' && !(sub === 'key' && positionals[0] === 'add'))
    throw new UsageError("--from belongs to perch agent add and perch agent key add (perch agent key from AGENT PLACES changes a key's)");
  withHub(dataDir, (hub) => {
    switch (sub) {
      case 'add': {
        const { agent, key } = addAgent(hub, {
          name: needName(),
          description: values.description,
          instructions: values.instructions,
          from,
        });
        warnPlaces(agent.from ?? []);
        const url = mcpUrlFor(dataDir);
        const away = placeSnippets(dataDir, hub, agent.name, agent.from ?? ['local'], key);
        print(
          json,
          { id: agent.id, name: agent.name, key, mcp_url: url, from: agent.from, ...(away ? { snippets: away.snippets } : {}) },
          () =>
            `Added agent ${agent.name} (${agent.id})${from ? `, may connect from ${agent.from?.join(', ')}` : ''}.\nKey (shown once, keep it secret), as the shell that starts ${agent.name}'s client needs it:\n  ${keyExportLine(agent.name, key)}\n\n` +
            (agent.from?.includes('local') ? connectRecipes(url, agent.name) : '') +
            (away ? `${away.text}` : ''),
        );
        return;
      }
      case 'list': {
        const agents = listAgents(hub);
        print(json, { agents }, () =>
          agents.length
            ? agents
                .map(
                  (a) =>
                    `${a.name.padEnd(24)} ${a.revoked ? 'revoked' : a.key_hint ? `key ${a.key_hint}` : 'no key yet (perch agent rotate-key issues one)'}  config v${a.config_version}  ${a.description}`,
                )
                .join('\n')
            : 'No agents yet. Add one with `perch agent add NAME`.',
        );
        return;
      }
      case 'show': {
        const a = agentSummary(hub, findAgent(hub, needName()));
        print(json, { agent: a }, () => JSON.stringify(a, null, 2));
        return;
      }
      case 'rotate-key': {
        const { agent, key } = rotateKey(hub, needName());
        print(
          json,
          { id: agent.id, name: agent.name, key },
          () =>
            `New key for ${agent.name} (the old one no longer works), for the shell that starts its client:\n  ${keyExportLine(agent.name, key)}`,
        );
        return;
      }
      case 'revoke': {
        const a = revokeAgent(hub, needName());
        print(json, { id: a.id, name: a.name, revoked: a.revoked }, () => `Revoked ${a.name}; its key no longer works.`);
        return;
      }
      case 'key': // scoped keys (hub/identity/agent-keys.ts)
        return cmdAgentKey(hub, dataDir, json, positionals, values);
      case 'config': {
        const a = updateConfig(hub, needName(), configPatch as Parameters<typeof updateConfig>[2]);
        print(json, { agent: a }, () => `Config of ${a.name} is now version ${a.config_version}.`);
        return;
      }
      case 'review': {
        // review mode (hub/features/review/review.ts)
        const { agent: a, changed } = setReview(hub, needName(), positionals[1] === 'on');
        print(
          json,
          { agent: a, changed },
          () =>
            `Review mode for ${a.name} is ${a.review ? 'on: its sends wait for you in the Approvals inbox' : 'off'}${changed ? '' : ' (unchanged)'}.`,
        );
        return;
      }
      // owner control (hub/control/control.ts): written to the database directly; a running hub sees it at once
      case 'pause':
      case 'resume': {
        if (values.all && name) throw new UsageError(`perch agent ${sub} takes NAME or --all, not both`);
        if (!values.all && !name) throw new UsageError(`perch agent ${sub} needs NAME or --all`);
        if (sub === 'resume' && values.reason !== undefined) throw new UsageError('perch agent resume takes no --reason');
        const results = values.all
          ? (sub === 'pause' ? pauseAll(hub, values.reason) : resumeAll(hub)).agents
          : [sub === 'pause' ? pauseAgent(hub, name!, { reason: values.reason }) : resumeAgent(hub, name!)];
        print(json, { agents: results }, () =>
          results.length === 0
            ? `No agent to ${sub}.`
            : results
                .map(
                  (r) =>
                    `${r.agent.name}: ${r.paused ? `paused${r.paused.reason ? ` (${r.paused.reason})` : ''}` : 'running'}${r.changed ? '' : ' (unchanged)'}`,
                )
                .join('\n'),
        );
        return;
      }
      case 'caps': {
        const num = (flag: 'cost-usd' | 'messages' | 'tool-calls'): number | null | undefined => {
          const v = values[flag];
          if (v === undefined) return undefined;
          if (v === 'off' || v === 'none') return null;
          // Plain digits (a decimal point for dollars): Number() would also take 0x10, 1e2, Infinity and ' 5'.
          const plain = flag === 'cost-usd' ? /^(\d+(\.\d*)?|\.\d+)$/ : /^\d+$/;
          const n = Number(v);
          if (!plain.test(v) || !Number.isFinite(n))
            throw new UsageError(
              `--${flag} must be ${flag === 'cost-usd' ? 'a plain amount such as 2.50' : 'a whole number'} (or off), not ${JSON.stringify(v.slice(0, 40))}`,
            );
          return n;
        };
        const patch = { cost_usd: num('cost-usd'), messages: num('messages'), tool_calls: num('tool-calls') };
        const given = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
        if (values.off && Object.keys(given).length) throw new UsageError('perch agent caps takes --off or caps, not both');
        const r = setCaps(hub, needName(), given, values.off === true);
        const cap = (v: number | null, unit = '') => (v == null ? 'no cap' : `${unit}${v}`);
        print(
          json,
          r,
          () =>
            `Daily caps of ${r.agent.name}: cost ${cap(r.caps.cost_usd, '$')}, messages ${cap(r.caps.messages)}, tool calls ${cap(r.caps.tool_calls)}.\n` +
            `Today (${r.today.day}): $${r.cap_cost.usd} ${capCostSource(r.cap_cost)}${r.cap_cost.source === 'measured' ? ` ($${r.today.cost_usd} self-reported in progress)` : ''}, ${r.today.messages} messages, ${r.today.tool_calls} tool calls.${r.paused ? `\nPaused (${r.paused.reason ?? r.paused.by}).` : ''}`,
        );
        return;
      }
      default:
        throw new UsageError(`unknown agent command ${JSON.stringify(sub ?? '')}: use add, list, show, rotate-key, revoke`);
    }
  });
}

/** `perch agent brakes NAME [--budget N|off|default]`: through the running hub's owner API, or the file when no hub runs. */
async function cmdAgentBrakes(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { 'data-dir': { type: 'string' }, json: { type: 'boolean' }, budget: { type: 'string' } },
    allowPositionals: true,
    strict: true,
  });
  const name = positionals[0];
  if (!name) throw new UsageError('perch agent brakes needs NAME');
  let budget: BudgetSetting | undefined;
  if (values.budget !== undefined) {
    const b = values.budget;
    budget = b === 'off' || b === 'default' ? b : /^\d+$/.test(b) ? Number(b) : NaN;
    if (typeof budget === 'number' && !(Number.isInteger(budget) && budget >= 1 && budget <= BRAKES.budgetMax)) {
      throw new UsageError(`--budget ${JSON.stringify(b)}: give a number from 1 to ${BRAKES.budgetMax}, off, or default`);
    }
  }
  const dataDir = dataDirOf(values);
  const json = !!values.json;
  const show = (r: { agent: string; brakes: AgentBrakes }) =>
    print(
      json,
      r,
      () =>
        `${r.agent}: budget ${r.brakes.budget_per_hour === null ? 'off' : `${r.brakes.budget_per_hour} messages per conversation per hour`}${r.brakes.budget_is_default ? ' (default)' : ''}; loop after ${r.brakes.loop.turns} turns in ${r.brakes.loop.within_secs / 3600} h with no person; the same text at most ${r.brakes.duplicate_max} times.`,
    );
  const { liveHubOf } = await import('../../app');
  const live = budget !== undefined ? await liveHubOf(dataDir) : undefined;
  if (live && budget !== undefined) {
    const r = await postJson(
      `${live.base_url}/api/owner/agents.set_brakes`,
      { agent: name, budget },
      { Authorization: `Bearer ${live.owner_token}` },
    );
    if (!r.json?.ok) fail(`${r.json?.error?.message ?? `HTTP ${r.status}`} ${r.json?.error?.next_step ?? ''}`.trim(), 1);
    return show(r.json.value);
  }
  withHub(dataDir, (hub) =>
    show(
      budget !== undefined
        ? setAgentBudget(hub, name, budget)
        : { agent: findAgent(hub, name).name, brakes: agentBrakes(hub, findAgent(hub, name).id) },
    ),
  );
}

/** `perch agent key add|list|revoke`: an agent's extra keys with scopes and an optional expiry. */
function cmdAgentKey(
  hub: PerchHub,
  dataDir: string,
  json: boolean,
  positionals: string[],
  values: { name?: string; scopes?: string; expires?: string; from?: string; key?: string },
): void {
  const [action, target] = positionals;
  if (!target || !['add', 'list', 'revoke', 'from'].includes(action ?? '')) {
    throw new UsageError(
      'use: perch agent key add AGENT --name N [--scopes read,write,...] [--expires 30m|12h|7d] [--from PLACES] | key list AGENT | key revoke KEY_ID | key from AGENT PLACES [--key KEY_ID]',
    );
  }
  if (values.key !== undefined && action !== 'from') throw new UsageError('--key belongs to perch agent key from');
  if (action === 'from') {
    if (!positionals[2] || positionals.length > 3)
      throw new UsageError(
        'use: perch agent key from AGENT PLACES [--key KEY_ID] (PLACES: local, containers, tailnet, IPv4 ranges, comma-separated)',
      );
    const r = setKeyPlaces(hub, { agent: target, key_id: values.key, from: cliPlaces(positionals[2], 'PLACES') });
    warnPlaces(r.from);
    print(
      json,
      r,
      () =>
        `${r.agent}'s ${r.key_id ? `key ${r.key_name} (${r.key_id})` : 'own key'} may now connect from ${r.from.join(', ')}${r.key_id ? '' : " (its wake runs' keys too)"}.`,
    );
    return;
  }
  if (action === 'add') {
    if (!values.name) throw new UsageError('perch agent key add needs --name NAME');
    const scopes = values.scopes
      ?.split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    let expiresAt: number | undefined;
    if (values.expires !== undefined) {
      const m = /^(\d+)([smhd]?)$/.exec(values.expires.trim());
      if (!m) throw new UsageError(`--expires ${JSON.stringify(values.expires)}: use a number of seconds, or 30m, 12h, 7d`);
      expiresAt = hub.now() + Number(m[1]) * ({ '': 1, s: 1, m: 60, h: 3600, d: 86400 } as Record<string, number>)[m[2]!]! * 1000;
    }
    const { key, secret } = addAgentKey(hub, { agent: target, name: values.name, scopes, expires_at: expiresAt, from: values.from });
    warnPlaces(key.from);
    print(
      json,
      { key, secret, mcp_url: mcpUrlFor(dataDir) },
      () =>
        `Added key ${key.name} (${key.id}) for ${key.agent}, scopes ${key.scopes.join(', ')}, from ${key.from.join(', ')}${key.expires_at ? `, expires ${new Date(key.expires_at).toISOString()}` : ''}.\nKey (shown once, keep it secret):\n  ${secret}`,
    );
    return;
  }
  if (action === 'list') {
    const keys = listAgentKeys(hub, target);
    print(json, { keys }, () =>
      keys.length
        ? keys
            .map(
              (k) =>
                `${k.id.padEnd(22)} ${k.name.padEnd(20)} ${k.scopes.join(',').padEnd(26)} ${k.revoked ? 'revoked' : k.expired ? 'expired' : k.expires_at ? `until ${new Date(k.expires_at).toISOString()}` : 'no expiry'}  key ${k.key_hint}`,
            )
            .join('\n')
        : `No extra keys for ${target}. Add one with \`perch agent key add ${target} --name NAME --scopes read\`.`,
    );
    return;
  }
  const k = revokeScopedKey(hub, target);
  print(json, { key: k }, () => `Revoked key ${k.name} (${k.id}) of ${k.agent}; it no longer works.`);
}

/** Places kept but likely a mistake (a range covering every address): one line on stderr, also with --json. */
/** `perch agent add`'s connect recipes: the same as the key dialog's (shared/agents/snippets.ts), the key from the environment. */
function connectRecipes(url: string, name: string): string {
  const s = connectionSnippets(url, name, null);
  const indent = (t: string) =>
    t
      .split('\n')
      .filter((l) => !l.startsWith('export '))
      .map((l) => `  ${l}`)
      .join('\n');
  return (
    `Connect Claude Code (its MCP entry and hooks; --project DIR connects ${name} for one repository only):\n${indent(s.claude_code!)}\n` +
    `Connect Codex:\n${indent(s.codex!)}\nConnect Cursor:\n${indent(s.cursor!)}\nOther clients: perch connect CLIENT ${name} prints their snippet (claude-desktop, vscode, windsurf, gemini, zed).\n`
  );
}

function warnPlaces(from: readonly string[]): void {
  const warning = placesWarning(from);
  if (warning) process.stderr.write(`perch: warning: ${warning}\n`);
}

/** Places given on the command line (comma-separated), checked: a bad one exits 2 and changes nothing. */
function cliPlaces(text: string, what: string): string[] {
  try {
    return normalizePlaces(text);
  } catch (e) {
    if (e instanceof PlacesError) throw new UsageError(`${what}: ${e.message}`);
    throw e;
  }
}
