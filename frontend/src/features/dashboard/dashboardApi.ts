import { api } from '../../app/api';
import type * as Api from '../../api/generated';

/** docs/product.md §3.2 time-period selector, in order. */
export const PERIODS = ['today', 'yesterday', 'last7days', 'last30days', 'thismonth', 'lastmonth', 'alltime'] as const;
export type Period = (typeof PERIODS)[number];

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

export type Stats = Api.StatsResponse;

export const dashboardApi = api.injectEndpoints({
  endpoints: (build) => ({
    stats: build.query<Stats, Period>({
      query: (period) => `stats/${period}`,
      providesTags: (_r, _e, period) => [
        { type: 'Stats', id: 'LIST' },
        { type: 'Stats', id: period },
      ],
    }),
  }),
});

export const { useStatsQuery } = dashboardApi;
