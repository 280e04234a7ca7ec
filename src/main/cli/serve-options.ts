// `perch serve`'s options, read from its argv: by the command (cli/serve.ts, which reports bad input as a usage
// error) and by the start before the ready line (cli/serve-front.ts, which leaves anything unusual to the command).
import { parseArgs } from 'node:util';
import { DEFAULT_PORT, dataDirOf } from '../paths';
import { parseDurability, type Durability } from '../store/db/durability';
import { DEFAULT_DAILY_BACKUPS } from '../store/backup/backup';

export interface ServeOptions {
  dataDir: string;
  port: number;
  json: boolean;
  open: boolean;
  /** Calls per second per agent (0 = no limit); undefined: the hub's default. */
  rate: number | undefined;
  durability: Durability;
  dailyBackups: number;
  /** --public-url as typed (cli/serve.ts checks and normalizes it). */
  publicUrl: string | undefined;
  containers: boolean;
  /** --listen addresses as typed (cli/serve.ts checks them). */
  listen: string[];
}

/** The options of `perch serve ARGV...`; bad input throws usage(message) (parseArgs' own errors pass through). */
export function readServeOptions(argv: string[], usage: (message: string) => Error): ServeOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      json: { type: 'boolean' },
      open: { type: 'boolean' },
      rate: { type: 'string' },
      durability: { type: 'string' },
      backups: { type: 'string' },
      'public-url': { type: 'string' },
      containers: { type: 'boolean' },
      listen: { type: 'string', multiple: true },
    },
    strict: true,
  });
  const port = values.port !== undefined ? Number(values.port) : Number(process.env.PERCH_PORT ?? DEFAULT_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw usage(`--port must be 0..65535, not ${values.port}`);
  const rate = values.rate !== undefined ? Number(values.rate) : undefined;
  if (rate !== undefined && (!Number.isFinite(rate) || rate < 0)) throw usage('--rate must be a number ≥ 0 (0 = no limit)');
  let durability: Durability;
  try {
    durability =
      values.durability !== undefined
        ? parseDurability(values.durability, '--durability')
        : parseDurability(process.env.PERCH_DURABILITY, 'PERCH_DURABILITY');
  } catch (e) {
    throw usage((e as Error).message);
  }
  return {
    dataDir: dataDirOf(values),
    port,
    json: !!values.json,
    open: !!values.open,
    rate,
    durability,
    dailyBackups: dailyBackupsOption(values.backups, usage),
    publicUrl: values['public-url'],
    containers: !!values.containers,
    listen: values.listen ?? [],
  };
}

function dailyBackupsOption(flag: string | undefined, usage: (message: string) => Error): number {
  const text = flag ?? process.env.PERCH_BACKUPS;
  if (text === undefined || text === '') return DEFAULT_DAILY_BACKUPS;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 1000)
    throw usage(`--backups must be a whole number 0..1000 (0 turns daily backups off), not ${JSON.stringify(text)}`);
  return n;
}
