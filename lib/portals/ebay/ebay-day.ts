/**
 * eBay's calendar day. The listing revision limit says "250 times in one calendar day" without
 * naming a clock; eBay's own daily limits count days from midnight Pacific time ("The day starts
 * at midnight, 00:00:00 PST (not GMT)", Trading API ApiAccessRuleType.DailyHardLimit; the
 * Analytics API's daily rate limits reset at 07:00 UTC in summer). Decision: the revision day is
 * the same Pacific day (America/Los_Angeles, daylight saving included). The sandbox plays it too.
 */
const pacific = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Los_Angeles', year: 'numeric', month: '2-digit', day: '2-digit' });
const pacificHour = new Intl.DateTimeFormat('en-GB', { timeZone: 'America/Los_Angeles', hour: '2-digit', hourCycle: 'h23' });

/** The Pacific calendar day of an instant, YYYY-MM-DD. */
export function ebayDay(ms: number): string {
  return pacific.format(new Date(ms));
}

/** The instant the Pacific day after `ms` begins (midnight PST or PDT). */
export function nextEbayDay(ms: number): Date {
  const [y, m, d] = ebayDay(ms).split('-').map(Number) as [number, number, number];
  // Midnight Pacific is 08:00 UTC (PST) or 07:00 UTC (PDT): the candidate that is midnight there.
  for (const hours of [7, 8]) {
    const at = Date.UTC(y, m - 1, d + 1, hours);
    if (pacificHour.format(new Date(at)) === '00') return new Date(at);
  }
  return new Date(Date.UTC(y, m - 1, d + 1, 8));
}
