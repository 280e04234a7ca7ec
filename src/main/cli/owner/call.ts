// perch call (one MCP tool as an agent) and perch owner (one owner action on the running hub), and their JSON
// argument: inline, @FILE or - (stdin), checked before anything is sent.
import { parseArgs } from 'node:util';
import { OWNER_ACTIONS } from '../../../shared/api/owner-api';
import { LIMITS } from '../../../shared/limits';
import { RUNTIME_FILE } from '../../paths';
import { UsageError, dataDirOf, fail, mcpUrlFor, postJson, readInput, runtimeOf, type Command } from '../common';
import { NAME_PATTERN, closestName } from '../../../shared/agents/agents';
import { keyEnvVar } from '../../../shared/agents/key-env';

export const call: Command = {
  names: ['call'],
  usage: `  perch call TOOL ['{json args}' | @FILE | -] [--agent NAME] [--url URL] [--key-file FILE|-]
      Call one MCP tool (env PERCH_URL; the key from PERCH_KEY_<NAME> with --agent NAME, else PERCH_KEY, or --key-file).
      Prints the result as JSON; exit 1 on a tool error.
      @FILE reads the JSON arguments from FILE, - from stdin (for long ones, such as send_file's data).`,
  help: () => `perch call TOOL ['{json args}' | @FILE | -] [--agent NAME] [--url URL] [--key-file FILE|-] [--data-dir DIR]

Calls one MCP tool as an agent and prints its result as JSON (exit 1 on a tool error).
The arguments are one JSON object: inline, or read from FILE (@FILE) or from stdin (-), for arguments
too long for a command line, e.g. a 1 MB image for send_file:
  jq -n --arg d "$(base64 -w0 photo.jpg)" --arg c "$CONV" '{conv_id:$c, name:"photo.jpg", data:$d}' | perch call send_file -
Input that is not one JSON object (a missing file, invalid JSON) exits 2 and sends nothing.
  --agent NAME  the agent's key is PERCH_KEY_<NAME> (upper case, other characters as _: the line perch agent add printed)
  --url URL     the MCP endpoint (default: PERCH_URL, or the running hub of the data dir)
  --key-file FILE  read the agent's key from FILE's first line (- : from stdin; the arguments then inline or @FILE)
The key is never an argument: a command line is readable by every local user (ps, /proc), so --key KEY is refused.`,
  run: cmdCall,
};

/**
 * Why there is no key, naming the variable perch agent add taught (export PERCH_KEY_<NAME>=…) and the agents whose
 * variable is set here.
 */
const keyEnvName = (agent: string | undefined) => (agent === undefined ? 'PERCH_KEY' : keyEnvVar(agent));

function noKey(agent: string | undefined): string {
  const set = Object.keys(process.env)
    .filter((v) => v.startsWith('PERCH_KEY_') && process.env[v])
    .sort();
  const agentOf = (v: string) => v.slice('PERCH_KEY_'.length).toLowerCase().replace(/_/g, '-');
  if (agent !== undefined) {
    const near = closestName(agent, set.map(agentOf));
    return `no agent key: ${keyEnvName(agent)} is not set${near ? ` (did you mean ${near}? ${keyEnvVar(near)} is set)` : ''}; run export ${keyEnvName(agent)}=perch_… with the key perch agent add printed (perch agent rotate-key ${agent} issues a new one)`;
  }
  return set.length
    ? `no agent key: PERCH_KEY is not set; ${set.join(', ')} ${set.length === 1 ? 'is' : 'are'} set: give --agent ${agentOf(set[0]!)} to use ${set[0]!}`
    : 'no agent key: set PERCH_KEY_<NAME> (the line export PERCH_KEY_<NAME>=perch_… that perch agent add printed) and give --agent NAME, or set PERCH_KEY';
}

export const owner: Command = {
  names: ['owner'],
  usage: `  perch owner ACTION ['{json}' | @FILE | -]
  perch owner login-link
  perch owner --help
      Act as the owner on the running hub (found through ${RUNTIME_FILE} in the data dir).`,
  help: () => ownerHelp(),
  run: cmdOwner,
};

function ownerHelp(): string {
  const lines = Object.entries(OWNER_ACTIONS).map(([name, spec]) => `  ${name.padEnd(28)} ${spec.description}`);
  return `perch owner ACTION ['{json}' | @FILE | -] [--data-dir DIR]\n\nThe input is one JSON object: inline, or read from FILE (@FILE) or from stdin (-).\n\nActions (docs/owner-api.md has their inputs):\n  ${'login-link'.padEnd(28)} A one-time link that opens the UI in a browser.\n${lines.join('\n')}`;
}

/** Why --key is refused: a command line is readable by every local user (ps, /proc/PID/cmdline). */
export const KEY_ON_ARGV_REFUSED =
  '--key puts the key on the command line, where every local user can read it (ps, /proc): use --agent NAME (the key in PERCH_KEY_<NAME>), PERCH_KEY, or --key-file FILE (- for stdin)';

/** The longest key file read (a key is under 100 characters; anything far longer is not one). */
const MAX_KEY_FILE_BYTES = 4096;

/**
 * The key from --key-file: FILE's (or stdin's, for -) first line, trimmed. Empty, over-long, or not one word of
 * printable ASCII (what every Perch key is) is a UsageError that never echoes what it read.
 */
