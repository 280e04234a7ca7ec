// perch rules: the standing rules for agents' own permission prompts from a shell — list, add, remove, export and
// import (JSON) — through the same owner actions as the window (rules.list, rules.add, rules.remove, rules.import), so
// the same checks apply: plain-word prefixes, no allow of a wrapper, allow rules on the laptop only.
import { parseArgs } from 'node:util';
import { RULES_EXPORT_VERSION, ruleText, type PermissionRuleView, type RuleExportEntry } from '../../../shared/features/permission-prompts';
import { ruleCoverage } from '../../../shared/shell/rule-examples';
import { ownerBodyLimit } from '../../../shared/api/owner-api';
import { DATA_DIR_LINE, UsageError, dataDirOf, onlyOptions, print, readInput, type Command } from '../common';
import { ownerAction } from './owner-action';

const LIST_HELP = `perch rules [--agent NAME] [--data-dir DIR] [--json]
  Lists the standing rules, the most recently used first: what each covers, how many prompts it decided and when.`;
const ADD_HELP = `perch rules add --agent NAME --tool TOOL (--allow|--deny) [--prefix "npm test"] [--any-options|--exact]
                [--scope agent|folder|every] [--folder DIR] [--lifetime today|always] [--data-dir DIR] [--json]
  Adds a rule for the agent's prompts of TOOL (Bash, Edit, MCP:<tool>@<server>…), or with --prefix only the commands
  that start with those plain words. An allow prefix covers the arguments after it that are not options;
  --any-options widens it to options it does not name (an option can make a program run other code);
  --exact narrows it to the command itself, nothing after it. --scope
  folder (with --folder) covers every agent working in that folder, every every agent. Allow rules only here, on
  the laptop.`;
const REMOVE_HELP = `perch rules remove RULE_ID [--data-dir DIR]
  Removes a rule: the prompts it decided come to you again.`;
const EXPORT_HELP = `perch rules export [--agent NAME] [--data-dir DIR]
  Writes the rules as JSON ({"perch_rules": ${RULES_EXPORT_VERSION}, "rules": [...]}) to stdout (session rules are not exported).`;
const IMPORT_HELP = `perch rules import FILE|- [--data-dir DIR] [--json]
  Adds the rules of an export file (or stdin): each checked as \`perch rules add\` checks it; one bad rule imports
  nothing. Rules already there are kept.`;

export const rules: Command = {
  names: ['rules'],
  usage: `  perch rules [--agent NAME] | add --agent NAME --tool TOOL (--allow|--deny) [--prefix P] ... | remove ID | export | import FILE
      Standing rules for agents' own permission prompts: list, add, remove, export and import them (JSON).`,
  help: () => [LIST_HELP, ADD_HELP, REMOVE_HELP, EXPORT_HELP, IMPORT_HELP, DATA_DIR_LINE].join('\n\n'),
  subcommands: { add: () => ADD_HELP, remove: () => REMOVE_HELP, export: () => EXPORT_HELP, import: () => IMPORT_HELP },
  run: cmdRules,
};

function line(r: PermissionRuleView): string {
  const who = r.scope === 'every' ? 'every agent' : r.scope === 'folder' ? `every agent in ${r.folder}` : r.agent.name;
  const used = r.last_used_at ? `decided ${r.decided_count}, last ${new Date(r.last_used_at).toISOString()}` : 'never used';
  const c = ruleCoverage(r);
  return [
    `${r.rule_id}  ${who}: ${ruleText(r)}${r.lifetime === 'always' ? '' : ` (${r.lifetime})`} — ${used}`,
    `    covers: ${c.covers.join('; ')}`,
    ...(c.not.length ? [`    not: ${c.not.join('; ')}`] : []),
    ...(c.warning ? [`    warning: ${c.warning}`] : []),
  ].join('\n');
}

