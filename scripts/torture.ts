// npm run torture [-- --rounds N] [-- --writers N]: the kill -9 loop of test/support/torture.ts. Prints one line
// per round and a summary (rounds, acked, lost, duplicated, integrity failures, restart time mean/max);
// exits 1 if anything acknowledged was lost or duplicated, the file failed integrity_check, a
// conversation's seq had a gap, or the hub answered a write with an error.
import { parseArgs } from 'node:util';
import { formatTortureSummary, runTorture, tortureClean } from '../test/support/torture';

function usage(message: string): never {
  console.error(`torture: ${message}\nusage: npm run torture -- [--rounds N (default 100)] [--writers N (default 8)]`);
  process.exit(2);
}

async function main(): Promise<void> {
  let values: { rounds?: string; writers?: string };
  try {
    ({ values } = parseArgs({ options: { rounds: { type: 'string' }, writers: { type: 'string' } }, strict: true }));
  } catch (e) {
    usage((e as Error).message);
  }
  const rounds = Number(values.rounds ?? 100);
  const writers = Number(values.writers ?? 8);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 100_000)
    usage(`--rounds must be an integer from 1 to 100000, not ${values.rounds}`);
  if (!Number.isInteger(writers) || writers < 2 || writers > 64) usage(`--writers must be an integer from 2 to 64, not ${values.writers}`);

  console.log(`torture: ${rounds} rounds of SIGKILL mid-burst with ${writers} writers`);
  const report = await runTorture({ rounds, writers, log: (line) => console.log(`  ${line}`) });
  console.log(`\n${formatTortureSummary(report)}`);
  if (!tortureClean(report)) {
    console.log('FAILED:');
    for (const p of report.problems) console.log(`  ${p}`);
    process.exitCode = 1;
  } else {
    console.log('OK: every acknowledged message is stored exactly once, the file is intact and every conversation is gap-free.');
  }
}

main().catch((e) => {
  console.error(`torture: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exit(1);
});
