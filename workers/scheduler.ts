/**
 * The scheduler process (Procfile: scheduler): node-cron ticks that only enqueue jobs with ids
 * derived from the tick, so a second scheduler never doubles the work. It does no work itself.
 */
import cron, { ScheduledTask } from 'node-cron';
import { config } from '../config';
import { guardProcessStart } from '../config/safety';
import { closeDb } from '../lib/db';
import { log } from '../lib/log';
import { closeRedis, redis, whenReady } from '../lib/redis';
import { handleSignals, onShutdown } from '../lib/shutdown';
import { closeQueues, schedules } from '../lib/queue';
import { pushProcessMetrics } from '../lib/metrics';

async function main(): Promise<void> {
  guardProcessStart(config(), 'scheduler', (line) => log.warn(line));
  onShutdown('knex', closeDb);
  onShutdown('redis', closeRedis);
  onShutdown('queues', closeQueues);
  // The Redis connection the ticks enqueue through; it also keeps the process alive between ticks.
  await whenReady(redis(), 30000);
  const tasks: ScheduledTask[] = schedules().map((schedule) =>
    cron.schedule(
      schedule.cron,
      async () => {
        try {
          await schedule.enqueue(new Date());
        } catch (err) {
          log.warn({ err, schedule: schedule.name }, 'scheduled enqueue failed; the next tick tries again');
        }
      },
      { name: schedule.name, noOverlap: true },
    ),
  );
  onShutdown('cron', async () => {
    for (const task of tasks) await task.stop();
  });
  handleSignals();
  pushProcessMetrics('scheduler');
  log.info({ schedules: schedules().map((s) => `${s.name} ${s.cron}`) }, 'scheduler ready');
}

main().catch((err) => {
  log.fatal({ err }, 'scheduler could not start');
  process.exit(1);
});
