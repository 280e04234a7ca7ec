// perch conv archive ID / unarchive ID / list: the owner puts finished conversations away (hub/talk/archive.ts).
import { parseArgs } from 'node:util';
import type { ConversationView } from '../../../shared/types';
import { UsageError, dataDirOf, print, type Command } from '../common';
import { ownerAction } from './owner-action';

const ARCHIVE_HELP = `perch conv archive ID [--data-dir DIR] [--json]
  Archives a finished conversation: it leaves the sidebar (the app lists it under Archived) and the agents'
  list_conversations, and agents can no longer write in it (they get the error archived; reading still works).
  You can still read and search it; writing in it yourself, or perch conv unarchive ID, brings it back.`;
const UNARCHIVE_HELP = `perch conv unarchive ID [--data-dir DIR] [--json]
  Brings an archived conversation back: agents list it and may write in it again.`;
const LIST_HELP = `perch conv list [--archived] [--data-dir DIR] [--json]
  The conversations (id, kind, title); --archived: only the archived ones.`;

export const conv: Command = {
  names: ['conv', 'conversation', 'conversations'],
  usage: `  perch conv archive ID | unarchive ID | list [--archived]
      Archive a finished conversation (read-only for agents, out of their lists), bring it back, list them.`,
  help: () => [ARCHIVE_HELP, UNARCHIVE_HELP, LIST_HELP].join('\n\n'),
  subcommands: { archive: () => ARCHIVE_HELP, unarchive: () => UNARCHIVE_HELP, list: () => LIST_HELP },
  run: cmdConv,
};

async function cmdConv(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: { 'data-dir': { type: 'string' }, json: { type: 'boolean' }, archived: { type: 'boolean' } },
    allowPositionals: true,
    strict: true,
  });
  const [sub, id, ...extra] = positionals;
  const dataDir = dataDirOf(values);
  const json = !!values.json;
  if (sub === 'archive' || sub === 'unarchive') {
    if (!id || extra.length) throw new UsageError(`perch conv ${sub} takes one conversation id (perch conv list shows them)`);
    if (values.archived) throw new UsageError('--archived goes with perch conv list');
    const r = await ownerAction(dataDir, sub === 'archive' ? 'conversations.archive' : 'conversations.unarchive', { conv_id: id });
    const title = r.conversation.title || r.conv_id;
    print(json, r, () =>
      sub === 'archive'
        ? `${r.changed ? 'Archived' : 'Already archived:'} ${title} (${r.conv_id}). Agents can read it but not write in it.`
        : `${r.changed ? 'Unarchived' : 'Not archived:'} ${title} (${r.conv_id}).`,
    );
    return;
  }
  if (sub === 'list') {
    if (id) throw new UsageError('perch conv list takes no id');
    const { conversations } = await ownerAction(dataDir, 'conversations.list', {});
    const shown = conversations.filter((c) => c.kind !== 'inbox' && (!values.archived || c.archived));
    print(json, { conversations: shown }, () =>
      shown.length ? shown.map(line).join('\n') : values.archived ? 'No archived conversations.' : 'No conversations.',
    );
    return;
  }
  throw new UsageError(
    sub === undefined
      ? 'perch conv needs archive ID, unarchive ID or list'
      : `unknown conv command ${JSON.stringify(sub)}: use archive, unarchive or list`,
  );
}

function line(c: ConversationView): string {
  return `${c.conv_id}  ${c.kind.padEnd(6)}  ${c.title}${c.archived ? `  (archived ${new Date(c.archived.at).toISOString().slice(0, 10)}${c.archived.by === 'retention' ? ', idle' : ''})` : ''}`;
}