/** An export file's rules, checked for shape (the hub checks each rule as rules.add does). */
function readExport(text: string, source: string): RuleExportEntry[] {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${source} is not JSON: ${(e as Error).message}`);
  }
  const d = doc as { perch_rules?: unknown; rules?: unknown };
  if (!d || typeof d !== 'object' || d.perch_rules !== RULES_EXPORT_VERSION || !Array.isArray(d.rules)) {
    throw new UsageError(`${source} is not a perch rules export ({"perch_rules": ${RULES_EXPORT_VERSION}, "rules": [...]})`);
  }
  return d.rules as RuleExportEntry[];
}

async function cmdRules(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      json: { type: 'boolean' },
      agent: { type: 'string' },
      tool: { type: 'string' },
      prefix: { type: 'string' },
      allow: { type: 'boolean' },
      deny: { type: 'boolean' },
      'any-options': { type: 'boolean' },
      exact: { type: 'boolean' },
      scope: { type: 'string' },
      folder: { type: 'string' },
      lifetime: { type: 'string' },
    },
    strict: true,
  });
  const dataDir = dataDirOf(values);
  const json = values.json === true;
  const [sub, ...rest] = positionals;
  const takes = (options: string[], words: readonly string[] = rest) => onlyOptions(`perch rules ${sub ?? 'list'}`, values, options, words);
  if (sub === undefined || sub === 'list') {
    takes(['agent']);
    const { rules: list } = await ownerAction(dataDir, 'rules.list', values.agent ? { agent: values.agent } : {});
    return print(json, { rules: list }, () => (list.length ? list.map(line).join('\n') : 'No standing rules.'));
  }
  if (sub === 'add') {
    takes(['agent', 'tool', 'prefix', 'allow', 'deny', 'any-options', 'exact', 'scope', 'folder', 'lifetime']);
    if (!values.agent || !values.tool) throw new UsageError('perch rules add needs --agent NAME and --tool TOOL');
    if (values.allow === values.deny) throw new UsageError('say --allow or --deny (one of them)');
    const scope = values.scope as 'agent' | 'folder' | 'every' | undefined;
    if (scope !== undefined && !['agent', 'folder', 'every'].includes(scope))
      throw new UsageError(`--scope takes agent, folder or every, not ${JSON.stringify(scope)}`);
    const lifetime = values.lifetime as 'today' | 'always' | undefined;
    if (lifetime !== undefined && !['today', 'always'].includes(lifetime))
      throw new UsageError(`--lifetime takes today or always, not ${JSON.stringify(lifetime)}`);
    const r = await ownerAction(dataDir, 'rules.add', {
      agent: values.agent,
      tool: values.tool,
      behavior: values.allow ? 'allow' : 'deny',
      ...(values.prefix !== undefined ? { command_prefix: values.prefix } : {}),
      ...(values['any-options'] ? { any_options: true } : {}),
      ...(values.exact ? { exact: true } : {}),
      ...(scope ? { scope } : {}),
      ...(values.folder !== undefined ? { folder: values.folder } : {}),
      ...(lifetime ? { lifetime } : {}),
    });
    return print(json, r, () => `${r.added ? 'Added' : 'Already there'}: ${line(r.rule)}`);
  }
  if (sub === 'remove') {
    if (rest.length !== 1) throw new UsageError('perch rules remove takes one RULE_ID (see perch rules)');
    takes([], []);
    const r = await ownerAction(dataDir, 'rules.remove', { rule_id: rest[0]! });
    return print(json, r, () => `Removed: ${line(r.rule)}`);
  }
  if (sub === 'export') {
    takes(['agent']);
    const { rules: list } = await ownerAction(dataDir, 'rules.list', values.agent ? { agent: values.agent } : {});
    const out: RuleExportEntry[] = list
      .filter((r) => r.lifetime !== 'session')
      .map((r) => ({
        agent: r.agent.name,
        tool: r.tool,
        command_prefix: r.command_prefix,
        behavior: r.behavior,
        any_options: r.any_options,
        ...(r.exact ? { exact: true } : {}),
        scope: r.scope,
        folder: r.folder,
        lifetime: r.lifetime === 'today' ? 'today' : 'always',
      }));
    process.stdout.write(`${JSON.stringify({ perch_rules: RULES_EXPORT_VERSION, rules: out }, null, 2)}\n`);
    return;
  }
  if (sub === 'import') {
    if (rest.length !== 1) throw new UsageError('perch rules import takes one FILE (or - for stdin)');
    takes([], []);
    const source = rest[0]!;
    // Bounded as the hub's owner door bounds the action's body (a running hub would refuse more).
    const text = await readInput(source, ownerBodyLimit('rules.import'), 'the rules');
    const r = await ownerAction(dataDir, 'rules.import', { rules: readExport(text, source === '-' ? 'stdin' : source) });
    return print(json, r, () => `Imported ${r.added} rule${r.added === 1 ? '' : 's'} (${r.kept} already there).`);
  }
  throw new UsageError(`perch rules has no subcommand ${JSON.stringify(sub)} (list, add, remove, export, import)`);
}
