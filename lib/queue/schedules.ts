import { config } from '../../config';
import { queues } from './queue.registry';

/** A periodic task: when to tick, and the job it enqueues (with a job id derived from the tick). */
export interface Schedule {
  name: string;
  cron: string;
  enqueue(tick: Date): Promise<void>;
}

/** The tick to the minute: two schedulers firing in the same minute add the same job id. */
export function tickId(tick: Date): string {
  return tick.toISOString().slice(0, 16).replace(/[-:T]/g, '');
}

/** Every schedule of the scheduler process. */
export function schedules(): Schedule[] {
  return [
    {
      name: 'cia-reconcile',
      cron: config().ciaReconcileCron,
      enqueue: (tick) => queues().add('cia.reconcile', { tick: tickId(tick) }, `cia-reconcile-${tickId(tick)}`),
    },
    {
      name: 'outbox-cleanup',
      cron: config().outboxCleanupCron,
      enqueue: (tick) => queues().add('outbox.cleanup', { tick: tickId(tick) }, `outbox-cleanup-${tickId(tick)}`),
    },
    {
      name: 'expired-cleanup',
      cron: config().outboxCleanupCron,
      enqueue: (tick) => queues().add('expired.cleanup', { tick: tickId(tick) }, `expired-cleanup-${tickId(tick)}`),
    },
    {
      name: 'bank-rematch',
      cron: config().bankRematchCron,
      enqueue: (tick) => queues().add('bank.rematch', { tick: tickId(tick) }, `bank-rematch-${tickId(tick)}`),
    },
    {
      name: 'order-import',
      // Every 10 s; the job id is the interval's slot, so one order.import_all per ORDER_FETCH_INTERVAL_SECONDS.
      cron: '*/10 * * * * *',
      enqueue: async (tick) => {
        const slot = String(Math.floor(tick.getTime() / 1000 / config().orderFetchIntervalSeconds));
        await queues().add('order.import_all', { tick: slot }, `order-import-all-${slot}`);
      },
    },
    {
      name: 'bank-provider-sync',
      cron: config().bankProviderSyncCron,
      // The bank worker fans it out: one bank.provider_sync per connected account.
      enqueue: (tick) => queues().add('bank.provider_sync_all', { tick: tickId(tick) }, `bank-provider-sync-all-${tickId(tick)}`),
    },
  ];
}
