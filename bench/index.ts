/**
 * `npm run bench`: every benchmark case, each printing its figures and the ratio against a
 * baseline measured in the same run on the same machine (never a fixed time). Run one case
 * with `npm run bench -- <name>`.
 */
import './development-mode';
import { closeDb } from '../lib/db/knex';
import { closeQueues } from '../lib/queue/queue.registry';
import { closeRedis } from '../lib/redis';
import { cases } from './cases';

async function main(): Promise<void> {
  const only = process.argv[2];
  const selected = only ? cases.filter((c) => c.name === only) : cases;
  if (selected.length === 0) throw new Error(`no bench case ${only}; cases: ${cases.map((c) => c.name).join(', ')}`);
  for (const benchCase of selected) {
    process.stdout.write(`\n== ${benchCase.name}: ${benchCase.description}\n`);
    await benchCase.run();
  }
}

main()
  .catch((err) => {
    process.stderr.write(`bench failed: ${(err as Error).stack}\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await closeQueues();
    await closeDb();
    await closeRedis();
  });