async function readKeyFile(file: string): Promise<string> {
  const text = await readInput(file, MAX_KEY_FILE_BYTES, 'the key');
  const key = (text.split(/\r?\n/, 1)[0] ?? '').trim();
  const where = file === '-' ? '- (stdin)' : file;
  if (!key) throw new UsageError(`--key-file ${where} holds no key (its first line is empty)`);
  if (!KEY_SHAPE.test(key)) throw new UsageError(`--key-file ${where} holds no key: ${NOT_A_KEY}`);
  return key;
}

/** What any Perch key is (perch_ and base64url): one word of printable ASCII; anything else cannot go in a header. */
const KEY_SHAPE = /^[\x21-\x7e]{1,200}$/;
const NOT_A_KEY = 'a key is one word of letters, digits and _ - (perch_…), as perch agent add printed it';

/** The largest JSON argument read from a file or stdin: the largest body any door of the hub takes (send_file, files.send). */
const MAX_JSON_ARG_BYTES = LIMITS.maxFileBodyBytes;

/**
 * A JSON object argument: given inline ('{"a":1}'), as `-` (read from stdin to its end) or as `@FILE` (read from
 * FILE), so an input too long for a command line (a file's base64) can be passed. Anything that is not one JSON
 * object is a UsageError, before anything is sent.
 */
export async function readJsonArg(arg: string | undefined, what: string): Promise<Record<string, unknown>> {
  if (arg === undefined) return {};
  const is = what.endsWith('s') ? 'are' : 'is';
  if (arg === '@') throw new UsageError(`${what} ${is} @ without a file name: give @FILE`);
  const file = arg === '-' ? '-' : arg.startsWith('@') ? arg.slice(1) : undefined;
  const source = file === undefined ? '' : file === '-' ? ' (from stdin)' : ` (from ${file})`;
  const text = file === undefined ? arg : await readInput(file, MAX_JSON_ARG_BYTES, what);
  if (!text.trim()) throw new UsageError(`${what}${source} ${is} empty: give a JSON object such as {}`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${what}${source} ${is} not valid JSON: ${(e as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(
      `${what}${source} must be a JSON object ({...}), not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
    );
  }
  return value as Record<string, unknown>;
}

async function cmdCall(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: {
      agent: { type: 'string' },
      url: { type: 'string' },
      key: { type: 'string' },
      'key-file': { type: 'string' },
      'data-dir': { type: 'string' },
    },
    allowPositionals: true,
    strict: true,
  });
  // Refused before anything else: the key is already in this process's argv, so say how to keep it out next time.
  if (values.key !== undefined) throw new UsageError(KEY_ON_ARGV_REFUSED);
  const [tool, argsText] = positionals;
  if (!tool) throw new UsageError('perch call needs TOOL, e.g. perch call whoami');
  // The name picks the variable PERCH_KEY_<NAME> (either case, as the shell line has it): an agent's name, or refused.
  if (values.agent !== undefined && !NAME_PATTERN.test(values.agent.toLowerCase()))
    throw new UsageError(`--agent takes an agent's name (a–z, 0–9, - and _, up to 40), not ${JSON.stringify(values.agent.slice(0, 60))}`);
  const keyFile = values['key-file'];
  if (keyFile === '-' && argsText === '-')
    throw new UsageError('--key-file - and the arguments - both read stdin: give the arguments inline or as @FILE');
  const fileKey = keyFile !== undefined ? await readKeyFile(keyFile) : undefined;
  const args = await readJsonArg(argsText, 'the arguments');
  const url = values.url ?? process.env.PERCH_URL ?? mcpUrlFor(dataDirOf(values));
  const key = fileKey ?? process.env[keyEnvName(values.agent)];
  if (!key) throw new UsageError(noKey(values.agent));
  if (!KEY_SHAPE.test(key)) throw new UsageError(`${keyEnvName(values.agent)} holds no key: ${NOT_A_KEY}`);
  let r;
  try {
    r = await postJson(
      url,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } },
      { Authorization: `Bearer ${key}`, 'MCP-Protocol-Version': '2025-11-25' },
    );
  } catch (e) {
    fail(`cannot reach ${url}: ${(e as Error).message}. Is \`perch serve\` running?`);
  }
  if (r.json?.error) fail(`${r.status} ${r.json.error.message}`, 2);
  if (!r.json?.result) fail(`${r.status} unexpected answer: ${r.text.slice(0, 500)}`, 2);
  const result = r.json.result;
  process.stdout.write(`${JSON.stringify(result.structuredContent ?? result, null, 2)}\n`);
  if (result.isError) process.exit(1);
}

async function cmdOwner(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
    strict: true,
  });
  const [action, inputText] = positionals;
  if (values.help || !action) {
    process.stdout.write(`${ownerHelp()}\n`);
    return;
  }
  const dataDir = dataDirOf(values);
  const rt = runtimeOf(dataDir);
  const input = await readJsonArg(inputText, 'the input');
  const url = action === 'login-link' ? `${rt.base_url}/api/owner/login-link` : `${rt.base_url}/api/owner/${action}`;
  let r;
  try {
    r = await postJson(url, input, { Authorization: `Bearer ${rt.owner_token}` });
  } catch (e) {
    fail(`cannot reach the hub at ${rt.base_url}: ${(e as Error).message}. Is \`perch serve\` still running?`);
  }
  if (!r.json) fail(`${r.status} unexpected answer: ${r.text.slice(0, 300)}`);
  if (!r.json.ok) {
    process.stdout.write(`${JSON.stringify(r.json, null, 2)}\n`);
    process.exit(1);
  }
  process.stdout.write(`${JSON.stringify(r.json.value, null, 2)}\n`);
}
