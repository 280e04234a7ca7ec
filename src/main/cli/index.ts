// The `perch` command: serve the hub, manage agents, call tools, act as the owner. This file dispatches to one
// module per command family (each a Command, with its help beside it: cli/common.ts) and assembles
// `perch --help` from them. A new family is one module and one entry in COMMANDS.
import { PERCH_VERSION } from '../../shared/version';
import type { Command } from './common';
import { helpText, runCli } from './dispatch';
import { serve } from './serve';
import { agent } from './agents/agents';
import { device } from './owner/device';
import { call, owner } from './owner/call';
import { backup, restore } from './data/backup';
import { exportCmd, importCmd } from './data/export';
import { HOOK_HELP, cmdHook } from './hook/hook';
import { conv } from './owner/conv';
import { retention } from './data/retention';
import { ledger } from './data/ledger';
import { rules } from './owner/rules';
import { wake } from './agents/wake';
import { CHANNEL_HELP, cmdChannel } from './channel/channel';
import { connect } from './agents/connect';
import { disconnect } from './agents/disconnect';

const version: Command = {
  names: ['version'],
  usage: '',
  help: () => `perch version — prints the version (also --version, -v)`,
  run: () => void process.stdout.write(`${PERCH_VERSION}\n`),
};

const help: Command = {
  names: ['help'],
  usage: `  perch help COMMAND [SUBCOMMAND]      (or: perch COMMAND --help)
      Usage of one command.`,
  help: () => `perch help [COMMAND [SUBCOMMAND]] — usage of perch or of one command (also: perch COMMAND --help)`,
  run: (argv) => void process.stdout.write(`${helpText(COMMANDS, argv[0], argv[1])}\n`),
};

/** Every command family, in the order of `perch --help`. */
/** A coding agent's harness runs this at its permission prompts and other hook events (bin/perch.js runs dist/hook.js for it, a bundle of its own). */
const hook: Command = {
  names: ['hook'],
  usage: `  perch hook permission-request [--agent NAME] [--timeout SECS]
      Claude Code's or Codex's PermissionRequest hook: their prompts go to your Approvals inbox (see docs/guide/harnesses.md).
  perch hook pre-tool-use | notification | stop | session-start | session-end [--agent NAME]
      Their other hooks: a paused agent's tool calls are blocked; its session's status shows in Fleet.`,
  help: () => HOOK_HELP,
  run: (argv) => cmdHook(argv),
};

/** Claude Code's MCP server for one agent: tools, pushed events, permission relay (bin/perch.js runs dist/channel.js for it). */
const channel: Command = {
  names: ['channel'],
  usage: `  perch channel [--agent NAME] [--instance NAME]
      A stdio MCP server for Claude Code: the agent's tools, its messages pushed into the session, its prompts relayed (see docs/guide/harnesses.md).`,
  help: () => CHANNEL_HELP,
  run: async (argv) => {
    process.exitCode = await cmdChannel(argv);
  },
};

const COMMANDS: readonly Command[] = [
  serve,
  agent,
  device,
  call,
  owner,
  conv,
  retention,
  ledger,
  rules,
  wake,
  hook,
  channel,
  connect,
  disconnect,
  backup,
  restore,
  exportCmd,
  importCmd,
  help,
  version,
];

export function main(argv: string[]): Promise<void> {
  return runCli(COMMANDS, argv);
}

if (require.main === module) {
  main(process.argv.slice(2)).catch((err) => {
    process.stderr.write(`perch: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  });
}
