/** A periodic task: when to tick, and the job it enqueues (with a job id derived from the tick). */
export interface Schedule {
  name: string;
  cron: string;
  enqueue(tick: Date): Promise<void>;
}

/** Every schedule of the scheduler process. The CIA reconcile and bank sync join here. */
export function schedules(): Schedule[] {
  return [];
}
