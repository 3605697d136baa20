/** docs/product.md §3.2 time-period selector. */
export const STATS_PERIODS = [
  'today',
  'yesterday',
  'last7days',
  'last30days',
  'thismonth',
  'lastmonth',
  'alltime',
] as const;
export type StatsPeriod = (typeof STATS_PERIODS)[number];

/** The console's names of the periods (its selector and captions use the same, docs/admin-console.md). */
export const PERIOD_LABELS: Record<StatsPeriod, string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  last7days: 'Last 7 Days',
  last30days: 'Last 30 Days',
  thismonth: 'This Month',
  lastmonth: 'Last Month',
  alltime: 'All Time',
};

/**
 * Local (wall-clock) bounds of each period as SQL over `d` = today's local midnight and `m` = the first
 * of this month, both `timestamp without time zone` in the configured zone. Half-open: [from, to).
 * Computing on local timestamps and converting back keeps days right across DST changes.
 */
export const PERIOD_BOUNDS_SQL: Record<Exclude<StatsPeriod, 'alltime'>, [string, string]> = {
  today: ['d', "d + interval '1 day'"],
  yesterday: ["d - interval '1 day'", 'd'],
  last7days: ["d - interval '6 days'", "d + interval '1 day'"],
  last30days: ["d - interval '29 days'", "d + interval '1 day'"],
  thismonth: ['m', "m + interval '1 month'"],
  lastmonth: ["m - interval '1 month'", 'm'],
};

export function isStatsPeriod(value: string): value is StatsPeriod {
  return (STATS_PERIODS as readonly string[]).includes(value);
}
