import { STATS_PERIODS, type StatsPeriod } from '../../api';

/** docs/product.md §3.2 time-period selector, in order: the API's periods (`StatsPeriod`). */
export const PERIODS = STATS_PERIODS;
export type Period = StatsPeriod;

export const PERIOD_LABELS: Record<Period, string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  last7days: 'Last 7 Days',
  last30days: 'Last 30 Days',
  thismonth: 'This Month',
  lastmonth: 'Last Month',
  alltime: 'All Time',
};

/** docs/product.md §10.4: stats refetched every 10 s. */
export const STATS_POLL_MS = 10_000;
