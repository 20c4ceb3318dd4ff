/**
 * The intervals the scheduled indexer may run at (config indexer.intervalMinutes): minutes
 * that divide an hour, or whole hours that divide a day, so a clock-based timer (systemd
 * OnCalendar, ops/index-schedule-files.ts) fires at even gaps around the clock. Pure.
 */
export const MINUTES_PER_HOUR = 60;
export const MINUTES_PER_DAY = 24 * MINUTES_PER_HOUR;

/** Divisors of an hour below an hour: `*:00/m` fires every m minutes, evenly. */
export const SCHEDULE_MINUTES = [1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30] as const;
/** Divisors of a day in hours: `00/h:00` fires every h hours, evenly. */
export const SCHEDULE_HOURS = [1, 2, 3, 4, 6, 8, 12, 24] as const;

export function isScheduleInterval(minutes: number): boolean {
  if ((SCHEDULE_MINUTES as readonly number[]).includes(minutes)) return true;
  return minutes % MINUTES_PER_HOUR === 0 && (SCHEDULE_HOURS as readonly number[]).includes(minutes / MINUTES_PER_HOUR);
}
